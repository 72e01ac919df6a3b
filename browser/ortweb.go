package browser

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/encoder/ortweb"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/modelfiles"
)

// The page's Engine setting: which engine encodes a transformer model.
const (
	// engineAuto: "dreval serve"'s encoder when it serves the model,
	// else onnxruntime-web (WebAssembly) when the site serves it, else
	// the pure-Go engine.
	engineAuto = "auto"
	// engineORTWeb and engineWebGPU: onnxruntime-web in this browser, on
	// WebAssembly or WebGPU (falling back to WebAssembly, with a note,
	// where WebGPU is not available).
	engineORTWeb = "ort-web"
	engineWebGPU = "webgpu"
	// engineGo: the pure-Go engine in this browser, the reference the
	// command line's "-engine go" computes bit for bit.
	engineGo = "go"
)

// checkEngine returns the engine setting e, "" meaning auto.
func checkEngine(e string) (string, error) {
	switch e {
	case "", engineAuto:
		return engineAuto, nil
	case engineORTWeb, engineWebGPU, engineGo:
		return e, nil
	}
	return "", fmt.Errorf("engine %q: want auto, ort-web, webgpu or go", e)
}

// config returns what the page told this worker (WorkerConfig), at
// least one thread.
func (a *App) config() WorkerConfig {
	var c WorkerConfig
	if a.ports.ORT != nil {
		c = a.ports.ORT.Config()
	}
	c.Threads = max(c.Threads, 1)
	return c
}

// ortServed returns why this site cannot run onnxruntime-web's build for
// ep, or "" when it can.
func (a *App) ortServed(ep string) string {
	c := a.config()
	if c.ORT.Version == "" {
		if c.ORT.Why != "" {
			return c.ORT.Why
		}
		return "this site does not serve onnxruntime-web (ort/index.json)"
	}
	need := "ort-wasm-simd-threaded.wasm"
	if ep == engineWebGPU {
		need = "ort-wasm-simd-threaded.asyncify.wasm"
	}
	if _, ok := c.ORT.Files[need]; !ok {
		return "this site's onnxruntime-web lacks " + need
	}
	return ""
}

// ortLoaded is onnxruntime-web as loaded into this worker for one
// engine setting: the runtime, the execution provider it runs on, and
// why it is not the one asked for.
type ortLoaded struct {
	rt   Runtime
	note string
	err  error
}

// ortRuntimes holds this worker's onnxruntime-web, by engine setting,
// loaded once.
type ortRuntimes struct {
	sync.Mutex
	m map[string]*ortLoaded
}

// ortRuntime loads onnxruntime-web into this worker for engine setting
// e (engineORTWeb or engineWebGPU), once.
func (a *App) ortRuntime(e string) *ortLoaded {
	a.ort.Lock()
	defer a.ort.Unlock()
	if a.ort.m == nil {
		a.ort.m = map[string]*ortLoaded{}
	}
	if l := a.ort.m[e]; l != nil {
		return l
	}
	l := &ortLoaded{}
	a.ort.m[e] = l
	want := "wasm"
	if e == engineWebGPU {
		want = "webgpu"
	}
	if a.ports.ORT == nil {
		l.err = errors.New("onnxruntime-web cannot be loaded here (not the app's worker)")
		return l
	}
	l.rt, l.note, l.err = a.ports.ORT.Load(want)
	if l.err != nil {
		l.rt, l.err = nil, fmt.Errorf("loading onnxruntime-web: %v", l.err)
	}
	return l
}

// ortExternal is the engine the models of engine setting e (engineAuto,
// engineORTWeb or engineWebGPU) open with: onnxruntime-web, named "ort"
// (the engine family of ONNX Runtime's native build, whose graph and
// operator semantics it shares). The session is opened on first use.
func (a *App) ortExternal(e string) *engine.External {
	ep := engineORTWeb
	if e == engineWebGPU {
		ep = engineWebGPU
	}
	return &engine.External{Name: engine.ORT, New: func(s *transformer.Settings) (encoder.Embedder, engine.Info, func() error, error) {
		if why := a.ortServed(ep); why != "" {
			return nil, engine.Info{}, nil, errors.New(why)
		}
		c := a.config()
		emb := ortweb.NewEmbedder(s.Config, s.Head, func() (ortweb.Forwarder, error) {
			l := a.ortRuntime(ep)
			if l.err != nil {
				return nil, l.err
			}
			graph, optimized, err := a.graph(s)
			if err != nil {
				return nil, err
			}
			return l.rt.Open(graph, optimized)
		})
		source := "its " + modelfiles.ONNX
		if url, _, _, optimized := a.servedGraphURL(s.Transformer.Name()); url != "" {
			source = "the site's " + url
			if optimized {
				source += ", optimized offline by ONNX Runtime"
			}
		} else if ok, _ := s.Transformer.Exists(modelfiles.ONNX); !ok {
			source = "the graph exported from " + s.Weights
		}
		info := engine.Info{Engine: engine.ORT, Threads: c.Threads,
			ORTVersion: c.ORT.Version + " (onnxruntime-web, " + map[string]string{engineORTWeb: "WebAssembly", engineWebGPU: "WebGPU"}[ep] + ")",
			ONNXPath:   source}
		return emb, info, emb.Close, nil
	}}
}

