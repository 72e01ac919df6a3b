package browser

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/encoder/ortweb"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/memfs"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/ui"
)

// App is one worker's state: its opened models, the corpus vectors it
// encoded, the last results. Its requests may be answered concurrently
// (Handle).
type App struct {
	ports Ports
	mu    sync.Mutex
	// models holds the opened models by modelKey (name and engine);
	// opening those being opened (a run's and a helper's PrepareRequest
	// open a model once).
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
	charts   charts
	bg       background
	peers    []*peer
	base     *experiment.Registry
	registry *experiment.Registry
	// servers holds, per model and side, the server embedder probeServer
	// found (nil: encode here) and why not; probes whether the server
	// answers an encode probe for a model (serverMayEncode).
	servers map[string]serverChoice
	probes  map[string]bool
	// files holds the models and uploads (see files.go); served is the
	// site's model index, fetched the models already in files.
	files   *memfs.FS
	served  served
	fetched map[string]bool
	// current is the run in progress (run, reproduce): its engine
	// setting and what its models encoded.
	current runState
	// corpora is what the split searches' corpora are to the helpers
	// (search.go): in the first worker the last corpus sent, in a helper
	// the corpora it holds.
	corpora searchCorpora
	// ort is onnxruntime-web as loaded, graphs the served graphs fetched
	// ahead (ortweb.go).
	ort    ortRuntimes
	graphs graphFetches
}

type serverChoice struct {
	emb *serverEmbedder
	why string
}

// New returns a worker's app, reaching the browser through p.
func New(p Ports) *App {
	a := &App{ports: p, models: map[string]*experiment.Model{}, opening: map[string]*opening{}, corpusFetched: map[string]bool{},
		cache: experiment.NewMemCache(), base: experiment.DefaultRegistry(), servers: map[string]serverChoice{}, probes: map[string]bool{},
		files: &memfs.FS{}, fetched: map[string]bool{}}
	a.session = a.newSession()
	go a.background()
	a.registry = experiment.NewRegistry()
	for _, n := range a.base.Names() {
		a.registry.Register(n, a.open)
	}
	a.registry.RegisterDir(a.open)
	return a
}

// Handle answers request req: it posts its reply (none for a
// PrepareRequest), after any Progress, with post; an ErrorReply when it
// fails. The page cancels a run by terminating the workers: a running
// wasm instance does not read its messages.
func (a *App) Handle(req Message, post func(Message)) {
	// The background's tests wait while a request is answered.
	a.bg.begin()
	defer a.bg.end()
	out, err := a.answer(req, post)
	switch {
	case err != nil:
		post(&ErrorReply{Message: err.Error()})
	case out != nil:
		post(out)
	}
}

func (a *App) answer(req Message, post func(Message)) (Message, error) {
	switch r := req.(type) {
	case *RunRequest:
		return nonNil(a.run(context.Background(), r.Request, post))
	case *ReproduceRequest:
		return nonNil(a.reproduce(context.Background(), r.Request, post))
	case *ViewRequest:
		return nonNil(a.view(r, post))
	case *ExportRequest:
		return nonNil(a.export())
	case *MetricsRequest:
		return nonNil(a.metrics(r.Scoring, r.Qrels, r.Run.Name, r.Run.Text, nil))
	case *VectorsRequest:
		return nonNil(a.vectors(r))
	case *ModelRequest:
		return nonNil(a.checkModel(r))
	case *ForgetRequest:
		a.forget(r.Model)
		return &ForgetReply{}, nil
	case *PickRequest:
		return nonNil(pick(r))
	case *FilesRequest:
		return &FilesReply{}, a.storeFiles(r)
	case *ModelsRequest:
		return &ModelsReply{Unavailable: a.availability()}, nil
	case *WarmRequest:
		// Open the model in every worker that will embed with it (as a
		// run does first), answering once that is started.
		if e, err := checkEngine(r.Engine); err == nil {
			a.prepareHelpers(r.Model, e)
		}
		return &WarmReply{}, nil
	case *BenchRequest:
		return nonNil(a.bench(r))
	case *PrepareRequest:
		// From the first worker: open a model now, answering nothing (an
		// error comes again with the first EmbedRequest). A dense model's
		// document tower embeds no sequences, which on onnxruntime-web
		// loads the runtime, the graph and the session too.
		if e, err := checkEngine(r.Engine); err == nil {
			a.prepare(r.Model, e)
		}
		return nil, nil
	case *EmbedRequest:
		return nonNil(a.embed(r))
	case *SearchRequest:
		return nonNil(a.searchPart(r))
	case *DrawsRequest:
		return nonNil(drawTables(r))
	}
	return nil, fmt.Errorf("unknown message type %q", req.MessageType())
}

