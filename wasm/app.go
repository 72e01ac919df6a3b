//go:build js && wasm

package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"github.com/dreval/dreval/browser"
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/encoder/ortweb"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/memfs"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/ui"
)

// app is one worker's state: its opened models, the corpus vectors it
// encoded, the last results.
type app struct {
	mu sync.Mutex
	// models holds the opened models by modelKey (name and engine);
	// opening those being opened (a run's and a helper's "prepare" open a
	// model once).
	models  map[string]*experiment.Model
	opening map[string]*opening
	// corpusFetched holds the models whose precomputed demo corpus
	// vectors a run fetched (fetchDemoCorpus).
	corpusFetched map[string]bool
	cache         *experiment.MemCache
	// session keeps what a run leaves for the next (experiment.Session):
	// a slider move reruns only what the new rate changes.
	session *experiment.Session
	// last is the last run's results, whose paired tests the background
	// fills in (tests.go); lastKey its settings (sweepKey), charts the
	// chart's points of every model run with each settings.
	last     *results.Results
	lastKey  string
	charts   browser.Charts
	bg       browser.Background
	peers    []*peer
	nextID   int
	base     *experiment.Registry
	registry *experiment.Registry
	// servers holds, per model and side, the server embedder probeServer
	// found (nil: encode here) and why not.
	servers map[string]serverChoice
	// files holds the models and uploads (see files.go); served is the
	// site's model index, fetched the models already in files.
	files   *memfs.FS
	served  served
	fetched map[string]bool
	// current is the run in progress (run, reproduce): its engine
	// setting and what its models encoded.
	current browser.RunState
	// corpora is what the split searches' corpora are to the helpers
	// (search.go): in the first worker the last corpus sent, in a helper
	// the corpora it holds.
	corpora searchCorpora
}

type serverChoice struct {
	emb *serverEmbedder
	why string
}

func newApp() *app {
	a := &app{models: map[string]*experiment.Model{}, opening: map[string]*opening{}, corpusFetched: map[string]bool{}, cache: experiment.NewMemCache(), base: experiment.DefaultRegistry(), servers: map[string]serverChoice{},
		files: newFiles(), fetched: map[string]bool{}}
	a.session = a.newSession()
	go a.background()
	a.registry = experiment.NewRegistry()
	for _, n := range a.base.Names() {
		a.registry.Register(n, a.open)
	}
	a.registry.RegisterDir(a.open)
	return a
}

// newSession returns an empty session whose dense searches are split
// between the workers (search.go).
func (a *app) newSession() *experiment.Session {
	s := experiment.NewSession()
	s.Search = a.search
	return s
}

// localEngine is the engine a setting e encodes with in this browser:
// engineGo, engineORTWeb or engineWebGPU (auto: onnxruntime-web on
// WebAssembly; it falls back to Go, with the reason in the model's notes,
// where the site does not serve onnxruntime-web).
func localEngine(e string) string {
	if e == engineAuto || e == "" {
		return engineORTWeb
	}
	return e
}

// modelOptions are the options the worker opens models with for engine
// setting e: the models in the worker's files, transformers on
// onnxruntime-web (falling back to the pure-Go engine) or on the pure-Go
// engine; static models and BM25 whatever e says.
func (a *app) modelOptions(e string) experiment.ModelOptions {
	o := experiment.ModelOptions{Engine: experiment.EngineGo, ModelsDir: modelsDir, Analyzer: experiment.AnalyzerWordPiece, Files: a.files}
	if l := localEngine(e); l != engineGo {
		o.Engine, o.External = experiment.EngineAuto, a.ortExternal(l)
	}
	return o
}

// modelKey is the key of a.models: a model opened for an engine (the
// static model and BM25 open alike for every engine).
func modelKey(name, e string) string {
	if name == "static" || name == "bm25" {
		return name + "\x00"
	}
	return name + "\x00" + localEngine(e)
}

