package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/serve"
)

// BenchmarkServeEncodeMemory sends 150 /api/encode requests (8 texts of
// 10 to 120 words each, two clients at a time, as many as the encode
// slots) to a server encoding with MiniLM, and reports its resident
// memory: once the model is open and has encoded a request ("base-MB"),
// the highest while the requests run ("peak-MB") and after the last
// ("end-MB"). The engine is DREVAL_BENCH_ENGINE (go or ort; default go);
// DREVAL_BENCH_REQUESTS, DREVAL_BENCH_TEXTS and DREVAL_BENCH_WORDS
// change the number of requests, the texts per request and the most
// words per text (250 words fill MiniLM's 256 ids). Run it alone, one
// engine per process: the memory a process has grown is not returned at
// once.
func BenchmarkServeEncodeMemory(b *testing.B) {
	modelDir := sharedtest.ModelDir(b, "minilm")
	eng := experiment.Engine(os.Getenv("DREVAL_BENCH_ENGINE"))
	if eng == "" {
		eng = experiment.EngineGo
	}
	knob := func(name string, def int) int {
		if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
			return n
		}
		return def
	}
	requests, perRequest, maxWords := knob("DREVAL_BENCH_REQUESTS", 150), knob("DREVAL_BENCH_TEXTS", 8), knob("DREVAL_BENCH_WORDS", 120)
	lib := defaultORTLib()
	if _, err := os.Stat(lib); eng == experiment.EngineORT && (err != nil || !cgoORT()) {
		b.Skipf("no ONNX Runtime here (%s): the ort engine cannot run", lib)
	}
	sm := newServeModels(filepath.Dir(modelDir), eng, lib, "")
	ts := httptest.NewServer(serve.NewMux(serve.Options{Encoder: sm.encoder}))
	defer ts.Close()
	words := strings.Fields(strings.Repeat("dense retrievers under tokenizer perturbation lose recall when ids shift ", 30))
	request := func(i int) []byte {
		texts := make([]string, perRequest)
		for j := range texts {
			n := 10 + ((i+1)*perRequest+j)*37%(maxWords-9)
			texts[j] = fmt.Sprintf("request %d text %d: %s", i, j, strings.Join(words[:n], " "))
		}
		body, _ := json.Marshal(map[string]any{"model": "minilm", "texts": texts})
		return body
	}
	post := func(i int) {
		resp, err := http.Post(ts.URL+"/api/encode", "application/json", bytes.NewReader(request(i)))
		if err != nil {
			b.Error(err)
			return
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Errorf("request %d: status %d", i, resp.StatusCode)
		}
	}
	post(-1) // opens the model
	base, _ := sharedtest.RSS()
	stop := sharedtest.SampleRSS(10 * time.Millisecond)
	start := time.Now()
	for b.Loop() {
		next := make(chan int)
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					post(i)
				}
			}()
		}
		for i := range requests {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	elapsed := time.Since(start)
	peak := stop()
	end, _ := sharedtest.RSS()
	b.ReportMetric(float64(base)/(1<<20), "base-MB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
	b.ReportMetric(float64(end)/(1<<20), "end-MB")
	b.ReportMetric(elapsed.Seconds(), "s")
}
