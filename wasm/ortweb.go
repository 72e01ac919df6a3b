//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"syscall/js"

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

// workerConfig is what the page told this worker (worker.js's
// drevalConfig): the threads each onnxruntime-web session may use,
// whether the page is cross-origin isolated, and the site's
// onnxruntime-web (ort/index.json; Version empty when the site serves
// none, Why then says why).
type workerConfig struct {
	Threads  int  `json:"threads"`
	Isolated bool `json:"isolated"`
	ORT      struct {
		Version string           `json:"version"`
		Files   map[string]int64 `json:"files"`
		Why     string           `json:"why"`
	} `json:"ort"`
}

func config() workerConfig {
	var c workerConfig
	if v := js.Global().Get("drevalConfig"); v.Type() == js.TypeObject {
		decode(v, &c)
	}
	c.Threads = max(c.Threads, 1)
	return c
}

// ortServed returns why this site cannot run onnxruntime-web's build for
// ep, or "" when it can.
func ortServed(ep string) string {
	c := config()
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
	rt   *ortweb.Runtime
	note string
	err  error
}

// ortRuntimes holds this worker's onnxruntime-web, by engine setting,
// loaded once.
var ortRuntimes struct {
	sync.Mutex
	m map[string]*ortLoaded
}

// ortRuntime loads onnxruntime-web into this worker for engine setting
// e (engineORTWeb or engineWebGPU) through worker.js's drevalORT, once.
func ortRuntime(e string) *ortLoaded {
	ortRuntimes.Lock()
	defer ortRuntimes.Unlock()
	if ortRuntimes.m == nil {
		ortRuntimes.m = map[string]*ortLoaded{}
	}
	if l := ortRuntimes.m[e]; l != nil {
		return l
	}
	l := &ortLoaded{}
	ortRuntimes.m[e] = l
	want := "wasm"
	if e == engineWebGPU {
		want = "webgpu"
	}
	load := js.Global().Get("drevalORT")
	if load.Type() != js.TypeFunction {
		l.err = errors.New("onnxruntime-web cannot be loaded here (no drevalORT: not the app's worker)")
		return l
	}
	v, err := await(load.Invoke(want))
	if err != nil {
		l.err = fmt.Errorf("loading onnxruntime-web: %v", err)
		return l
	}
	if n := v.Get("note"); n.Type() == js.TypeString {
		l.note = n.String()
	}
	l.rt, l.err = ortweb.NewRuntime(v.Get("ort"), v.Get("ep").String())
	return l
}