// graph returns the ONNX graph onnxruntime-web runs for the settings' s
// transformer, in the runtime's memory, and whether ONNX Runtime
// optimized it offline: the model.onnx the site serves beside a served
// model's weights (servedGraph), else builtGraph's.
func (a *App) graph(s *transformer.Settings) (g Graph, optimized bool, err error) {
	if g, optimized, ok, err := a.servedGraph(s.Transformer.Name()); ok || err != nil {
		return g, optimized, err
	}
	g, err = a.builtGraph(s)
	return g, false, err
}

// builtGraph returns the graph of the settings' s transformer, which the
// site does not serve: the folder's model.onnx, or the graph exported
// from its weights, which one worker builds and the page hands to the
// others (and keeps in Cache Storage, keyed by the weights' SHA-256 and
// the app's build).
func (a *App) builtGraph(s *transformer.Settings) (Graph, error) {
	t := s.Transformer
	if ok, _ := t.Exists(modelfiles.ONNX); ok {
		g, err := ortweb.BuildGraph(s, "")
		if err != nil {
			return nil, err
		}
		return a.ports.ORT.Graph(g), nil
	}
	sum, err := t.SHA256(s.Weights)
	if err != nil {
		return nil, err
	}
	key := "graph-" + sum[:32]
	label := "the ONNX graph of " + strings.TrimPrefix(path.Join(t.Name()), modelsDir+"/")
	if g, err := a.ports.ORT.Derive(key, label); g != nil || err != nil {
		return g, err
	}
	built, err := ortweb.BuildGraph(s, "dreval "+buildVersion()+" (browser)")
	if err != nil {
		a.ports.ORT.Derived(key, nil, err)
		return nil, err
	}
	g := a.ports.ORT.Graph(built)
	a.ports.ORT.Derived(key, g, nil)
	return g, nil
}

// servedGraph returns the model.onnx the site serves beside the weights
// of the served model in dir (the worker's models/NAME; "dreval site"
// and "dreval serve" serve it where the model folder has it: the graph
// the native ort engine runs), fetched once for every worker straight
// into the runtime's memory (Cache Storage keeps it), so that no worker
// builds it from the weights; ok is false where the site serves none.
func (a *App) servedGraph(dir string) (g Graph, optimized, ok bool, err error) {
	url, size, name, optimized := a.servedGraphURL(dir)
	if url == "" || a.ports.ORT == nil {
		return nil, false, false, nil
	}
	if p := a.graphs.take(url); p != nil {
		<-p.done
		return p.g, optimized, true, p.err
	}
	g, err = a.fetchGraph(url, size, name)
	return g, optimized, true, err
}

// fetchGraph fetches the served model.onnx at url (size bytes, of model
// name) through the page.
func (a *App) fetchGraph(url string, size int64, name string) (Graph, error) {
	return a.ports.ORT.FetchGraph(url, size, name+"'s "+modelfiles.ONNX)
}

// graphFetches holds the served model.onnx fetches prefetchORT started
// ahead, by URL, each taken once by servedGraph; started lists the URLs
// ever prefetched, so that a later run does not fetch a graph again.
type graphFetches struct {
	sync.Mutex
	m       map[string]*graphFetch
	started map[string]bool
}

// graphFetch is a fetch of a served graph: done is closed when g or err
// is set.
type graphFetch struct {
	done chan struct{}
	g    Graph
	err  error
}

func (f *graphFetches) take(url string) *graphFetch {
	f.Lock()
	defer f.Unlock()
	p := f.m[url]
	delete(f.m, url)
	return p
}

// prefetchORT starts loading, in the background, what a session of
// model name on onnxruntime-web needs beside the model's own files:
// onnxruntime-web itself (ortRuntime) and the model.onnx the site serves
// (taken by servedGraph), so that both download while the Go side opens
// the model (its files, tokenizer and fingerprints) and the session can
// be created as soon as it is open. It does nothing for engine setting
// go, for a model the site serves no model.onnx of (uploads, the static
// model, BM25), where the site serves no onnxruntime-web, and for a graph
// it prefetched before.
func (a *App) prefetchORT(name, e string) {
	if e == engineGo || name == "" || name == "bm25" || isUpload(name) {
		return
	}
	ep := engineORTWeb
	if e == engineWebGPU {
		ep = engineWebGPU
	}
	if a.ortServed(ep) != "" || a.ports.ORT == nil {
		return
	}
	url, size, model, _ := a.servedGraphURL(path.Join(modelsDir, name))
	if url == "" {
		return
	}
	f := &a.graphs
	f.Lock()
	if f.started[url] {
		f.Unlock()
		return
	}
	if f.m == nil {
		f.m, f.started = map[string]*graphFetch{}, map[string]bool{}
	}
	p := &graphFetch{done: make(chan struct{})}
	f.m[url], f.started[url] = p, true
	f.Unlock()
	go a.ortRuntime(ep)
	go func() {
		defer close(p.done)
		p.g, p.err = a.fetchGraph(url, size, model)
	}()
}

