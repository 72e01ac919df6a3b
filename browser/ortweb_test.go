package browser

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/dreval/dreval/encoder/ortweb"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/internal/retrievertest"
	"github.com/dreval/dreval/modelfiles"
)

// fakeORT is onnxruntime-web as a test gives it: graphs are strings
// naming where they came from, sessions answer ones.
type fakeORT struct {
	cfg     WorkerConfig
	mu      sync.Mutex
	fetched []string
	derived map[string]Graph
	opened  []string
}

func (o *fakeORT) Config() WorkerConfig { return o.cfg }

func (o *fakeORT) Load(ep string) (Runtime, string, error) { return fakeRuntime{o, ep}, "", nil }

func (o *fakeORT) FetchGraph(url string, size int64, label string) (Graph, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.fetched = append(o.fetched, url)
	return "served " + url, nil
}

func (o *fakeORT) Derive(key, label string) (Graph, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if g, ok := o.derived[key]; ok {
		return g, nil
	}
	return nil, nil
}

func (o *fakeORT) Derived(key string, g Graph, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.derived == nil {
		o.derived = map[string]Graph{}
	}
	o.derived[key] = g
}

func (o *fakeORT) Graph(g *ortweb.Graph) Graph { return fmt.Sprintf("built, %d bytes", g.Size) }

type fakeRuntime struct {
	o  *fakeORT
	ep string
}

func (r fakeRuntime) EP() string   { return r.ep }
func (r fakeRuntime) Threads() int { return 1 }

func (r fakeRuntime) Open(g Graph, optimized bool) (ortweb.Forwarder, error) {
	r.o.mu.Lock()
	defer r.o.mu.Unlock()
	r.o.opened = append(r.o.opened, fmt.Sprintf("%v, optimized %v", g, optimized))
	return ones{}, nil
}

// ones is a session whose token vectors are all ones.
type ones struct{}

func (ones) Forward(seqs [][]int32, pad ortweb.Padding, dim int) ([][]float32, error) {
	out := make([][]float32, len(seqs))
	for i, s := range seqs {
		out[i] = make([]float32, len(s)*dim)
		for j := range out[i] {
			out[i][j] = 1
		}
	}
	return out, nil
}

func (ones) Close() error { return nil }

// bertSite returns a site serving a tiny BERT as minilm (a
// sentence-transformers folder, as MiniLM's, whose settings read no
// weights), with the ONNX
// graph exported from its weights beside them (optimized, the index
// says) when graph is set.
func bertSite(t *testing.T, graph bool) fstest.MapFS {
	dir := t.TempDir()
	retrievertest.Write(t, "e5", dir, 3)
	fsys := fstest.MapFS{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		fsys["models/minilm/"+filepath.ToSlash(rel)] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if graph {
		s, err := transformer.ReadSettings(modelfiles.OSDir(dir), transformer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := ortweb.BuildGraph(s, "test")
		if err != nil {
			t.Fatal(err)
		}
		fsys["models/minilm/"+modelfiles.ONNX] = &fstest.MapFile{Data: g.Bytes()}
	}
	models, _ := fs.Sub(fsys, "models")
	x, err := modelfiles.IndexFS(models)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.SetDigests(models, nil); err != nil {
		t.Fatal(err)
	}
	if graph && !x.Model("minilm").SetOptimized(modelfiles.ONNX, "extended") {
		t.Fatal("no model.onnx in the index")
	}
	b, _ := json.Marshal(x)
	fsys["models/index.json"] = &fstest.MapFile{Data: b}
	return fsys
}

// TestORTWeb opens a transformer on onnxruntime-web (a fake): the graph
// the site serves, fetched ahead by a warm-up and opened as optimized,
// the weights beside it never fetched; or the graph exported from the
// weights, built by one worker and handed to the others; or, where the
// site serves no onnxruntime-web, the pure-Go engine, saying why.
func TestORTWeb(t *testing.T) {
	served := &fakeORT{}
	served.cfg.ORT.Version = "1.30.0"
	served.cfg.ORT.Files = map[string]int64{"ort-wasm-simd-threaded.wasm": 1}
	s := &site{fsys: bertSite(t, true)}
	a := New(Ports{Files: s, ORT: served})
	answer[*WarmReply](t, a, &WarmRequest{Model: "minilm", Engine: "ort-web"})
	b := answer[*BenchReply](t, a, &BenchRequest{Model: "minilm", Engine: "ort-web", N: 4, Tokens: 8})
	if b.Engine != "ort-web wasm, 1 worker, 1 thread" || b.Sentences != 4 {
		t.Errorf("bench %+v", b)
	}
	if want := []string{"served models/minilm/model.onnx, optimized true"}; strings.Join(served.opened, "|") != want[0] || len(served.fetched) != 1 {
		t.Errorf("opened %q (fetched %q), want %q fetched once", served.opened, served.fetched, want)
	}
	if s.wasAsked("models/minilm/model.safetensors") {
		t.Error("the weights were fetched, though onnxruntime-web runs the served graph")
	}
	note := a.engineNote(a.models[modelKey("minilm", "ort-web")], "ort-web", "", "")
	if !strings.Contains(note, "onnxruntime-web 1.30.0 on WebAssembly (SIMD, 1 thread(s) per worker; more need cross-origin isolation") {
		t.Errorf("note %q", note)
	}

	built := &fakeORT{cfg: served.cfg}
	fsys := bertSite(t, false)
	first, second := New(Ports{Files: &site{fsys: fsys}, ORT: built}), New(Ports{Files: &site{fsys: fsys}, ORT: built})
	for _, a := range []*App{first, second} {
		answer[*BenchReply](t, a, &BenchRequest{Model: "minilm", Engine: "ort-web", N: 2, Tokens: 8})
	}
	if len(built.derived) != 1 || len(built.opened) != 2 || built.opened[0] != built.opened[1] || !strings.HasPrefix(built.opened[0], "built, ") {
		t.Errorf("derived %v, opened %q: want one graph built, opened by both workers", built.derived, built.opened)
	}

	none := &fakeORT{}
	none.cfg.ORT.Why = "this site does not serve onnxruntime-web (ort/index.json: 404 Not Found)"
	a = New(Ports{Files: &site{fsys: fsys}, ORT: none})
	if b := answer[*BenchReply](t, a, &BenchRequest{Model: "minilm", Engine: "ort-web", N: 2, Tokens: 8}); b.Engine != "go, 1 worker" {
		t.Errorf("without onnxruntime-web: engine %q", b.Engine)
	}
	note = a.engineNote(a.models[modelKey("minilm", "ort-web")], "ort-web", "", "")
	if !strings.Contains(note, "onnxruntime-web is not used: engine ort: this site does not serve onnxruntime-web (ort/index.json: 404 Not Found).") {
		t.Errorf("note %q", note)
	}
	if why := a.ortServed(engineWebGPU); why == "" {
		t.Error("WebGPU served by a site without onnxruntime-web")
	}
	if why := New(Ports{ORT: served}).ortServed(engineWebGPU); why != "this site's onnxruntime-web lacks ort-wasm-simd-threaded.asyncify.wasm" {
		t.Errorf("WebGPU without its build: %q", why)
	}
}
