package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/retrieval"
	"github.com/dreval/dreval/serve"
	"github.com/dreval/dreval/webapp"
)

// TestServeGracefulShutdown starts the server, cancels its context while
// a request is in flight, and checks the request completes and
// serveUntil returns.
func TestServeGracefulShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		io.WriteString(w, "done")
	})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	var log bytes.Buffer
	go func() { served <- serveUntil(ctx, ln, h, 10*time.Second, &log) }()

	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- result{string(b), err}
	}()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the request never reached the handler")
	}
	cancel()
	select {
	case err := <-served:
		t.Fatalf("serveUntil returned (%v) with a request in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if r := <-got; r.err != nil || r.body != "done" {
		t.Errorf("the request in flight: %q, %v", r.body, r.err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serveUntil: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serveUntil did not return after the last request")
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Error("the server still accepts connections after shutdown")
	}
}

// TestServeMetricsEqualsCLI checks /api/metrics answers byte for byte
// what "dreval metrics -format json" prints.
func TestServeMetricsEqualsCLI(t *testing.T) {
	ts := httptest.NewServer(serve.NewMux(serve.Options{}))
	defer ts.Close()
	qrels, err := os.ReadFile("testdata/example.qrels")
	if err != nil {
		t.Fatal(err)
	}
	run, err := os.ReadFile("testdata/example.run")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{},
		{"-m", "map,ndcg_cut.10,P.5,recip_rank", "-q"},
		{"-convention", "st", "-c"},
		{"-l", "2", "-m", "official"},
	} {
		cli := append([]string{"metrics", "-qrels", "testdata/example.qrels", "-run", "testdata/example.run", "-format", "json"}, args...)
		code, want, stderr := runCLI(t, "", cli...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", cli, code, stderr)
		}
		req := map[string]any{"qrels": string(qrels), "run": string(run)}
		for i := 0; i < len(args); i++ {
			switch args[i] {
			case "-m":
				i++
				req["measures"] = strings.Split(args[i], ",")
			case "-q":
				req["per_query"] = true
			case "-c":
				req["complete"] = true
			case "-convention":
				i++
				req["convention"] = args[i]
			case "-l":
				i++
				req["level"] = 2
			}
		}
		b, _ := json.Marshal(req)
		resp, err := http.Post(ts.URL+"/api/metrics", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(got) != want {
			t.Errorf("%v: /api/metrics (%d)\n%s\ndiffers from the CLI\n%s", args, resp.StatusCode, got, want)
		}
	}
}

func TestServeFlags(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "extra"},
		{"serve", "-max-body", "0"},
		{"serve", "-encoders", "0"},
		{"serve", "-engine", "gpu"},
		{"site"},
		{"site", "-out", t.TempDir(), "-model", "../x"},
	} {
		if code, _, _ := runCLI(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", args, code)
		}
	}
}