// openLocal opens model name for engine setting e with the command
// line's registry, once, fetching a served model's files first; a name
// it does not know is looked for as a directory of the worker's models
// (an upload).
func (a *app) openLocal(ctx context.Context, name, e string) (*experiment.Model, error) {
	key := modelKey(name, e)
	a.mu.Lock()
	if m, ok := a.models[key]; ok {
		a.mu.Unlock()
		return m, nil
	}
	if o, ok := a.opening[key]; ok {
		a.mu.Unlock()
		<-o.done
		return o.m, o.err
	}
	o := &opening{done: make(chan struct{})}
	a.opening[key] = o
	a.mu.Unlock()
	o.m, o.err = a.openOnce(ctx, name, e)
	a.mu.Lock()
	if o.err == nil {
		a.models[key] = o.m
	}
	delete(a.opening, key)
	a.mu.Unlock()
	close(o.done)
	return o.m, o.err
}

// opening is a model being opened by openLocal: done is closed when m
// or err is set.
type opening struct {
	done chan struct{}
	m    *experiment.Model
	err  error
}

// openOnce opens model name for engine setting e (openLocal's work).
func (a *app) openOnce(ctx context.Context, name, e string) (*experiment.Model, error) {
	open := name
	if !slices.Contains(a.base.Names(), name) {
		open = path.Join(modelsDir, name)
		if _, err := a.files.Stat(open); err != nil || !isUpload(name) {
			return nil, fmt.Errorf("unknown model %q: not one of %s, nor an uploaded model", name, strings.Join(a.base.Names(), ", "))
		}
	} else if err := a.ensureModel(name, e); err != nil {
		return nil, err
	}
	return a.base.Open(ctx, open, a.modelOptions(e))
}

// resolve returns model name as the current run uses it: the cached
// local model, its embedders the server's /api/encode when the engine
// setting is auto and the server encodes the same model (its
// fingerprints then the server engine's), else shared with the helper
// workers; and the server's engine ("" when encoding here) with why
// not.
func (a *app) resolve(ctx context.Context, name, e string) (m *experiment.Model, server, why string, err error) {
	local, err := a.openLocal(ctx, name, e)
	if err != nil {
		return nil, "", "", err
	}
	cp := *local
	cp.Close = nil // kept open for the next run
	if local.Kind != experiment.Dense {
		return &cp, "", "", nil
	}
	switch {
	case isUpload(name):
		why = "an uploaded model"
	case e != engineAuto:
		why = "the engine setting is " + e
	default:
		q, qwhy := a.server(name, engine.Query, local)
		d, dwhy := a.server(name, engine.Document, local)
		if q != nil && d != nil && q.engine == d.engine {
			sm, err := local.WithEngine(q.engine)
			if err != nil {
				return nil, "", "", err
			}
			cp = *sm
			cp.Close = nil
			cp.Query.Embedder, cp.Document.Embedder = q, d
			cp.Notes = append(slices.Clone(local.Notes), "encoding on the server ("+engineWords(q.engine)+")")
			return &cp, q.engine, "", nil
		}
		why = qwhy
		if why == "" {
			why = dwhy
		}
	}
	cp.Notes = append(slices.Clone(local.Notes), "encoding in the browser ("+why+")")
	if peers := a.peerList(); len(peers) > 0 && !embedsAlone(local) {
		cp.Query.Embedder = &helperEmbedder{local: local.Query.Embedder, model: name, engine: e, side: engine.Query, peers: peers, a: a}
		cp.Document.Embedder = &helperEmbedder{local: local.Document.Embedder, model: name, engine: e, side: engine.Document, peers: peers, a: a}
	}
	return &cp, "", why, nil
}

// embedsAlone reports whether this worker embeds model m's sequences
// without its helpers: a static model's vector is a table lookup and a
// mean, microseconds a batch, less than a batch's round trip to a helper
// worker (the opening lesson's 4,598 sequences: 144 round trips, about
// 0.3 s, for 0.05 s of work). The helpers still rank (search.go), which
// needs no model, so they do not open it either (prepareHelpers).
func embedsAlone(m *experiment.Model) bool { return m.Engine == engine.Static }

// open is the run's Factory: the model resolve gives for the current
// run's engine setting, its embedders counting what they encode.
func (a *app) open(ctx context.Context, name string, _ experiment.ModelOptions) (*experiment.Model, error) {
	e := a.current.EngineSetting()
	m, server, why, err := a.resolve(ctx, name, e)
	if err != nil || m.Kind != experiment.Dense {
		return m, err
	}
	workers := 1 + len(a.peerList())
	if embedsAlone(m) {
		workers = 1
	}
	st := &browser.EncodeStats{Model: name, Label: func() string { return engineLabel(m, e, workers, server) },
		Note: func() string { return engineNote(m, e, server, why) }}
	m.Query.Embedder = &browser.CountingEmbedder{Embedder: m.Query.Embedder, St: st}
	if v := a.current.QueryVectors(name); v != nil {
		// Counted: only the sequences v does not hold.
		m.Query.Embedder = experiment.WithQueryVectors(m.Query.Embedder, v)
	}
	m.Document.Embedder = &browser.CountingEmbedder{Embedder: m.Document.Embedder, St: st}
	a.current.Add(st)
	return m, nil
}

