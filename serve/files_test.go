package serve

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/dreval/dreval/modelfiles"
)

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// testApp is a small app: a page, a script, a hashed script and the wasm.
func testApp(t testing.TB) (fstest.MapFS, []byte) {
	wasm := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("dreval "), 5000)...)
	return fstest.MapFS{
		"index.html":            {Data: []byte("<!doctype html><title>dreval</title>")},
		"app.js":                {Data: []byte("console.log(1)")},
		"wasm_exec.js":          {Data: []byte("// go")},
		"chunk.0123abcd.js":     {Data: []byte("// hashed")},
		"style.css":             {Data: []byte("body{}")},
		"app.wasm.gz":           {Data: gz(t, wasm)},
		"sub/data.json":         {Data: []byte("{}")},
		"sub/nested/index.html": {Data: []byte("<p>nested")},
	}, wasm
}

func TestStaticFiles(t *testing.T) {
	app, _ := testApp(t)
	ts := newTestServer(t, Options{Assets: app})
	tests := []struct {
		path, ctype, cache string
		body               string
	}{
		{"/", "text/html; charset=utf-8", "no-cache", "<!doctype html><title>dreval</title>"},
		{"/index.html", "text/html; charset=utf-8", "no-cache", "<!doctype html><title>dreval</title>"},
		{"/app.js", "text/javascript; charset=utf-8", "no-cache", "console.log(1)"},
		{"/wasm_exec.js", "text/javascript; charset=utf-8", "no-cache", "// go"},
		{"/chunk.0123abcd.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", "// hashed"},
		{"/style.css", "text/css; charset=utf-8", "no-cache", "body{}"},
		{"/sub/data.json", "application/json", "no-cache", "{}"},
		{"/sub/nested/", "text/html; charset=utf-8", "no-cache", "<p>nested"},
	}
	for _, tt := range tests {
		r := do(t, nil, http.MethodGet, ts.URL+tt.path, nil)
		if r.status != http.StatusOK || string(r.body) != tt.body {
			t.Errorf("GET %s: %d %q", tt.path, r.status, r.body)
			continue
		}
		if got := r.header.Get("Content-Type"); got != tt.ctype {
			t.Errorf("GET %s: Content-Type %q, want %q", tt.path, got, tt.ctype)
		}
		if got := r.header.Get("Cache-Control"); got != tt.cache {
			t.Errorf("GET %s: Cache-Control %q, want %q", tt.path, got, tt.cache)
		}
		etag := r.header.Get("ETag")
		if !strings.HasPrefix(etag, `"`) {
			t.Errorf("GET %s: ETag %q", tt.path, etag)
			continue
		}
		if r := do(t, nil, http.MethodGet, ts.URL+tt.path, nil, "If-None-Match", etag); r.status != http.StatusNotModified {
			t.Errorf("GET %s with its ETag: %d, want 304", tt.path, r.status)
		}
	}
	for _, p := range []string{"/nosuch.js", "/sub", "/sub/nosuch"} {
		wantError(t, do(t, nil, http.MethodGet, ts.URL+p, nil), http.StatusNotFound, "no such file")
	}
	wantError(t, do(t, nil, http.MethodPost, ts.URL+"/", []byte("x")), http.StatusMethodNotAllowed, "GET")
}