// servedGraphURL returns the URL and size of the model.onnx the site
// serves for the served model in dir, the model's name and whether the
// site's index says ONNX Runtime optimized the graph offline
// (modelfiles.File.Optimized); url is "" where it serves none.
func (a *App) servedGraphURL(dir string) (url string, size int64, name string, optimized bool) {
	name, found := strings.CutPrefix(dir, modelsDir+"/")
	if !found || isUpload(name) || strings.Contains(name, "/") {
		return "", 0, "", false
	}
	x, err := a.index()
	if err != nil {
		return "", 0, "", false
	}
	m := x.Model(name)
	if m == nil || !m.Has(modelfiles.ONNX) {
		return "", 0, "", false
	}
	return modelfiles.URL(name, modelfiles.ONNX), m.Size(modelfiles.ONNX), name, m.Optimized(modelfiles.ONNX) != ""
}

// engineLabel says in a few words what computed a model's vectors in
// this run, for the page's "N texts encoded at R texts/s (ENGINE)":
// "ort-web wasm, 2 workers, 1 thread each", "go, 2 workers", "static,
// 2 workers", or the server's engine.
func (a *App) engineLabel(m *experiment.Model, e string, workers int, server string) string {
	if server != "" {
		return "the server's " + engineWords(server)
	}
	ws := fmt.Sprintf("%d workers", workers)
	if workers == 1 {
		ws = "1 worker"
	}
	switch m.Engine {
	case engine.ORT:
		l := a.ortRuntime(map[bool]string{true: engineWebGPU, false: engineORTWeb}[e == engineWebGPU])
		ep, threads := "wasm", a.config().Threads
		if l.rt != nil {
			ep, threads = l.rt.EP(), l.rt.Threads()
		}
		each := fmt.Sprintf("%d threads", threads)
		if threads == 1 {
			each = "1 thread"
		}
		if workers > 1 {
			each += " each"
		}
		if ep == "webgpu" {
			return "ort-web webgpu, " + ws
		}
		return "ort-web wasm, " + ws + ", " + each
	case engine.Go:
		return "go, " + ws
	}
	return m.Engine + ", " + ws
}

// engineWords names an engine of "dreval serve" for people.
func engineWords(e string) string {
	switch e {
	case engine.ORT:
		return "ONNX Runtime"
	case engine.Go:
		return "pure-Go engine"
	case engine.Static:
		return "static token table"
	}
	return "engine " + e
}

// engineNote says in a sentence where a model's vectors were computed
// and why there, for the page's note under the Engine setting.
func (a *App) engineNote(m *experiment.Model, e string, server, why string) string {
	if server != "" {
		return "Encoding on the server (" + engineWords(server) + "): \"dreval serve\" serves " + m.Name + " and encodes it for this page."
	}
	var b strings.Builder
	switch m.Engine {
	case engine.ORT:
		l := a.ortRuntime(map[bool]string{true: engineWebGPU, false: engineORTWeb}[e == engineWebGPU])
		c := a.config()
		b.WriteString("Encoding in this browser with onnxruntime-web " + c.ORT.Version)
		if l.rt != nil && l.rt.EP() == "webgpu" {
			b.WriteString(" on WebGPU.")
		} else {
			threads := c.Threads
			if l.rt != nil {
				threads = l.rt.Threads()
			}
			fmt.Fprintf(&b, " on WebAssembly (SIMD, %d thread(s) per worker", threads)
			if !c.Isolated {
				b.WriteString("; more need cross-origin isolation, which this host does not give: see docs/page.md")
			}
			b.WriteString(").")
		}
		if l.note != "" {
			b.WriteString(" " + l.note + ".")
		}
	case engine.Go:
		b.WriteString("Encoding in this browser with the pure-Go engine (the reference: the command line's -engine go computes the same bits).")
	default:
		b.WriteString("Encoding in this browser (" + m.Engine + ").")
	}
	for _, n := range m.Notes {
		if i := strings.Index(n, "ONNX Runtime not used: "); i >= 0 {
			b.WriteString(" onnxruntime-web is not used: " + strings.TrimPrefix(n[i:], "ONNX Runtime not used: ") + ".")
		}
	}
	if why != "" && e == engineAuto {
		b.WriteString(" Not on the server: " + why + ".")
	}
	return b.String()
}