// server returns the server's embedder of side of the local model m,
// probed once, or nil and why not.
func (a *app) server(name, side string, m *experiment.Model) (*serverEmbedder, string) {
	key := name + "\x00" + side
	a.mu.Lock()
	sc, ok := a.servers[key]
	a.mu.Unlock()
	if !ok {
		sc.emb, sc.why = probeServer(name, side, m)
		a.mu.Lock()
		a.servers[key] = sc
		a.mu.Unlock()
	}
	return sc.emb, sc.why
}

// runRequest is a "run" message.
type runRequest struct {
	Model     string    `json:"model"`
	Data      string    `json:"data"`
	Split     string    `json:"split"`
	Mode      string    `json:"mode"`
	Rates     []float64 `json:"rates"`
	Seeds     int       `json:"seeds"`
	FirstSeed uint64    `json:"firstSeed"`
	Show      float64   `json:"show"`
	TREC      bool      `json:"trec"`
	K         int       `json:"k"`
	Resamples int       `json:"resamples"`
	// Engine is the page's Engine setting (auto, ort-web, webgpu, go).
	Engine string `json:"engine"`
	// Lesson marks the opening lesson, which the page asks for before
	// it knows which models the site serves: a model the site does not
	// serve skips it (the answer's "skipped" says why) instead of failing.
	Lesson bool `json:"lesson"`
}

// decode reads a JSON-compatible JS value into v.
func decode(v js.Value, dst any) error {
	s := js.Global().Get("JSON").Call("stringify", v).String()
	return json.Unmarshal([]byte(s), dst)
}

// Config returns the experiment configuration of a request, the one
// "dreval eval" builds from the same settings (engine go), on the
// collections data holds.
func (q runRequest) Config(reg *experiment.Registry, cache experiment.Cache, data dataSource, opts experiment.ModelOptions) experiment.Config {
	return experiment.Config{
		Data:         data.names,
		Collections:  data.collections,
		Split:        q.Split,
		Models:       []string{q.Model},
		Registry:     reg,
		ModelOptions: opts,
		Perturbation: perturb.Config{Mode: perturb.Mode(q.Mode)},
		Rates:        q.Rates,
		Seeds:        q.Seeds,
		FirstSeed:    q.FirstSeed,
		K:            q.K,
		Cache:        cache,
		Examples:     1 << 20, // every query decoded, for the inspector
		Resamples:    q.Resamples,
	}
}