func TestWasmGzip(t *testing.T) {
	app, wasm := testApp(t)
	stored := app["app.wasm.gz"].Data
	noCompress := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, host := range []bool{false, true} {
		ts := newTestServer(t, Options{Assets: app, HostCompresses: host})
		for _, ae := range []string{"gzip, deflate, br", "br;q=1, gzip;q=0.5", "*", "identity", "gzip;q=0", "gzip;q=0, *", ""} {
			r := do(t, noCompress, http.MethodGet, ts.URL+"/app.wasm", nil, "Accept-Encoding", ae)
			if r.status != http.StatusOK {
				t.Fatalf("host %v, Accept-Encoding %q: status %d", host, ae, r.status)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/wasm" {
				t.Errorf("Content-Type %q, want application/wasm", ct)
			}
			if v := r.header.Get("Vary"); v != "Accept-Encoding" {
				t.Errorf("Vary %q", v)
			}
			wantGzip := acceptsGzip(ae)
			if got := r.header.Get("Content-Encoding") == "gzip"; got != wantGzip {
				t.Errorf("host %v, Accept-Encoding %q: gzip %v, want %v", host, ae, got, wantGzip)
			}
			want := wasm
			if wantGzip && !host {
				want = stored
			}
			if !bytes.Equal(r.body, want) {
				t.Errorf("host %v, Accept-Encoding %q: body of %d bytes, want %d", host, ae, len(r.body), len(want))
			}
			if r := do(t, noCompress, http.MethodGet, ts.URL+"/app.wasm", nil, "Accept-Encoding", ae, "If-None-Match", r.header.Get("ETag")); r.status != http.StatusNotModified {
				t.Errorf("host %v, Accept-Encoding %q: revalidation %d, want 304", host, ae, r.status)
			}
		}
	}
	// The default client asks for gzip and decompresses: the bytes are the wasm.
	ts := newTestServer(t, Options{Assets: app})
	if r := do(t, nil, http.MethodGet, ts.URL+"/app.wasm", nil); !bytes.Equal(r.body, wasm) {
		t.Errorf("decompressed app.wasm differs (%d bytes, want %d)", len(r.body), len(wasm))
	}
	// Without the wasm, the message says how to build it.
	delete(app, "app.wasm.gz")
	ts = newTestServer(t, Options{Assets: app})
	wantError(t, do(t, nil, http.MethodGet, ts.URL+"/app.wasm", nil), http.StatusNotFound, "make wasm && make build")
}

func TestAcceptsGzip(t *testing.T) {
	tests := map[string]bool{
		"": false, "gzip": true, "GZIP": true, "x-gzip": true, "gzip;q=0": false, "gzip; q=0.001": true,
		"*": true, "*;q=0": false, "gzip;q=0, *": false, "br, *;q=0.1": true, "deflate, br": false, "identity": false,
	}
	for h, want := range tests {
		if got := acceptsGzip(h); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", h, got, want)
		}
	}
}

