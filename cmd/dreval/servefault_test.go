package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/serve"
)

// cpuTime returns the CPU time this process has used (every thread: the
// engines' too).
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestFaultServeEncodeCPU is issue 29's must-show with the real model and
// both engines: a client leaves a 1,024-text encode of long texts after
// a second; within 2 s the server's CPU falls to idle (under 20% of a
// core over the next second), and a one-text request is answered at once.
func TestFaultServeEncodeCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes with MiniLM")
	}
	modelDir := sharedtest.ModelDir(t, "minilm")
	long := strings.Repeat("dense retrievers under tokenizer perturbation lose recall ", 40)
	texts := make([]string, 1024)
	for i := range texts {
		texts[i] = long
	}
	big, err := json.Marshal(map[string]any{"model": "minilm", "texts": texts})
	if err != nil {
		t.Fatal(err)
	}
	for _, eng := range []experiment.Engine{experiment.EngineGo, experiment.EngineORT} {
		t.Run(string(eng), func(t *testing.T) {
			lib := defaultORTLib()
			if eng == experiment.EngineORT {
				lib = ortLibOrSkip(t)
			}
			sm := newServeModels(filepath.Dir(modelDir), eng, lib, "")
			ts := httptest.NewServer(serve.NewMux(serve.Options{Encoder: sm.encoder,
				Limits: serve.Limits{MaxConcurrentEncodes: 1, QueueWait: 10 * time.Second}}))
			defer ts.Close()
			one := func() (int, time.Duration) {
				start := time.Now()
				c := &http.Client{Timeout: 15 * time.Second}
				resp, err := c.Post(ts.URL+"/api/encode", "application/json", strings.NewReader(`{"model": "minilm", "texts": ["one"]}`))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode, time.Since(start)
			}
			if status, _ := one(); status != http.StatusOK { // opens the model
				t.Fatalf("warm-up request: status %d", status)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/api/encode", bytes.NewReader(big))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
				t.Fatalf("the 1,024-text encode finished within a second (status %d): too fast to test", resp.StatusCode)
			}
			time.Sleep(2 * time.Second)
			before, start := cpuTime(t), time.Now()
			time.Sleep(time.Second)
			used, wall := cpuTime(t)-before, time.Since(start)
			if used > wall/5 {
				t.Errorf("2 s after the client left, the server used %s of CPU in %s: the encoding goes on", used, wall.Round(time.Millisecond))
			}
			status, d := one()
			t.Logf("2-3 s after the client left: %s of CPU in %s; a one-text request: %d in %s", used, wall.Round(time.Millisecond), status, d.Round(time.Millisecond))
			if status != http.StatusOK || d > 2*time.Second {
				t.Errorf("a one-text request after the client left: status %d in %s", status, d)
			}
		})
	}
}