// nonNil returns reply m as a Message, nil (not a typed nil) with an
// error.
func nonNil[T Message](m T, err error) (Message, error) {
	if err != nil {
		return nil, err
	}
	return m, nil
}

// newSession returns an empty session whose dense searches are split
// between the workers (search.go).
func (a *App) newSession() *experiment.Session {
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
func (a *App) modelOptions(e string) experiment.ModelOptions {
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
func (a *App) openLocal(ctx context.Context, name, e string) (*experiment.Model, error) {
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
func (a *App) openOnce(ctx context.Context, name, e string) (*experiment.Model, error) {
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
func (a *App) resolve(ctx context.Context, name, e string) (m *experiment.Model, server, why string, err error) {
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
		cp.Query.Embedder = &helperEmbedder{local: local.Query.Embedder, model: name, engine: e, side: engine.Query, peers: peers}
		cp.Document.Embedder = &helperEmbedder{local: local.Document.Embedder, model: name, engine: e, side: engine.Document, peers: peers}
	}
	return &cp, "", why, nil
}

// embedsAlone reports whether this worker embeds model m's sequences
// without its helpers: a static model's vector is a table lookup and a
// mean, microseconds a batch, less than a batch's round trip to a helper
// worker (the opening lesson's 4,598 sequences: 144 round trips, about
// 0.1 s).
func embedsAlone(m *experiment.Model) bool { return m.Engine == engine.Static }

// open is the run's Factory: the model resolve gives for the current
// run's engine setting, its embedders counting what they encode.
func (a *App) open(ctx context.Context, name string, _ experiment.ModelOptions) (*experiment.Model, error) {
	e := a.current.engineSetting()
	m, server, why, err := a.resolve(ctx, name, e)
	if err != nil || m.Kind != experiment.Dense {
		return m, err
	}
	workers := 1 + len(a.peerList())
	if embedsAlone(m) {
		workers = 1
	}
	st := &encodeStats{model: name, label: func() string { return a.engineLabel(m, e, workers, server) },
		note: func() string { return a.engineNote(m, e, server, why) }}
	m.Query.Embedder = &countingEmbedder{Embedder: m.Query.Embedder, st: st}
	if v := a.current.queryVectors(name); v != nil {
		// Counted: only the sequences v does not hold.
		m.Query.Embedder = experiment.WithQueryVectors(m.Query.Embedder, v)
	}
	m.Document.Embedder = &countingEmbedder{Embedder: m.Document.Embedder, st: st}
	a.current.add(st)
	return m, nil
}

// server returns the server's embedder of side of the local model m,
// probed once, or nil and why not.
func (a *App) server(name, side string, m *experiment.Model) (*serverEmbedder, string) {
	key := name + "\x00" + side
	a.mu.Lock()
	sc, ok := a.servers[key]
	a.mu.Unlock()
	if !ok {
		sc.emb, sc.why = a.probeServer(name, side, m)
		a.mu.Lock()
		a.servers[key] = sc
		a.mu.Unlock()
	}
	return sc.emb, sc.why
}

// config returns the experiment configuration of a run, the one "dreval
// eval" builds from the same settings (engine go), on the collections
// data holds.
func (q RunSettings) config(reg *experiment.Registry, cache experiment.Cache, data dataSource, opts experiment.ModelOptions) experiment.Config {
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

// sweepKey says which runs share a chart: same data, split, mode, seeds
// and k.
func (q RunSettings) sweepKey() string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%d\x00%d", q.Data, q.Split, q.Mode, q.Seeds, q.FirstSeed, q.K)
}

func (a *App) run(ctx context.Context, q RunSettings, progress func(Message)) (*RunReply, error) {
	e, err := checkEngine(q.Engine)
	if err != nil {
		return nil, err
	}
	if q.Lesson {
		if why, known := a.availability()[q.Model]; !known || why != "" {
			if !known {
				why = "not one of the site's models"
			}
			return &RunReply{Skipped: q.Model + ": " + why}, nil
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
	a.current.begin(e)
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
	cfg := q.config(a.registry, a.cache, data, a.modelOptions(e))
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
	a.charts.add(key, res)
	testStart := time.Now()
	if err := a.fillShown(res, sel); err != nil {
		return nil, err
	}
	testSeconds := time.Since(testStart).Seconds()
	views, err := a.views(res, sel, key, progress)
	if err != nil {
		return nil, err
	}
	a.bg.kick()
	out := &RunReply{Views: *views, TestSeconds: testSeconds, Warnings: res.Warnings}
	out.Encoding, out.Notes = a.current.report()
	out.RunSeconds = runSeconds // experiment.Run alone
	out.Seconds = time.Since(start).Seconds()
	return out, nil
}

// export returns the last results as the files the command line writes
// for them (exportFiles), made when asked for.
func (a *App) export() (*ExportReply, error) {
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
	return exportFiles(res)
}

// view re-renders the last results for another rate or measure set
// (the table and chart first, to early).
func (a *App) view(q *ViewRequest, early func(Message)) (*ViewReply, error) {
	a.mu.Lock()
	res, key := a.last, a.lastKey
	a.mu.Unlock()
	if res == nil {
		return nil, errors.New("no results yet: run an evaluation first")
	}
	sel := ui.Selection{Rate: q.Show, AllConventions: q.TREC}
	if err := a.fillShown(res, sel); err != nil {
		return nil, err
	}
	v, err := a.views(res, sel, key, early)
	if err != nil {
		return nil, err
	}
	return &ViewReply{Views: *v}, nil
}

// views renders the table, chart and inspector of sel; the chart shows
// every model run with the settings key. The table and chart go to early
// first (a progress message the page shows at once, when early is not
// nil): the inspector takes longer to render.
func (a *App) views(res *results.Results, sel ui.Selection, key string, early func(Message)) (*Views, error) {
	table, err := ui.NewResultsTable(res, sel)
	if err != nil {
		return nil, err
	}
	out := &Views{}
	if out.Table, err = ui.Render(table); err != nil {
		return nil, err
	}
	chart, err := a.charts.chart(res, sel, key)
	if err != nil {
		return nil, err
	}
	if out.Chart, err = ui.Render(chart); err != nil {
		return nil, err
	}
	if early != nil {
		early(&Progress{View: true, Table: out.Table, Chart: out.Chart})
	}
	insp, err := ui.NewInspector(res, sel)
	if err != nil {
		return nil, err
	}
	if out.Inspector, err = ui.Render(insp); err != nil {
		return nil, err
	}
	for _, r := range res.Config.Rates {
		if r > 0 {
			out.Rates = append(out.Rates, r)
		}
	}
	return out, nil
}

// pageMetrics is what the page's qrels + run mode asks for: "dreval
// metrics -qrels Q -run R" with its defaults (the trec convention and its
// default measures, relevance level 1, qrels in any form).
var pageMetrics = metrics.Request{Level: 1}

// metrics scores run (text, named rname) against the qrels with the
// checks and evaluation of "dreval metrics" and /api/metrics
// (metrics.Request): s's measures, convention and complete (-m,
// -convention and -c; pageMetrics's defaults where s is nil). It answers
// with the measures, into out when not nil.
func (a *App) metrics(s *Scoring, qrels TextFile, rname, rtext string, out *MetricsReply) (*MetricsReply, error) {
	req := pageMetrics
	if s != nil {
		req.Measures, req.Convention, req.Complete = s.Measures, s.Convention, s.Complete
	}
	res, err := req.Evaluate(strings.NewReader(qrels.Text), qrels.Name, strings.NewReader(rtext), rname)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = &MetricsReply{}
	}
	var text strings.Builder
	if err := metrics.WriteTREC(&text, res, false); err != nil {
		return nil, err
	}
	var csv strings.Builder
	if err := metrics.WriteCSV(&csv, res, true); err != nil {
		return nil, err
	}
	if out.HTML, err = ui.Render(ui.NewMetricsView(rname, res, text.String())); err != nil {
		return nil, err
	}
	out.Text, out.CSV = text.String(), csv.String()
	return out, nil
}

// embed embeds a helper's chunk.
func (a *App) embed(q *EmbedRequest) (*EmbedReply, error) {
	e, err := checkEngine(q.Engine)
	if err != nil {
		return nil, err
	}
	m, err := a.openLocal(context.Background(), q.Model, e)
	if err != nil {
		return nil, err
	}
	ids, err := unpackIDs(q.Data, q.Lens)
	if err != nil {
		return nil, err
	}
	emb := m.Document.Embedder
	if q.Side == engine.Query {
		emb = m.Query.Embedder
	}
	vecs, err := emb.EmbedIDs(ids)
	if err != nil {
		return nil, err
	}
	dim := emb.Dim()
	out := make([]byte, 0, len(vecs)*dim*4)
	for _, v := range vecs {
		for _, x := range v {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
		}
	}
	return &EmbedReply{Dim: dim, Data: out}, nil
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

// bench embeds q.N sequences of q.Tokens ids (special tokens included)
// with this worker's own embedder of q.Model under engine setting
// q.Engine (default auto: onnxruntime-web where the site serves it), in
// batches of q.Batch (default 32), and reports the sentences per second;
// with q.All, each batch of q.Batch sequences per worker is split between
// this worker and its helpers as a run splits it (helperEmbedder).
func (a *App) bench(q *BenchRequest) (*BenchReply, error) {
	name, n, tokens := q.Model, q.N, q.Tokens
	if n < 1 || tokens < 2 {
		return nil, fmt.Errorf("bench: n %d and tokens %d: want n >= 1, tokens >= 2", n, tokens)
	}
	e, err := checkEngine(q.Engine)
	if err != nil {
		return nil, err
	}
	batch := 32
	if q.Batch > 0 {
		batch = q.Batch
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
	if q.All {
		if peers := a.peerList(); len(peers) > 0 {
			emb, workers = &helperEmbedder{local: m.Document.Embedder, model: name, engine: e, side: engine.Document, peers: peers}, 1+len(peers)
		}
	}
	if _, err := emb.EmbedIDs(seqs[:min(n, batch*workers)]); err != nil { // warm up (every worker)
		return nil, err
	}
	batch *= workers
	// This worker's onnxruntime-web session, when it has one: the time
	// in its runs, against the whole (the rest is Go's and the copies').
	type timed interface{ Busy() time.Duration }
	sess := func() timed { return nil }
	if o, ok := m.Document.Embedder.(interface {
		Session() (ortweb.Forwarder, error)
	}); ok {
		sess = func() timed { s, _ := o.Session(); t, _ := s.(timed); return t }
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
	out := &BenchReply{Sentences: n, Tokens: tokens, Workers: workers, Seconds: sec, PerSecond: float64(n) / sec, Engine: a.engineLabel(m, e, workers, "")}
	if s := sess(); s != nil {
		out.SessionSeconds = (s.Busy() - busy0).Seconds()
	}
	return out, nil
}
