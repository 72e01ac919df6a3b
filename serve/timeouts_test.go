package serve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"
)

// TestFaultSlowBody: a client that announces a body and sends it a byte
// at a time is cut at Limits.BodyTimeout, as slow headers are, on the API
// routes and the others; the server keeps answering meanwhile.
func TestFaultSlowBody(t *testing.T) {
	ts := newTestServer(t, Options{Encoder: fakeFactory(&fakeEncoder{dim: 4, vocab: 100}),
		Limits: Limits{BodyTimeout: 300 * time.Millisecond}})
	addr := strings.TrimPrefix(ts.URL, "http://")
	for _, tt := range []struct {
		method, path string
		length       int
	}{
		{"POST", "/api/metrics", 1_000_000},
		{"POST", "/api/encode", 100},
		{"POST", "/api/perturb", 5000},
		{"GET", "/healthz", 5000},
		{"GET", "/models/x/config.json", 1000},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", tt.method, tt.path, tt.length)
			stop := make(chan struct{})
			defer close(stop)
			go func() { // a byte every 50 ms, for at most 5 s
				for range 100 {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
					if _, err := conn.Write([]byte(" ")); err != nil {
						return
					}
				}
			}()
			start := time.Now()
			conn.SetReadDeadline(start.Add(4 * time.Second))
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				// Answered without reading the body (the route takes
				// none): the connection must then be closed, not left
				// to drain the slow body.
				if tt.method == "GET" {
					if _, err := br.ReadByte(); err == nil || isTimeout(err) {
						t.Errorf("after the reply (%d), the connection stays open for the slow body (%v)", resp.StatusCode, err)
					}
				} else if resp.StatusCode != http.StatusRequestTimeout {
					t.Errorf("status %d, want 408", resp.StatusCode)
				}
			} else if isTimeout(err) {
				t.Fatalf("the slow body is still held after %s", time.Since(start).Round(time.Millisecond))
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("the slow body was cut after %s, want about the 300 ms limit", d.Round(time.Millisecond))
			}
			if r := do(t, &http.Client{Timeout: time.Second}, http.MethodGet, ts.URL+"/healthz", nil); r.status != http.StatusOK {
				t.Errorf("healthz meanwhile: %d", r.status)
			}
		})
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// TestMetricsBusy: /api/metrics runs at most Limits.MaxConcurrentMetrics
// evaluations at once; a request that gets no slot within QueueWait is
// answered 503 with Retry-After.
func TestMetricsBusy(t *testing.T) {
	release := make(chan struct{})
	var running, peak atomic.Int32
	saved := evaluateHook
	evaluateHook = func() {
		n := running.Add(1)
		defer running.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		<-release
	}
	defer func() { evaluateHook = saved }()
	ts := newTestServer(t, Options{Limits: Limits{MaxConcurrentMetrics: 2, QueueWait: 200 * time.Millisecond}})
	body := []byte(`{"qrels": "q 0 d 1\n", "run": "q Q0 d 1 1 x\n"}`)
	var wg sync.WaitGroup
	replies := make(chan response, 5)
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies <- post(t, ts.URL+"/api/metrics", body)
		}()
	}
	// The three without a slot are answered busy; then the two run on.
	busy := 0
	for range 3 {
		r := <-replies
		wantError(t, r, http.StatusServiceUnavailable, "busy")
		if r.header.Get("Retry-After") == "" {
			t.Error("a busy reply has no Retry-After")
		}
		busy++
	}
	close(release)
	wg.Wait()
	close(replies)
	for r := range replies {
		if r.status != http.StatusOK {
			t.Errorf("a request with a slot: %d %s", r.status, r.body)
		}
	}
	if p := peak.Load(); p != 2 {
		t.Errorf("%d evaluations ran at once, want the limit, 2", p)
	}
}