func (a *app) run(ctx context.Context, msg js.Value, progress func(map[string]any)) (map[string]any, error) {
	var q runRequest
	if err := decode(msg.Get("request"), &q); err != nil {
		return nil, fmt.Errorf("bad run request: %v", err)
	}
	e, err := checkEngine(q.Engine)
	if err != nil {
		return nil, err
	}
	if q.Lesson {
		if why, known := a.availability()[q.Model]; !known || why != "" {
			if !known {
				why = "not one of the site's models"
			}
			return map[string]any{"skipped": q.Model + ": " + why}, nil
		}
	}
	if isUpload(q.Model) {
		// Uploaded models live in modelsDir under names of their own.
		a.registry.Register(q.Model, a.open)
	}
	start := time.Now()
	// The model's files download and the model opens while the
	// collection loads (openLocal opens it once: the run's own open
	// below waits for this one).
	go a.openLocal(ctx, q.Model, e)
	a.current.Begin(e)
	data, err := a.data(q.Data, q.Split)
	if err != nil {
		return nil, err
	}
	// The helper workers open the model meanwhile, not when the first
	// batch reaches them.
	a.prepareHelpers(q.Model, e)
	if len(data.names) == 1 && data.names[0] == "demo" {
		queries, corpus := a.fetchDemoQueries(q.Model), a.fetchDemoCorpus(q.Model)
		coll, err := a.session.Collection("demo", "test") // the run's own
		if err != nil {
			return nil, err
		}
		// The paired tests' random numbers are drawn meanwhile (the first
		// test of a fresh worker paid for them).
		a.prepareDraws(len(coll.JudgedQueries()), experiment.Config{Resamples: q.Resamples}.TestOptions())
		if err := a.demoVectors(ctx, coll, q.Model, e, corpus); err != nil {
			return nil, err
		}
		if err := a.demoQueryVectors(ctx, coll, queries, e); err != nil {
			return nil, err
		}
	}
	cfg := q.Config(a.registry, a.cache, data, a.modelOptions(e))
	// The paired tests wait: those of the rate shown are computed below,
	// the others in the background (tests.go).
	cfg.DeferTests = true
	res, err := a.session.Run(ctx, cfg, progressEvents(progress))
	if err != nil {
		return nil, err
	}
	runSeconds := time.Since(start).Seconds()
	sel := ui.Selection{Rate: q.Show, AllConventions: q.TREC}
	key := q.sweepKey()
	a.mu.Lock()
	a.last, a.lastKey = res, key
	a.mu.Unlock()
	a.charts.Add(key, res)
	testStart := time.Now()
	if err := a.fillShown(res, sel); err != nil {
		return nil, err
	}
	testSeconds := time.Since(testStart).Seconds()
	out, err := a.views(res, sel, key, progress)
	if err != nil {
		return nil, err
	}
	a.bg.Kick()
	out["testSeconds"] = testSeconds // the paired tests of the rate shown
	var warns []any
	for _, w := range res.Warnings {
		warns = append(warns, w)
	}
	out["warnings"] = warns
	out["encoding"], out["notes"] = encodingJS(a.current.Report())
	out["runSeconds"] = runSeconds // experiment.Run alone
	out["seconds"] = time.Since(start).Seconds()
	return out, nil
}

// export returns the last results as the files the command line writes
// for them (exportFiles), made when asked for.
func (a *app) export() (map[string]any, error) {
	a.mu.Lock()
	res := a.last
	a.mu.Unlock()
	if res == nil {
		return nil, errors.New("no results yet: run an evaluation first")
	}
	// Every test the background has not computed yet.
	if err := a.fill(res, nil); err != nil {
		return nil, err
	}
	ex, err := browser.ExportFiles(res)
	if err != nil {
		return nil, err
	}
	return map[string]any{"json": ex.JSON, "csv": ex.CSV, "runsZip": jsBytes(ex.RunsZip), "allZip": jsBytes(ex.AllZip)}, nil
}

// encodingJS is RunState.Report's answer as the page reads it.
func encodingJS(encoding []browser.Encoding, notes []string) (enc, ns []any) {
	for _, e := range encoding {
		m := map[string]any{"model": e.Model, "texts": e.Texts, "seconds": e.Seconds, "engine": e.Engine, "note": e.Note}
		if e.PerSecond != 0 {
			m["perSecond"] = e.PerSecond
		}
		enc = append(enc, m)
	}
	for _, n := range notes {
		ns = append(ns, n)
	}
	return enc, ns
}

// view re-renders the last results for another rate or measure set
// (the table and chart first, to early).
func (a *app) view(msg js.Value, early func(map[string]any)) (map[string]any, error) {
	a.mu.Lock()
	res, key := a.last, a.lastKey
	a.mu.Unlock()
	if res == nil {
		return nil, errors.New("no results yet: run an evaluation first")
	}
	sel := ui.Selection{Rate: msg.Get("show").Float(), AllConventions: msg.Get("trec").Bool()}
	if err := a.fillShown(res, sel); err != nil {
		return nil, err
	}
	return a.views(res, sel, key, early)
}

