package serve

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
)

// rawClient does not decompress responses: the tests see what is sent.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// testORTWeb is an onnxruntime-web folder with its files and one the
// app never loads.
func testORTWeb() fstest.MapFS {
	return fstest.MapFS{
		"package.json":                {Data: []byte(`{"name": "onnxruntime-web", "version": "1.30.0"}`)},
		"ort.wasm.min.js":             {Data: bytes.Repeat([]byte("var ort;"), 500)},
		"ort-wasm-simd-threaded.mjs":  {Data: []byte("export default 1")},
		"ort-wasm-simd-threaded.wasm": {Data: append([]byte("\x00asm"), bytes.Repeat([]byte{1, 2, 3, 4}, 4096)...)},
		"ort.all.min.js":              {Data: []byte("// not served")},
	}
}

// TestIsolationHeaders: every response of the mux, files, API replies
// and errors alike, makes the page cross-origin isolated.
func TestIsolationHeaders(t *testing.T) {
	app, _ := testApp(t)
	ts := newTestServer(t, Options{Assets: app, ORTWeb: testORTWeb(), Models: fstest.MapFS{"m/config.json": {Data: []byte("{}")}}})
	for _, r := range []response{
		do(t, nil, http.MethodGet, ts.URL+"/", nil),
		do(t, nil, http.MethodGet, ts.URL+"/app.wasm", nil),
		do(t, nil, http.MethodGet, ts.URL+"/worker.js", nil), // 404
		do(t, nil, http.MethodGet, ts.URL+"/models/m/config.json", nil),
		do(t, nil, http.MethodGet, ts.URL+"/ort/ort-wasm-simd-threaded.wasm", nil),
		do(t, nil, http.MethodGet, ts.URL+"/healthz", nil),
		post(t, ts.URL+"/api/encode", map[string]any{"model": "x", "texts": []string{"a"}}), // 501
	} {
		for k, v := range IsolationHeaders {
			if got := r.header.Get(k); got != v {
				t.Errorf("status %d: %s %q, want %q", r.status, k, got, v)
			}
		}
	}
}

func TestORTWebFiles(t *testing.T) {
	fsys := testORTWeb()
	ts := newTestServer(t, Options{ORTWeb: fsys})
	r := do(t, nil, http.MethodGet, ts.URL+"/ort/index.json", nil)
	var x ORTIndex
	if err := json.Unmarshal(r.body, &x); err != nil || r.status != 200 {
		t.Fatalf("index: %d %s (%v)", r.status, r.body, err)
	}
	if x.Version != "1.30.0" || len(x.Files) != 3 || x.Files[2].Path != "ort-wasm-simd-threaded.wasm" || x.Files[2].Size != 4+4*4096 {
		t.Errorf("index %+v", x)
	}
	for name, ctype := range map[string]string{"ort.wasm.min.js": "text/javascript; charset=utf-8", "ort-wasm-simd-threaded.mjs": "text/javascript; charset=utf-8", "ort-wasm-simd-threaded.wasm": "application/wasm"} {
		r := do(t, rawClient, http.MethodGet, ts.URL+"/ort/"+name, nil)
		if r.status != 200 || !bytes.Equal(r.body, fsys[name].Data) || r.header.Get("Content-Type") != ctype || r.header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: %d, %d bytes, %q, %q", name, r.status, len(r.body), r.header.Get("Content-Type"), r.header.Get("Cache-Control"))
		}
	}
	// Compressed for clients that accept it, with an ETag of its own
	// that revalidates.
	r = do(t, rawClient, http.MethodGet, ts.URL+"/ort/ort-wasm-simd-threaded.wasm", nil, "Accept-Encoding", "gzip")
	etag := r.header.Get("ETag")
	if r.header.Get("Content-Encoding") != "gzip" || !strings.HasSuffix(etag, `-gzip"`) || !bytes.Equal(gunzip(t, r.body), fsys["ort-wasm-simd-threaded.wasm"].Data) || len(r.body) >= len(fsys["ort-wasm-simd-threaded.wasm"].Data) {
		t.Errorf("gzip: %q, ETag %q, %d bytes", r.header.Get("Content-Encoding"), etag, len(r.body))
	}
	if r := do(t, rawClient, http.MethodGet, ts.URL+"/ort/ort-wasm-simd-threaded.wasm", nil, "Accept-Encoding", "gzip", "If-None-Match", etag); r.status != http.StatusNotModified {
		t.Errorf("revalidation: %d, want 304", r.status)
	}
	wantError(t, do(t, nil, http.MethodGet, ts.URL+"/ort/ort.all.min.js", nil), 404, "not a file of onnxruntime-web the app loads")
	wantError(t, do(t, nil, http.MethodGet, ts.URL+"/ort/ort.webgpu.min.js", nil), 404, "has no ort.webgpu.min.js")
	wantError(t, do(t, nil, http.MethodGet, ts.URL+"/ort/../package.json", nil), 404, "")

	// Without the folder, or with a broken one, the app learns it has none.
	none := newTestServer(t, Options{})
	wantError(t, do(t, nil, http.MethodGet, none.URL+"/ort/index.json", nil), 404, "does not serve onnxruntime-web")
	broken := testORTWeb()
	delete(broken, "ort-wasm-simd-threaded.wasm")
	bad := newTestServer(t, Options{ORTWeb: broken})
	wantError(t, do(t, nil, http.MethodGet, bad.URL+"/ort/index.json", nil), 404, "ort-wasm-simd-threaded.wasm is missing")
}