// modelDir writes a models directory with one model, and a secret file
// beside it that no request may read.
func modelDir(t *testing.T) (dir string) {
	root := t.TempDir()
	dir = filepath.Join(root, "models")
	files := map[string]string{
		"minilm/config.json":            `{"hidden_size": 4}`,
		"minilm/tokenizer.json":         `{"model": {}}`,
		"minilm/model.fp16.safetensors": "WEIGHTS",
		"minilm/model.onnx":             "ONNX",
		"minilm/notes.txt":              "NOT SERVED",
		"minilm/sub/config.json":        "NOT SERVED",
		"minilm/1_Pooling/config.json":  `{"pooling_mode_mean_tokens": true}`,
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "secret.json"), []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestModelFiles(t *testing.T) {
	ts := newTestServer(t, Options{Models: os.DirFS(modelDir(t))})
	for _, tt := range []struct{ file, ctype, body string }{
		{"config.json", "application/json", `{"hidden_size": 4}`},
		{"tokenizer.json", "application/json", `{"model": {}}`},
		{"model.fp16.safetensors", "application/octet-stream", "WEIGHTS"},
		{"model.onnx", "application/octet-stream", "ONNX"},
		{"1_Pooling/config.json", "application/json", `{"pooling_mode_mean_tokens": true}`},
	} {
		r := do(t, nil, http.MethodGet, ts.URL+"/models/minilm/"+tt.file, nil)
		if r.status != http.StatusOK || string(r.body) != tt.body || r.header.Get("Content-Type") != tt.ctype {
			t.Errorf("GET %s: %d %q %q", tt.file, r.status, r.header.Get("Content-Type"), r.body)
		}
		if r := do(t, nil, http.MethodGet, ts.URL+"/models/minilm/"+tt.file, nil, "If-None-Match", r.header.Get("ETag")); r.status != http.StatusNotModified {
			t.Errorf("GET %s with its ETag: %d, want 304", tt.file, r.status)
		}
	}
	wantError(t, do(t, nil, http.MethodGet, ts.URL+"/models/minilm/notes.txt", nil), http.StatusNotFound, "not a model file")
	wantError(t, do(t, nil, http.MethodGet, ts.URL+"/models/other/config.json", nil), http.StatusNotFound, `model "other" has no config.json`)
}

// TestModelIndex checks /models/index.json lists the served models and
// exactly the files /models/ serves of them, with their sizes.
func TestModelIndex(t *testing.T) {
	dir := modelDir(t)
	ts := newTestServer(t, Options{Models: os.DirFS(dir)})
	index := func() *modelfiles.Index {
		t.Helper()
		r := do(t, nil, http.MethodGet, ts.URL+"/models/index.json", nil)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET /models/index.json: %d %q", r.status, r.header.Get("Content-Type"))
		}
		var x modelfiles.Index
		if err := json.Unmarshal(r.body, &x); err != nil {
			t.Fatal(err)
		}
		return &x
	}
	x := index()
	m := x.Model("minilm")
	if len(x.Models) != 1 || m == nil {
		t.Fatalf("index %+v", x)
	}
	want := []string{"1_Pooling/config.json", "config.json", "model.fp16.safetensors", "model.onnx", "tokenizer.json"}
	if !slices.Equal(m.Paths(), want) {
		t.Errorf("listed %v, want %v", m.Paths(), want)
	}
	for _, f := range m.Files {
		got := do(t, nil, http.MethodGet, ts.URL+"/models/minilm/"+f.Path, nil)
		if got.status != http.StatusOK || int64(len(got.body)) != f.Size {
			t.Errorf("%s listed with %d bytes: GET answers %d with %d bytes", f.Path, f.Size, got.status, len(got.body))
		}
		// The weights' SHA-256 is listed (the page then fetches them
		// only when its engine reads them), of what GET answers.
		sum := sha256.Sum256(got.body)
		if want := hex.EncodeToString(sum[:]); modelfiles.IsWeights(f.Path) != (f.SHA256 == want) || !modelfiles.IsWeights(f.Path) && f.SHA256 != "" {
			t.Errorf("%s listed with SHA-256 %q; its contents' is %s (weights: %v)", f.Path, f.SHA256, want, modelfiles.IsWeights(f.Path))
		}
	}
	// Changed weights are hashed again, not taken from the cache.
	weights := filepath.Join(dir, "minilm", "model.fp16.safetensors")
	if err := os.WriteFile(weights, []byte("OTHER WEIGHTS"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(weights, later, later); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("OTHER WEIGHTS"))
	if got := index().Model("minilm").SHA256("model.fp16.safetensors"); got != hex.EncodeToString(sum[:]) {
		t.Errorf("after the weights changed the index lists SHA-256 %q, want %x", got, sum)
	}
	empty := newTestServer(t, Options{})
	if r := do(t, nil, http.MethodGet, empty.URL+"/models/index.json", nil); r.status != http.StatusOK || string(r.body) != `{"models":[]}` {
		t.Errorf("a server without models: %d %s", r.status, r.body)
	}
}

// TestPathTraversal asks for files outside the served trees in every
// spelling: none may come back.
func TestPathTraversal(t *testing.T) {
	dir := modelDir(t)
	app, _ := testApp(t)
	ts := newTestServer(t, Options{Assets: app, Models: os.DirFS(dir)})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	paths := []string{
		"/models/../secret.json",
		"/models/minilm/../../secret.json",
		"/models/..%2fsecret.json",
		"/models/minilm/..%2f..%2fsecret.json",
		"/models/%2e%2e/secret.json",
		"/models/minilm/%2e%2e%2f%2e%2e%2fsecret.json",
		"/models/minilm/sub/config.json",
		"/models/minilm/..\\..\\secret.json",
		"/models/./minilm/config.json/../../../secret.json",
		"/models//secret.json",
		"/../secret.json",
		"/..%2fsecret.json",
		"/%2e%2e/%2e%2e/etc/passwd",
		"/..\\..\\etc\\passwd",
		"/data/demo/..%2f..%2fsecret.json",
	}
	for _, p := range paths {
		u := ts.URL + p
		req, err := http.NewRequest(http.MethodGet, ts.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Opaque = p // sent as written, not cleaned by the client
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		if strings.Contains(body.String(), "SECRET") || strings.Contains(body.String(), "NOT SERVED") || strings.Contains(body.String(), "root:") {
			t.Errorf("GET %s: %d served a file outside the allowed ones: %q", p, resp.StatusCode, body.String())
		}
		if resp.StatusCode == http.StatusOK {
			t.Errorf("GET %s: 200 (%q)", p, body.String())
		}
		if loc := resp.Header.Get("Location"); loc != "" {
			if u, err := url.Parse(loc); err == nil && strings.Contains(u.Path, "secret") {
				// A redirect to the cleaned path must not lead to the file either.
				r := do(t, nil, http.MethodGet, ts.URL+u.Path, nil)
				if r.status == http.StatusOK {
					t.Errorf("GET %s redirects to %s, which serves %q", p, loc, r.body)
				}
			}
		}
	}
}