// TestErrorsHideServerPaths: a 5xx reply, or a 404 made of a server
// error, names the file it is about but not where the server keeps it.
func TestErrorsHideServerPaths(t *testing.T) {
	const secret = "/home/alice/private/models"
	badFS := errFS{err: &fs.PathError{Op: "open", Path: secret + "/m/config.json", Err: errors.New("input/output error")}}
	enc := func(_ context.Context, name, _ string) (Encoder, error) {
		if name == "missing" {
			return nil, fmt.Errorf("model %q is not installed in %s: %w", name, secret, ErrUnknownModel)
		}
		return nil, fmt.Errorf("opening %s/%s/model.onnx: %w", secret, name, errors.New("bad graph"))
	}
	demo := func(context.Context, string) (*DemoData, error) {
		return nil, fmt.Errorf("reading C:\\Users\\alice\\cache\\x.npy and %s/x.json: damaged", secret)
	}
	ts := newTestServer(t, Options{Models: badFS, Encoder: enc, Demo: demo})
	for _, tt := range []struct {
		name   string
		r      response
		status int
		want   string
	}{
		{"model file", do(t, nil, http.MethodGet, ts.URL+"/models/m/config.json", nil), http.StatusInternalServerError, "config.json"},
		{"model index", do(t, nil, http.MethodGet, ts.URL+"/models/index.json", nil), http.StatusInternalServerError, ""},
		{"encoder", post(t, ts.URL+"/api/encode", map[string]any{"model": "m", "texts": []string{"a"}}), http.StatusInternalServerError, "model.onnx"},
		{"unknown model", post(t, ts.URL+"/api/encode", map[string]any{"model": "missing", "texts": []string{"a"}}), http.StatusNotFound, "not installed"},
		{"demo", do(t, nil, http.MethodGet, ts.URL+"/data/demo/m.npy", nil), http.StatusInternalServerError, "x.npy"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, tt.r, tt.status, tt.want)
			for _, leak := range []string{secret, "/home/", `C:\Users`, "alice"} {
				if strings.Contains(string(tt.r.body), leak) {
					t.Errorf("the reply shows the server path %q: %s", leak, tt.r.body)
				}
			}
		})
	}
}

// errFS fails every Open with err.
type errFS struct{ err error }

func (f errFS) Open(string) (fs.File, error) { return nil, f.err }

var _ fs.FS = fstest.MapFS{}

func TestScrubPaths(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"open /root/.cache/dreval/models/minilm/config.json: permission denied", "open .../config.json: permission denied"},
		{`model "x" is not installed in /home/a/models; run "dreval model get x"`, `model "x" is not installed in .../models; run "dreval model get x"`},
		{`reading C:\Users\a\cache\k.npy failed`, `reading .../k.npy failed`},
		{"(/var/tmp/x/)", "(.../x)"},
		{"/healthz: use GET", "/healthz: use GET"},
		{"see https://example.org/a/b for more", "see https://example.org/a/b for more"},
		{"ratio 3/4 of minilm/config.json", "ratio 3/4 of minilm/config.json"},
		{"no path here", "no path here"},
	} {
		if got := scrubPaths(tt.in); got != tt.want {
			t.Errorf("scrubPaths(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestBodiesInFlightBounded: the API holds at most
// Limits.MaxBodyBytesInFlight bytes of request bodies; a request whose
// body does not fit within QueueWait gets 503 with Retry-After, and fits
// once the others are done.
func TestBodiesInFlightBounded(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	saved := evaluateHook
	evaluateHook = func() {
		entered <- struct{}{}
		<-release
	}
	defer func() { evaluateHook = saved }()
	ts := newTestServer(t, Options{Limits: Limits{MaxBodyBytes: 1000, MaxBodyBytesInFlight: 1000, QueueWait: 100 * time.Millisecond}})
	body := func(n int) []byte {
		b := []byte(`{"qrels": "q 0 d 1\n", "run": "q Q0 d 1 1 x\n"`)
		return append(append(b, bytes.Repeat([]byte(" "), n-len(b)-1)...), '}')
	}
	first := make(chan response, 1)
	go func() { first <- post(t, ts.URL+"/api/metrics", body(900)) }()
	<-entered
	r := post(t, ts.URL+"/api/metrics", body(500))
	wantError(t, r, http.StatusServiceUnavailable, "request bodies")
	if r.header.Get("Retry-After") == "" {
		t.Error("a busy reply has no Retry-After")
	}
	close(release)
	if r := <-first; r.status != http.StatusOK {
		t.Errorf("the first request: %d %s", r.status, r.body)
	}
	go func() { <-entered }()
	if r := post(t, ts.URL+"/api/metrics", body(500)); r.status != http.StatusOK {
		t.Errorf("once the first was done: %d %s", r.status, r.body)
	}
}