// TestSite writes the Worker's bundle (models and demo data, no app, no
// weights) and the full site when the app is built.
func TestSite(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes the demo corpus (seconds to tens of seconds); skipped with -short")
	}
	sharedtest.ModelDir(t, "minilm")
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "", "site", "-out", out, "-app=false", "-weights=false", "-model", "minilm", "-cache", t.TempDir())
	if code != 0 {
		t.Fatalf("site: exit %d: %s", code, stderr)
	}
	// The settings of minilm that a load reads, the demo's vectors and
	// their ids, and the index.
	src, err := modelfiles.ModelFiles(modelfiles.OSDir(sharedtest.ModelDir(t, "minilm")))
	if err != nil {
		t.Fatal(err)
	}
	var settings []string
	for _, f := range modelfiles.ToLoad(src) {
		if !strings.HasSuffix(f, ".safetensors") && f != modelfiles.ONNX {
			settings = append(settings, f)
		}
	}
	if want := fmt.Sprintf("wrote %d files", len(settings)+5); !strings.Contains(stdout, want) {
		t.Errorf("site printed %q, want %q", stdout, want)
	}
	for _, f := range []string{"models/minilm/config.json", "models/minilm/tokenizer.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// The index lists what was written, as "dreval serve" lists what it
	// serves.
	var x modelfiles.Index
	if b, err := os.ReadFile(filepath.Join(out, "models", modelfiles.IndexFile)); err != nil {
		t.Error(err)
	} else if err := json.Unmarshal(b, &x); err != nil {
		t.Error(err)
	}
	if m := x.Model("minilm"); len(x.Models) != 1 || m == nil || !slices.Equal(m.Paths(), settings) {
		t.Errorf("models/index.json lists %+v", x)
	} else {
		// The SHA-256 is listed for weights only (none are written
		// here: -weights=false; the e2e tests' sites have them).
		for _, f := range m.Files {
			want := ""
			if modelfiles.IsWeights(f.Path) {
				var err error
				if want, err = modelfiles.FileSHA256(os.DirFS(filepath.Join(out, "models", "minilm")), f.Path); err != nil {
					t.Fatal(err)
				}
			}
			if f.SHA256 != want {
				t.Errorf("models/index.json lists %s with SHA-256 %q, want %q", f.Path, f.SHA256, want)
			}
		}
	}
	// And the demo vectors written, with their sizes (the page asks for
	// a .npy with its .json where the index lists it).
	for _, f := range modelfiles.DemoFiles("minilm") {
		st, err := os.Stat(filepath.Join(out, modelfiles.DemoDir, f))
		if err != nil {
			t.Error(err)
			continue
		}
		if !slices.Contains(x.Demo, modelfiles.File{Path: f, Size: st.Size()}) {
			t.Errorf("models/index.json's demo vectors %+v lack %s (%d bytes)", x.Demo, f, st.Size())
		}
	}
	if len(x.Demo) != 4 {
		t.Errorf("models/index.json lists %d demo files, want minilm's 4: %+v", len(x.Demo), x.Demo)
	}
	if _, err := os.Stat(filepath.Join(out, "models/minilm/model.fp16.safetensors")); err == nil {
		t.Error("-weights=false wrote the weights")
	}
	m, err := retrieval.ReadNPYFile(filepath.Join(out, "data/demo/minilm.npy"))
	if err != nil {
		t.Fatal(err)
	}
	coll, err := dataset.Load("demo", "test")
	if err != nil {
		t.Fatal(err)
	}
	var meta experiment.CorpusVectorsMeta
	b, err := os.ReadFile(filepath.Join(out, "data/demo/minilm.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if m.Rows != len(coll.Corpus) || m.Dim != 384 || meta.Rows != m.Rows || meta.Dim != m.Dim || len(meta.DocIDs) != m.Rows {
		t.Fatalf("demo data: %d x %d, meta %d x %d with %d ids, corpus %d", m.Rows, m.Dim, meta.Rows, meta.Dim, len(meta.DocIDs), len(coll.Corpus))
	}
	for i, d := range coll.Corpus {
		if meta.DocIDs[i] != d.ID {
			t.Fatalf("row %d is %q, want %q", i, meta.DocIDs[i], d.ID)
		}
	}
	// The queries' clean vectors: the ones this model's query tower gives,
	// made from the ids its tokenizer gives each query.
	qm, err := retrieval.ReadNPYFile(filepath.Join(out, "data/demo/minilm.queries.npy"))
	if err != nil {
		t.Fatal(err)
	}
	var qmeta experiment.QueryVectorsMeta
	if b, err := os.ReadFile(filepath.Join(out, "data/demo/minilm.queries.json")); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(b, &qmeta); err != nil {
		t.Fatal(err)
	}
	model, err := newServeModels(sharedtest.ModelsDir(), experiment.EngineAuto, evalDefaultOrtLib(), "").open("minilm")
	if err != nil {
		t.Fatal(err)
	}
	qv, why, err := experiment.CheckQueryVectors(model, coll.Queries, qmeta, qm, "minilm.queries.npy")
	if err != nil || why != "" || qv.Len() == 0 || qm.Rows != len(coll.Queries) {
		t.Fatalf("the site's query vectors (%d rows) for %d queries: %v %s", qm.Rows, len(coll.Queries), err, why)
	}
	vecs, err := model.Query.Embedder.EmbedIDs(qmeta.TokenIDs[:3])
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		got, _ := qv.Lookup(qmeta.TokenIDs[i])
		var dot float64
		for j := range v {
			dot += float64(v[j]) * float64(got[j])
		}
		if dot < 0.99999 {
			t.Errorf("query %s: the site's vector is at cosine %.6f from the model's", qmeta.QueryIDs[i], dot)
		}
	}
	// Each row is a unit vector (the model normalises).
	for i := 0; i < m.Rows; i++ {
		var ss float64
		for _, x := range m.Row(i) {
			ss += float64(x) * float64(x)
		}
		if ss < 0.999 || ss > 1.001 {
			t.Fatalf("row %d has squared norm %v", i, ss)
		}
	}

	full := t.TempDir()
	code, _, stderr = runCLI(t, "", "site", "-out", full, "-model", "", "-cache", "")
	if !webapp.Built() {
		if code == 0 || !strings.Contains(stderr, "run make wasm && make build") {
			t.Errorf("site without the app built: exit %d, %q", code, stderr)
		}
		return
	}
	if code != 0 {
		t.Fatalf("site: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"index.html", "app.wasm.gz", "wasm_exec.js"} {
		if _, err := os.Stat(filepath.Join(full, f)); err != nil {
			t.Error(err)
		}
	}
	// The page loads the app as app.wasm.gz on any host: no 10 MB
	// app.wasm beside it that it never loads.
	if _, err := os.Stat(filepath.Join(full, "app.wasm")); err == nil {
		t.Error("the site has app.wasm, which the page never loads (it fetches app.wasm.gz)")
	}
}

// TestServeDemoCache: the demo embeddings "dreval serve" hands out come
// through the experiment's corpus cache with its checks: a second server
// reads what the first stored, and an entry whose tokenizer fingerprint
// is not the model's is refused (it was re-encoded silently before).
func TestServeDemoCache(t *testing.T) {
	models := filepath.Dir(sharedtest.ModelDir(t, "static"))
	cache := t.TempDir()
	var notes []string
	first := newServeModels(models, "go", "", cache)
	first.note = func(s string) { notes = append(notes, s) }
	want, err := first.demo(context.Background(), "static")
	if err != nil {
		t.Fatal(err)
	}
	second := newServeModels(models, "go", "", cache)
	second.note = func(s string) { notes = append(notes, s) }
	got, err := second.demo(context.Background(), "static")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.NPY, want.NPY) || !bytes.Equal(got.Meta, want.Meta) || !bytes.Equal(got.QueryNPY, want.QueryNPY) || !bytes.Equal(got.QueryMeta, want.QueryMeta) || len(got.QueryNPY) == 0 {
		t.Error("the demo data read from the cache differ from the encoded ones")
	}
	read := false
	for _, n := range notes {
		read = read || strings.HasPrefix(n, "demo embeddings of static read from "+cache)
	}
	if !read {
		t.Errorf("the second server did not read the cache: %q", notes)
	}
	metas, err := filepath.Glob(filepath.Join(cache, "*.json"))
	if err != nil || len(metas) != 1 {
		t.Fatalf("cache entries %v, %v", metas, err)
	}
	// A well-formed entry, checksums and all, made with another
	// tokenizer.
	dc := experiment.DirCache{Dir: cache}
	key := strings.TrimSuffix(filepath.Base(metas[0]), ".json")
	mat, meta, _, ok, err := dc.Get(key)
	if err != nil || !ok {
		t.Fatalf("reading the entry back: %v %v", ok, err)
	}
	meta.TokenizerFingerprint = strings.Repeat("0", 64)
	if err := dc.Put(key, mat, meta); err != nil {
		t.Fatal(err)
	}
	_, err = newServeModels(models, "go", "", cache).demo(context.Background(), "static")
	if err == nil || !strings.Contains(err.Error(), "tokenizer fingerprint mismatch") {
		t.Errorf("a cache entry of another tokenizer: %v, want a fingerprint mismatch", err)
	}
}

