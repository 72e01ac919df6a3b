package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/serve"
	"github.com/dreval/dreval/webapp"
)

// workerdPath returns the workerd that scripts/setup-worker.sh installs,
// skipping the test (failing it under CI=true) when it is absent.
func workerdPath(t *testing.T) string {
	t.Helper()
	p := filepath.Join(sharedtest.Root(), "build", "node", "node_modules", ".bin", "workerd")
	if _, err := os.Stat(p); err != nil {
		msg := fmt.Sprintf("workerd is not installed at %s; run scripts/setup-worker.sh", p)
		if sharedtest.InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

const capnpConfig = `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .dreval) ],
  sockets = [ (name = "http", address = "%s", http = (), service = "main") ],
);

const dreval :Workerd.Worker = (
  modules = [
    (name = "worker.mjs", esModule = embed "worker.mjs"),
    (name = "wasm_exec.js", esModule = embed "wasm_exec.js"),
    (name = "runtime.mjs", esModule = embed "runtime.mjs"),
    (name = "app.wasm", wasm = embed "app.wasm"),
  ],
  compatibilityDate = "2025-01-01",
);
`

// startWorker builds the Worker with scripts/worker-build.sh into a
// temporary directory and runs it in workerd on a free loopback port. It
// returns the base URL; the process stops with the test.
func startWorker(t *testing.T) string {
	t.Helper()
	workerd := workerdPath(t)
	sharedtest.ModelDir(t, "minilm") // the build bundles its tokenizer
	out := t.TempDir()
	build := exec.Command(filepath.Join(sharedtest.Root(), "scripts", "worker-build.sh"))
	build.Env = append(os.Environ(), "WORKER_OUT="+out)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/worker-build.sh: %v\n%s", err, b)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if err := os.WriteFile(filepath.Join(out, "config.capnp"), []byte(fmt.Sprintf(capnpConfig, addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd := exec.Command(workerd, "serve", "config.capnp")
	cmd.Dir = out
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("workerd output:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("workerd did not answer /healthz within 30s (%v)\n%s", err, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func get(t testing.TB, c *http.Client, url string, header ...string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return send(t, c, req)
}

func post(t testing.TB, url string, body []byte) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return send(t, nil, req)
}

func send(t testing.TB, c *http.Client, req *http.Request) reply {
	t.Helper()
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return reply{resp.StatusCode, resp.Header, b}
}

// synthetic returns a qrels and a run of n queries (20 ranked documents
// each, some relevant), deterministic.
func synthetic(n int) (qrels, run string) {
	var q, r strings.Builder
	x := uint32(12345)
	next := func() uint32 { x = x*1664525 + 1013904223; return x >> 8 }
	for i := 1; i <= n; i++ {
		for d := 0; d < 30; d++ {
			if next()%4 == 0 {
				fmt.Fprintf(&q, "q%d 0 d%d %d\n", i, d, 1+next()%2)
			}
		}
		start := next() % 30
		for rank := 1; rank <= 20; rank++ {
			// 7 and 30 are coprime: 20 distinct documents.
			fmt.Fprintf(&r, "q%d Q0 d%d %d %.4f dreval\n", i, (start+7*uint32(rank))%30, rank, 1/float64(rank))
		}
	}
	return q.String(), r.String()
}

// want returns what metrics.Evaluate and metrics.WriteJSON give for a
// metrics request (trec convention, level 1).
func want(t testing.TB, qrels, run string, measures []string, perQuery bool) []byte {
	t.Helper()
	q, err := metrics.ReadQrels(strings.NewReader(qrels), "qrels")
	if err != nil {
		t.Fatal(err)
	}
	r, err := metrics.ReadRun(strings.NewReader(run), "run")
	if err != nil {
		t.Fatal(err)
	}
	ms := metrics.DefaultMeasures(metrics.ConventionTREC)
	if measures != nil {
		if ms, err = metrics.ParseMeasures(measures, metrics.ConventionTREC); err != nil {
			t.Fatal(err)
		}
	}
	res, err := metrics.Evaluate(q, r, ms, metrics.Options{Convention: metrics.ConventionTREC})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := metrics.WriteJSON(&b, res, perQuery); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func metricsBody(t testing.TB, qrels, run string, measures []string, perQuery bool) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"qrels": qrels, "run": run, "measures": measures, "per_query": perQuery})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWorker builds the Worker, runs it in workerd and checks it over
// HTTP.
func TestWorker(t *testing.T) {
	base := startWorker(t)

	t.Run("page", func(t *testing.T) {
		r := get(t, nil, base+"/")
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("GET /: %d %q", r.status, r.header.Get("Content-Type"))
		}
		r = get(t, nil, base+"/nosuch.js")
		if r.status != http.StatusNotFound {
			t.Errorf("GET /nosuch.js: %d", r.status)
		}
	})

	t.Run("wasm", func(t *testing.T) {
		if !webapp.Built() {
			msg := "the browser app is not built (make wasm): app.wasm cannot be checked"
			if sharedtest.InCI() {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
		stored, err := fs.ReadFile(webapp.FS(), webapp.WasmName)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(stored))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		raw_ := &http.Client{Transport: &http.Transport{DisableCompression: true}}
		r := get(t, raw_, base+"/app.wasm", "Accept-Encoding", "gzip")
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/wasm" || r.header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("GET /app.wasm (gzip): %d %q %q", r.status, r.header.Get("Content-Type"), r.header.Get("Content-Encoding"))
		}
		zr, err = gzip.NewReader(bytes.NewReader(r.body))
		if err != nil {
			t.Fatalf("the gzip app.wasm: %v", err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, raw) {
			t.Errorf("the gzip app.wasm decompresses to %d bytes (%v), want the %d of the app", len(got), err, len(raw))
		}
	})

	t.Run("files", func(t *testing.T) {
		r := get(t, nil, base+"/models/minilm/tokenizer.json")
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" || !json.Valid(r.body) {
			t.Errorf("GET tokenizer.json: %d %q", r.status, r.header.Get("Content-Type"))
		}
		r = get(t, nil, base+"/models/minilm/model.fp16.safetensors")
		if r.status != http.StatusNotFound {
			t.Errorf("GET the weights: %d, want 404 (the Worker ships none)", r.status)
		}
		r = get(t, nil, base+"/data/demo/minilm.npy")
		if r.status != http.StatusOK || !bytes.HasPrefix(r.body, []byte("\x93NUMPY")) {
			t.Errorf("GET minilm.npy: %d %.10q", r.status, r.body)
		}
	})

	// Every response, files, API replies and errors alike, carries the
	// headers that make the page cross-origin isolated (onnxruntime-web
	// then runs on several threads).
	t.Run("isolation", func(t *testing.T) {
		for _, r := range []reply{
			get(t, nil, base+"/"),
			get(t, nil, base+"/worker.js"),
			get(t, nil, base+"/nosuch.js"),
			get(t, nil, base+"/models/minilm/tokenizer.json"),
			get(t, nil, base+"/data/demo/minilm.npy"),
			get(t, nil, base+"/ort/index.json"), // 404: the embedded app serves no onnxruntime-web
			get(t, nil, base+"/healthz"),
			post(t, base+"/api/encode", []byte(`{"model": "minilm", "texts": ["a"]}`)),
		} {
			for k, v := range serve.IsolationHeaders {
				if got := r.header.Get(k); got != v {
					t.Errorf("status %d: %s %q, want %q", r.status, k, got, v)
				}
			}
		}
	})

	qrels, run := synthetic(100)

	t.Run("metrics", func(t *testing.T) {
		for _, c := range []struct {
			measures []string
			perQuery bool
		}{{nil, false}, {[]string{"map", "ndcg_cut.10", "P.5,10", "recip_rank", "recall.100"}, true}} {
			r := post(t, base+"/api/metrics", metricsBody(t, qrels, run, c.measures, c.perQuery))
			if w := want(t, qrels, run, c.measures, c.perQuery); r.status != http.StatusOK || !bytes.Equal(r.body, w) {
				t.Errorf("measures %v: %d\n got %.300s\nwant %.300s", c.measures, r.status, r.body, w)
			}
		}
		dir := sharedtest.Path(t, "testdata/trec_eval")
		tq, _ := os.ReadFile(filepath.Join(dir, "qrels.test"))
		tr, _ := os.ReadFile(filepath.Join(dir, "results.test"))
		r := post(t, base+"/api/metrics", metricsBody(t, string(tq), string(tr), []string{"all_trec"}, true))
		if w := want(t, string(tq), string(tr), []string{"all_trec"}, true); r.status != http.StatusOK || !bytes.Equal(r.body, w) {
			t.Errorf("trec_eval's test files: %d\n got %.300s\nwant %.300s", r.status, r.body, w)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, body := range []string{`{`, `{"qrels": 1}`, `{"qrels": "q 0 d x", "run": ""}`, `{"qrels": "q 0 d 1", "run": "q Q0 d 1 NaNx t"}`, ``} {
			r := post(t, base+"/api/metrics", []byte(body))
			var e struct{ Error string }
			if r.status != http.StatusBadRequest || json.Unmarshal(r.body, &e) != nil || e.Error == "" {
				t.Errorf("%q: %d %s, want 400 with a message", body, r.status, r.body)
			}
		}
		big := bytes.Repeat([]byte("x"), 9<<20)
		if r := post(t, base+"/api/metrics", big); r.status != http.StatusRequestEntityTooLarge || !bytes.Contains(r.body, []byte("exceeds the limit")) {
			t.Errorf("a 9 MiB body: %d %.200s, want 413", r.status, r.body)
		}
		if r := post(t, base+"/api/encode", []byte(`{"model": "minilm", "texts": ["a"]}`)); r.status != http.StatusNotImplemented {
			t.Errorf("/api/encode: %d %s, want 501", r.status, r.body)
		}
		// The Worker still answers after all that.
		if r := get(t, nil, base+"/healthz"); r.status != http.StatusOK {
			t.Errorf("/healthz after bad input: %d", r.status)
		}
	})

	t.Run("perturb", func(t *testing.T) {
		native := httptest.NewServer(serve.NewMux(serve.Options{Models: os.DirFS(sharedtest.ModelsDir())}))
		defer native.Close()
		for _, body := range []string{
			`{"texts": ["what is dense retrieval?", "tokenizer poisoning"], "mode": "idshift", "rate": 0.3, "seed": 3}`,
			`{"texts": ["keyboard typos hurt"], "mode": "typo", "rate": 0.2, "seed": 1, "tokenizer": "minilm"}`,
		} {
			w, g := post(t, native.URL+"/api/perturb", []byte(body)), post(t, base+"/api/perturb", []byte(body))
			if w.status != http.StatusOK || g.status != http.StatusOK || !bytes.Equal(w.body, g.body) {
				t.Errorf("%s:\nworker %d %s\nnative %d %s", body, g.status, g.body, w.status, w.body)
			}
		}
	})

	t.Run("sequential and concurrent", func(t *testing.T) {
		body := metricsBody(t, qrels, run, nil, false)
		w := want(t, qrels, run, nil, false)
		lat := make([]time.Duration, 0, 200)
		for i := 0; i < 200; i++ {
			start := time.Now()
			r := post(t, base+"/api/metrics", body)
			lat = append(lat, time.Since(start))
			if r.status != http.StatusOK || !bytes.Equal(r.body, w) {
				t.Fatalf("sequential request %d: %d %.200s", i, r.status, r.body)
			}
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		t.Logf("/api/metrics in workerd, 100-query run (%d bytes), 200 sequential requests: p50 %v, p95 %v, max %v (shared machine)",
			len(body), lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)*95/100].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))

		// 50 at once, each with its own run (the first k queries), so a
		// reply given to the wrong request shows.
		lines := strings.SplitAfter(run, "\n")
		var wg sync.WaitGroup
		errs := make(chan string, 50)
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sub := strings.Join(lines[:20*(51+i)], "")
				r := post(t, base+"/api/metrics", metricsBody(t, qrels, sub, []string{"map", "num_q"}, false))
				if w := want(t, qrels, sub, []string{"map", "num_q"}, false); r.status != http.StatusOK || !bytes.Equal(r.body, w) {
					errs <- fmt.Sprintf("concurrent request %d: %d\n got %.200s\nwant %.200s", i, r.status, r.body, w)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})
}