// TestModelsCompressed: model files and demo vectors go out gzip-compressed
// to a client that accepts gzip, as they are to others and for ranges;
// the host that compresses itself gets the identity bytes.
func TestModelsCompressed(t *testing.T) {
	weights := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	models := fstest.MapFS{"m/model.safetensors": {Data: weights}, "m/config.json": {Data: []byte("{}")}}
	ts := newTestServer(t, Options{Models: models})
	url := ts.URL + "/models/m/model.safetensors"
	plain := do(t, rawClient, http.MethodGet, url, nil)
	zipped := do(t, rawClient, http.MethodGet, url, nil, "Accept-Encoding", "gzip, br")
	if plain.header.Get("Content-Encoding") != "" || !bytes.Equal(plain.body, weights) {
		t.Errorf("identity: %q, %d bytes", plain.header.Get("Content-Encoding"), len(plain.body))
	}
	if zipped.header.Get("Content-Encoding") != "gzip" || !bytes.Equal(gunzip(t, zipped.body), weights) || zipped.header.Get("Vary") != "Accept-Encoding" {
		t.Errorf("gzip: %q, vary %q", zipped.header.Get("Content-Encoding"), zipped.header.Get("Vary"))
	}
	if plain.header.Get("ETag") == zipped.header.Get("ETag") {
		t.Errorf("the identity and gzip bodies share the ETag %s", plain.header.Get("ETag"))
	}
	if r := do(t, rawClient, http.MethodGet, url, nil, "Accept-Encoding", "gzip", "Range", "bytes=0-3"); r.status != http.StatusPartialContent || string(r.body) != "0123" {
		t.Errorf("range: %d %q", r.status, r.body)
	}
	if r := do(t, rawClient, http.MethodGet, url, nil, "Accept-Encoding", "gzip", "If-None-Match", plain.header.Get("ETag")); r.status == http.StatusNotModified {
		t.Error("the identity ETag revalidated a gzip request")
	}
	// The config is too small to be worth compressing.
	if r := do(t, rawClient, http.MethodGet, ts.URL+"/models/m/config.json", nil, "Accept-Encoding", "gzip"); r.header.Get("Content-Encoding") != "" || string(r.body) != "{}" {
		t.Errorf("config.json: %q %q", r.header.Get("Content-Encoding"), r.body)
	}
	host := newTestServer(t, Options{Models: models, HostCompresses: true})
	if r := do(t, rawClient, http.MethodGet, host.URL+"/models/m/model.safetensors", nil, "Accept-Encoding", "gzip"); r.header.Get("Content-Encoding") != "gzip" || !bytes.Equal(r.body, weights) {
		t.Errorf("host compresses: %q, %d bytes (want the identity bytes for the host to compress)", r.header.Get("Content-Encoding"), len(r.body))
	}
}

// printedEncoder is a fakeEncoder that names its engine and fingerprint.
type printedEncoder struct {
	*fakeEncoder
	engine, fingerprint string
}

func (n printedEncoder) Engine() string      { return n.engine }
func (n printedEncoder) Fingerprint() string { return n.fingerprint }

// TestEncodeNamesEngine: a probe (no ids) learns the dimension, engine
// and fingerprint of what encodes the model; asking for another engine
// is still refused.
func TestEncodeNamesEngine(t *testing.T) {
	enc := printedEncoder{&fakeEncoder{dim: 4, vocab: 50}, "ort", "fake-ort-0123"}
	ts := newTestServer(t, Options{Encoder: fakeFactory(enc)})
	r := post(t, ts.URL+"/api/encode", map[string]any{"model": "fake", "side": "query", "ids": [][]int32{}})
	var got struct {
		Dim         int    `json:"dim"`
		Engine      string `json:"engine"`
		Fingerprint string `json:"fingerprint"`
	}
	if err := json.Unmarshal(r.body, &got); err != nil || r.status != 200 || got != (struct {
		Dim         int    `json:"dim"`
		Engine      string `json:"engine"`
		Fingerprint string `json:"fingerprint"`
	}{4, "ort", "fake-ort-0123"}) {
		t.Errorf("probe: %d %s", r.status, r.body)
	}
	b := post(t, ts.URL+"/api/encode", map[string]any{"model": "fake", "engine": "ort", "ids": [][]int32{{1, 2}}}, "Accept", "application/octet-stream")
	if b.status != 200 || b.header.Get("X-Dreval-Engine") != "ort" || len(b.body) != 16 {
		t.Errorf("binary: %d, engine %q, %d bytes", b.status, b.header.Get("X-Dreval-Engine"), len(b.body))
	}
	wantError(t, post(t, ts.URL+"/api/encode", map[string]any{"model": "fake", "engine": "go", "ids": [][]int32{{1, 2}}}), 409, `not engine "go"`)
}