// views renders the table, chart and inspector of sel; the chart shows
// every model run with the settings key. The table and chart go to early
// first (a progress message the page shows at once, when early is not
// nil): the inspector takes longer to render.
func (a *app) views(res *results.Results, sel ui.Selection, key string, early func(map[string]any)) (map[string]any, error) {
	table, err := ui.NewResultsTable(res, sel)
	if err != nil {
		return nil, err
	}
	th, err := ui.Render(table)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"table": th}
	chart, err := a.charts.Chart(res, sel, key)
	if err != nil {
		return nil, err
	}
	if ch, err := ui.Render(chart); err != nil {
		return nil, err
	} else {
		out["chart"] = ch
	}
	if early != nil {
		early(map[string]any{"type": "progress", "view": true, "table": out["table"], "chart": out["chart"]})
	}
	insp, err := ui.NewInspector(res, sel)
	if err != nil {
		return nil, err
	}
	if ih, err := ui.Render(insp); err != nil {
		return nil, err
	} else {
		out["inspector"] = ih
	}
	var rates []any
	for _, r := range res.Config.Rates {
		if r > 0 {
			rates = append(rates, r)
		}
	}
	out["rates"] = rates
	return out, nil
}

// scoring returns the request of a metrics or vectors message: its
// scoring field's measures, convention and complete (-m, -convention and
// -c of "dreval metrics"), the defaults of pageMetrics where absent.
func scoring(msg js.Value) metrics.Request {
	req := pageMetrics
	s := msg.Get("scoring")
	if s.Type() != js.TypeObject {
		return req
	}
	if v := s.Get("measures"); v.Type() == js.TypeObject {
		for i := 0; i < v.Length(); i++ {
			req.Measures = append(req.Measures, v.Index(i).String())
		}
	}
	if v := s.Get("convention"); v.Type() == js.TypeString {
		req.Convention = v.String()
	}
	req.Complete = s.Get("complete").Truthy()
	return req
}

// pageMetrics is what the page's qrels + run mode asks for: "dreval
// metrics -qrels Q -run R" with its defaults (the trec convention and its
// default measures, relevance level 1, qrels in any form).
var pageMetrics = metrics.Request{Level: 1}

// metrics scores an uploaded run against uploaded qrels with the checks
// and evaluation of "dreval metrics" and /api/metrics (metrics.Request).
func (a *app) metrics(msg js.Value) (map[string]any, error) {
	qname, qtext := msg.Get("qrels").Get("name").String(), msg.Get("qrels").Get("text").String()
	rname, rtext := msg.Get("run").Get("name").String(), msg.Get("run").Get("text").String()
	res, err := scoring(msg).Evaluate(strings.NewReader(qtext), qname, strings.NewReader(rtext), rname)
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	if err := metrics.WriteTREC(&text, res, false); err != nil {
		return nil, err
	}
	var csv strings.Builder
	if err := metrics.WriteCSV(&csv, res, true); err != nil {
		return nil, err
	}
	h, err := ui.Render(ui.NewMetricsView(rname, res, text.String()))
	if err != nil {
		return nil, err
	}
	return map[string]any{"html": h, "text": text.String(), "csv": csv.String()}, nil
}

// embed embeds a helper's chunk: msg.data holds the sequences' ids back to
// back and msg.lens their lengths, as little-endian int32.
func (a *app) embed(msg js.Value) ([]byte, int, error) {
	e, err := checkEngine(stringOf(msg.Get("engine")))
	if err != nil {
		return nil, 0, err
	}
	m, err := a.openLocal(context.Background(), msg.Get("model").String(), e)
	if err != nil {
		return nil, 0, err
	}
	ids, err := unpackIDs(bytesOf(msg.Get("data")), bytesOf(msg.Get("lens")))
	if err != nil {
		return nil, 0, err
	}
	emb := m.Document.Embedder
	if msg.Get("side").String() == engine.Query {
		emb = m.Query.Embedder
	}
	vecs, err := emb.EmbedIDs(ids)
	if err != nil {
		return nil, 0, err
	}
	dim := emb.Dim()
	out := make([]byte, 0, len(vecs)*dim*4)
	for _, v := range vecs {
		for _, x := range v {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
		}
	}
	return out, dim, nil
}

// stringOf returns v as a string, "" when it is not one (undefined).
func stringOf(v js.Value) string {
	if v.Type() != js.TypeString {
		return ""
	}
	return v.String()
}

func bytesOf(v js.Value) []byte {
	b := make([]byte, v.Get("length").Int())
	js.CopyBytesToGo(b, v)
	return b
}

func packIDs(seqs [][]int32) (data, lens []byte) {
	for _, s := range seqs {
		lens = binary.LittleEndian.AppendUint32(lens, uint32(len(s)))
		for _, id := range s {
			data = binary.LittleEndian.AppendUint32(data, uint32(id))
		}
	}
	return data, lens
}