// ortExternal is the engine the models of engine setting e (engineAuto,
// engineORTWeb or engineWebGPU) open with: onnxruntime-web, named "ort"
// (the engine family of ONNX Runtime's native build, whose graph and
// operator semantics it shares). The session is opened on first use.
func (a *app) ortExternal(e string) *engine.External {
	ep := engineORTWeb
	if e == engineWebGPU {
		ep = engineWebGPU
	}
	return &engine.External{Name: engine.ORT, New: func(s *transformer.Settings) (encoder.Embedder, engine.Info, func() error, error) {
		if why := ortServed(ep); why != "" {
			return nil, engine.Info{}, nil, errors.New(why)
		}
		c := config()
		emb := ortweb.NewEmbedder(s.Config, s.Head, func() (ortweb.Forwarder, error) {
			l := ortRuntime(ep)
			if l.err != nil {
				return nil, l.err
			}
			graph, optimized, err := a.graph(s)
			if err != nil {
				return nil, err
			}
			sess, err := l.rt.Open(graph, optimized)
			if err != nil {
				return nil, err
			}
			return sess, nil
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
// transformer, as a JavaScript Uint8Array, and whether ONNX Runtime
// optimized it offline: the model.onnx the site serves beside a served
// model's weights (servedGraph), else builtGraph's.
func (a *app) graph(s *transformer.Settings) (g js.Value, optimized bool, err error) {
	if g, optimized, ok, err := a.servedGraph(s.Transformer.Name()); ok || err != nil {
		return g, optimized, err
	}
	g, err = a.builtGraph(s)
	return g, false, err
}

// builtGraph returns the graph of the settings' s transformer, which the
// site does not serve: the folder's model.onnx,
// or the graph exported from its weights, which one worker builds and the
// page hands to the others (and keeps in Cache Storage, keyed by the
// weights' SHA-256 and the app's build).
func (a *app) builtGraph(s *transformer.Settings) (js.Value, error) {
	t := s.Transformer
	if ok, _ := t.Exists(modelfiles.ONNX); ok {
		g, err := ortweb.BuildGraph(s, "")
		if err != nil {
			return js.Value{}, err
		}
		return g.JS(), nil
	}
	sum, err := t.SHA256(s.Weights)
	if err != nil {
		return js.Value{}, err
	}
	key := "graph-" + sum[:32]
	label := "the ONNX graph of " + strings.TrimPrefix(path.Join(t.Name()), modelsDir+"/")
	derive := js.Global().Get("drevalDerive")
	if derive.Type() == js.TypeFunction {
		ans, err := await(derive.Invoke(key, label))
		if err != nil {
			return js.Value{}, err
		}
		if d := ans.Get("data"); d.Truthy() {
			return js.Global().Get("Uint8Array").New(d), nil
		}
	}
	g, err := ortweb.BuildGraph(s, "dreval "+buildVersion()+" (browser)")
	if err != nil {
		if derive.Type() == js.TypeFunction {
			js.Global().Call("drevalDerived", key, js.Null(), err.Error())
		}
		return js.Value{}, err
	}
	u8 := g.JS()
	g = nil
	if derive.Type() == js.TypeFunction {
		js.Global().Call("drevalDerived", key, u8)
	}
	return u8, nil
}

// servedGraph returns the model.onnx the site serves beside the weights
// of the served model in dir (the worker's models/NAME; "dreval site"
// and "dreval serve" serve it where the model folder has it: the graph
// the native ort engine runs), fetched once for every worker straight
// into JavaScript memory (Cache Storage keeps it), so that no worker
// builds it from the weights; ok is false where the site serves none.
func (a *app) servedGraph(dir string) (g js.Value, optimized, ok bool, err error) {
	url, size, name, optimized := a.servedGraphURL(dir)
	f := js.Global().Get("drevalFetch")
	if url == "" || f.Type() != js.TypeFunction {
		return js.Value{}, false, false, nil
	}
	if p := takeGraphFetch(url); p != nil {
		<-p.done
		return p.g, optimized, true, p.err
	}
	g, ok, err = fetchGraph(f, url, size, name)
	return g, optimized, ok, err
}

// fetchGraph fetches the served model.onnx at url (size bytes, of model
// name) through the page (drevalFetch f).
func fetchGraph(f js.Value, url string, size int64, name string) (js.Value, bool, error) {
	ab, err := await(f.Invoke(url, size, name+"'s "+modelfiles.ONNX))
	if err != nil {
		return js.Value{}, true, fmt.Errorf("fetching %s: %v", url, err)
	}
	u8 := js.Global().Get("Uint8Array").New(ab)
	if n := int64(u8.Get("length").Int()); size >= 0 && n != size {
		return js.Value{}, true, fmt.Errorf("%s has %d bytes, but the index lists %d: the download was cut short", url, n, size)
	}
	return u8, true, nil
}

// graphFetches holds the served model.onnx fetches prefetchORT started
// ahead, by URL, each taken once by servedGraph; started lists the URLs
// ever prefetched, so that a later run does not fetch a graph again.
var graphFetches struct {
	sync.Mutex
	m       map[string]*graphFetch
	started map[string]bool
}

// graphFetch is a fetch of a served graph: done is closed when g or err
// is set.
type graphFetch struct {
	done chan struct{}
	g    js.Value
	err  error
}

func takeGraphFetch(url string) *graphFetch {
	graphFetches.Lock()
	defer graphFetches.Unlock()
	p := graphFetches.m[url]
	delete(graphFetches.m, url)
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
func (a *app) prefetchORT(name, e string) {
	if e == engineGo || name == "" || name == "bm25" || isUpload(name) {
		return
	}
	ep := engineORTWeb
	if e == engineWebGPU {
		ep = engineWebGPU
	}
	f := js.Global().Get("drevalFetch")
	if ortServed(ep) != "" || f.Type() != js.TypeFunction {
		return
	}
	url, size, model, _ := a.servedGraphURL(path.Join(modelsDir, name))
	if url == "" {
		return
	}
	graphFetches.Lock()
	if graphFetches.started[url] {
		graphFetches.Unlock()
		return
	}
	if graphFetches.m == nil {
		graphFetches.m, graphFetches.started = map[string]*graphFetch{}, map[string]bool{}
	}
	p := &graphFetch{done: make(chan struct{})}
	graphFetches.m[url], graphFetches.started[url] = p, true
	graphFetches.Unlock()
	go ortRuntime(ep)
	go func() {
		defer close(p.done)
		p.g, _, p.err = fetchGraph(f, url, size, model)
	}()
}

// servedGraphURL returns the URL and size of the model.onnx the site
// serves for the served model in dir, the model's name and whether the
// site's index says ONNX Runtime optimized the graph offline
// (modelfiles.File.Optimized); url is "" where it serves none.
func (a *app) servedGraphURL(dir string) (url string, size int64, name string, optimized bool) {
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
func engineLabel(m *experiment.Model, e string, workers int, server string) string {
	if server != "" {
		return "the server's " + engineWords(server)
	}
	ws := fmt.Sprintf("%d workers", workers)
	if workers == 1 {
		ws = "1 worker"
	}
	switch m.Engine {
	case engine.ORT:
		l := ortRuntime(map[bool]string{true: engineWebGPU, false: engineORTWeb}[e == engineWebGPU])
		ep, threads := "wasm", config().Threads
		if l.rt != nil {
			ep, threads = l.rt.EP, l.rt.Threads()
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
func engineNote(m *experiment.Model, e string, server, why string) string {
	if server != "" {
		return "Encoding on the server (" + engineWords(server) + "): \"dreval serve\" serves " + m.Name + " and encodes it for this page."
	}
	var b strings.Builder
	switch m.Engine {
	case engine.ORT:
		l := ortRuntime(map[bool]string{true: engineWebGPU, false: engineORTWeb}[e == engineWebGPU])
		c := config()
		b.WriteString("Encoding in this browser with onnxruntime-web " + c.ORT.Version)
		if l.rt != nil && l.rt.EP == "webgpu" {
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