// TestSiteGraph: "dreval site" writes a model's model.onnx as ONNX
// Runtime optimizes it offline, marked so in the index (the page opens it
// with its own optimizations off); without ONNX Runtime it copies the
// graph as it is, unmarked, and says why.
func TestSiteGraph(t *testing.T) {
	src := filepath.Join(sharedtest.ModelDir(t, "minilm"), modelfiles.ONNX)
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatalf("%v (make setup exports it)", err)
	}
	// Without ONNX Runtime: copied.
	var notes []string
	note := func(s string) { notes = append(notes, s) }
	var st siteStats
	dst := filepath.Join(t.TempDir(), "models", "minilm", modelfiles.ONNX)
	opt, err := writeGraph(src, dst, "/nonexistent/libonnxruntime.so.1", note, &st)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(dst); err != nil || opt || !bytes.Equal(b, orig) || st.files != 1 || st.bytes != int64(len(orig)) {
		t.Errorf("without ONNX Runtime: optimized %v, %d bytes (%v), stats %+v; want the graph copied", opt, len(b), err, st)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], src+" copied as it is, not optimized for onnxruntime-web: ") {
		t.Errorf("notes %q: want one saying why the graph was copied", notes)
	}

	lib := ortLibOrSkip(t)
	out := t.TempDir()
	code, _, stderr := runCLI(t, "", "site", "-out", out, "-app=false", "-model", "minilm", "-cache", t.TempDir(), "-ort-lib", lib)
	if code != 0 {
		t.Fatalf("site: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "models", "minilm", modelfiles.ONNX))
	if err != nil {
		t.Fatal(err)
	}
	g, err := onnx.Decode(b)
	if err != nil {
		t.Fatalf("the site's graph: %v", err)
	}
	if _, ok := g.Opsets["com.microsoft"]; !ok || bytes.Equal(b, orig) {
		t.Errorf("the site's model.onnx imports %v (%d bytes, the original %d): not ONNX Runtime's optimized graph", g.Opsets, len(b), len(orig))
	}
	var x modelfiles.Index
	if b, err := os.ReadFile(filepath.Join(out, "models", modelfiles.IndexFile)); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	m := x.Model("minilm")
	if m == nil || m.Optimized(modelfiles.ONNX) != ort.OptimizedLevel || m.Size(modelfiles.ONNX) != int64(len(b)) {
		t.Errorf("models/index.json lists minilm as %+v: want model.onnx of %d bytes marked optimized %q", m, len(b), ort.OptimizedLevel)
	}
	if strings.Contains(stderr, "copied as it is") {
		t.Errorf("site: %s", stderr)
	}
}