func unpackIDs(data, lens []byte) ([][]int32, error) {
	if len(lens)%4 != 0 || len(data)%4 != 0 {
		return nil, errors.New("malformed id buffers")
	}
	var out [][]int32
	off := 0
	for i := 0; i < len(lens); i += 4 {
		n := int(binary.LittleEndian.Uint32(lens[i:]))
		if off+4*n > len(data) {
			return nil, errors.New("id buffer shorter than its lengths")
		}
		s := make([]int32, n)
		for j := range s {
			s[j] = int32(binary.LittleEndian.Uint32(data[off+4*j:]))
		}
		off += 4 * n
		out = append(out, s)
	}
	return out, nil
}

func jsBytes(b []byte) js.Value {
	v := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(v, b)
	return v
}

// bench embeds msg.n sequences of msg.tokens ids (special tokens
// included) with this worker's own embedder of msg.model under engine
// setting msg.engine (default auto: onnxruntime-web where the site serves
// it), in batches of msg.batch (default 32), and reports the sentences
// per second; with msg.all, each batch of msg.batch sequences per worker
// is split between this worker and its helpers as a run splits it
// (helperEmbedder).
func (a *app) bench(msg js.Value) (map[string]any, error) {
	name, n, tokens := msg.Get("model").String(), msg.Get("n").Int(), msg.Get("tokens").Int()
	if n < 1 || tokens < 2 {
		return nil, fmt.Errorf("bench: n %d and tokens %d: want n >= 1, tokens >= 2", n, tokens)
	}
	e, err := checkEngine(stringOf(msg.Get("engine")))
	if err != nil {
		return nil, err
	}
	batch := 32
	if b := msg.Get("batch"); b.Type() == js.TypeNumber && b.Int() > 0 {
		batch = b.Int()
	}
	m, err := a.openLocal(context.Background(), name, e)
	if err != nil {
		return nil, err
	}
	if m.Kind != experiment.Dense {
		return nil, fmt.Errorf("bench: model %s does not embed", name)
	}
	full := m.Document.Tokenizer.EncodeIDs(strings.Repeat("the quick brown fox jumps over the lazy dog near the river bank ", 20))
	if len(full) < tokens {
		return nil, fmt.Errorf("bench: the model keeps %d ids, fewer than %d", len(full), tokens)
	}
	seq := append(slices.Clone(full[:tokens-1]), full[len(full)-1])
	seqs := make([][]int32, n)
	for i := range seqs {
		seqs[i] = seq
	}
	emb, workers := m.Document.Embedder, 1
	if msg.Get("all").Truthy() {
		if peers := a.peerList(); len(peers) > 0 {
			emb, workers = &helperEmbedder{local: m.Document.Embedder, model: name, engine: e, side: engine.Document, peers: peers, a: a}, 1+len(peers)
		}
	}
	if _, err := emb.EmbedIDs(seqs[:min(n, batch*workers)]); err != nil { // warm up (every worker)
		return nil, err
	}
	batch *= workers
	// This worker's onnxruntime-web session, when it has one: the time
	// in its runs, against the whole (the rest is Go's and the copies').
	sess := func() *ortweb.Session { return nil }
	if o, ok := m.Document.Embedder.(interface {
		Session() (ortweb.Forwarder, error)
	}); ok {
		sess = func() *ortweb.Session { s, _ := o.Session(); r, _ := s.(*ortweb.Session); return r }
	}
	var busy0 time.Duration
	if s := sess(); s != nil {
		busy0 = s.Busy()
	}
	start := time.Now()
	for lo := 0; lo < n; lo += batch {
		if _, err := emb.EmbedIDs(seqs[lo:min(lo+batch, n)]); err != nil {
			return nil, err
		}
	}
	sec := time.Since(start).Seconds()
	label := engineLabel(m, e, workers, "")
	ans := map[string]any{"sentences": n, "tokens": tokens, "workers": workers, "seconds": sec, "perSecond": float64(n) / sec, "engine": label}
	if s := sess(); s != nil {
		ans["sessionSeconds"] = (s.Busy() - busy0).Seconds()
	}
	return ans, nil
}

// sweepKey says which runs share a chart (browser.SweepKey).
func (q runRequest) sweepKey() string {
	return browser.SweepKey(q.Data, q.Split, q.Mode, q.Seeds, q.FirstSeed, q.K)
}
