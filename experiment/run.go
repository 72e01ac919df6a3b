package experiment

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/perturb"
)

// The steps an Event reports.
const (
	StepLoad          = "load"           // a dataset is being loaded
	StepModel         = "model"          // a model is being opened
	StepEncodeCorpus  = "encode corpus"  // documents encoded (Unit "docs")
	StepIndex         = "index"          // a lexical index is being built
	StepEncodeQueries = "encode queries" // distinct query id sequences encoded, clean and perturbed (Unit "queries")
	StepSearch        = "search"         // runs searched and scored (Unit "runs")
	StepWarning       = "warning"        // Message is a warning about the data or the cache
	StepInfo          = "info"           // Message is information (a cache hit, ...)
)

// Event is one progress report of Run. Counting steps report Done of Total
// items of Unit; StepWarning and StepInfo carry a Message.
type Event struct {
	Step    string
	Dataset string
	Model   string
	Done    int
	Total   int
	Unit    string
	Message string
}

// Subject returns what the event concerns: "demo/minilm", "demo",
// "minilm" or "".
func (e Event) Subject() string {
	switch {
	case e.Dataset != "" && e.Model != "":
		return e.Dataset + "/" + e.Model
	case e.Dataset != "":
		return e.Dataset
	}
	return e.Model
}

// Label returns the step with its subject, as in "encode corpus
// demo/minilm".
func (e Event) Label() string {
	if s := e.Subject(); s != "" {
		return e.Step + " " + s
	}
	return e.Step
}

// The measures of the paper's table (st) and of trec_eval (trec).
var (
	STMeasures   = []string{"accuracy@1", "precision@1", "recall@1", "ndcg@10", "mrr@10", "map@100"}
	TRECMeasures = []string{"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"}
)

// runner holds one Run's state.
type runner struct {
	ctx      context.Context
	cfg      Config
	progress func(Event)
	st, trec []metrics.Measure
	res      *Results
}

func (r *runner) emit(e Event) {
	if r.progress != nil {
		r.progress(e)
	}
}

func (r *runner) warn(dataset, model, format string, args ...any) string {
	msg := fmt.Sprintf(format, args...)
	r.emit(Event{Step: StepWarning, Dataset: dataset, Model: model, Message: msg})
	full := msg
	if prefix := (Event{Dataset: dataset, Model: model}).Subject(); prefix != "" {
		full = prefix + ": " + msg
	}
	r.res.Warnings = append(r.res.Warnings, full)
	return msg
}

// Run runs the experiment cfg describes: for every dataset and model it
// encodes (or loads from cfg.Cache) the corpus, runs the judged queries
// clean and perturbed at every rate > 0 with every seed, scores every run
// under the st and trec conventions, and compares each perturbed run with
// the clean one. A dataset without qrels (dataset.Collection.NoQrels)
// needs task dpr or dureader: its questions with answers are searched and
// only their answer accuracy is measured (DatasetResult.QrelsAbsent);
// task ir fails on it with an error wrapping ErrNoQrels. progress, when
// not nil, receives progress events; it is called from the goroutine that
// called Run.
func Run(ctx context.Context, cfg Config, progress func(Event)) (*Results, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	r := &runner{ctx: ctx, cfg: cfg, progress: progress}
	var err error
	if r.st, err = parseInOrder(STMeasures, metrics.ConventionST); err != nil {
		return nil, err
	}
	if r.trec, err = parseInOrder(TRECMeasures, metrics.ConventionTREC); err != nil {
		return nil, err
	}
	r.res = &Results{
		Version:      cfg.Version,
		Config:       summarize(cfg),
		STMeasures:   measureNames(r.st),
		TRECMeasures: measureNames(r.trec),
		Task:         string(cfg.Task),
		Significance: fmt.Sprintf("Tests are paired by query: two-sided randomization test (%d sign-flip permutations), paired t-test, percentile-bootstrap 95%% CI (%d resamples), seed %d", cfg.Resamples, cfg.Resamples, cfg.TestSeed),
	}

	if cfg.Task == TaskDuReader {
		r.res.DuReaderMeasures = DuReaderMeasures
	}
	for _, m := range cfg.AnswerModes {
		r.res.AnswerModes = append(r.res.AnswerModes, m.String())
	}
	var short []string
	for _, m := range append(append([]metrics.Measure(nil), r.st...), r.trec...) {
		if m.Cutoff() > cfg.K {
			short = append(short, m.String())
		}
	}
	if len(short) > 0 {
		r.warn("", "", "k = %d is below the cut-off of %s: they are computed on the top %d documents only", cfg.K, strings.Join(short, ", "), cfg.K)
	}
	colls, sources, err := r.load()
	if err != nil {
		return nil, err
	}
	models := make([]*Model, 0, len(cfg.Models))
	defer func() {
		for _, m := range models {
			if m.Close != nil {
				m.Close()
			}
		}
	}()
	for _, name := range cfg.Models {
		r.emit(Event{Step: StepModel, Model: name, Message: "opening"})
		m, err := cfg.Registry.Open(ctx, name, cfg.ModelOptions)
		if err != nil {
			return nil, err
		}
		models = append(models, m)
		for _, n := range m.Notes {
			r.emit(Event{Step: StepInfo, Model: m.Name, Message: n})
		}
	}
	fileNames := map[string]string{}
	for _, m := range models {
		if prev, dup := fileNames[safeKey(m.Name)]; dup {
			return nil, fmt.Errorf("models %q and %q would write the same run files (%s__...)", prev, m.Name, safeKey(m.Name))
		}
		fileNames[safeKey(m.Name)] = m.Name
	}
	names := datasetNames(colls)
	for i, c := range colls {
		dr, err := r.dataset(c, names[i], sources[i], models, len(colls) > 1)
		if err != nil {
			return nil, err
		}
		r.res.Datasets = append(r.res.Datasets, dr)
	}
	if r.res.Average, err = r.averageDrops(); err != nil {
		return nil, err
	}
	return r.res, nil
}

func summarize(cfg Config) ConfigSummary {
	data := append([]string(nil), cfg.Data...)
	for _, c := range cfg.Collections {
		data = append(data, c.Name)
	}
	return ConfigSummary{
		Data:           data,
		Split:          cfg.Split,
		Models:         append([]string(nil), cfg.Models...),
		Perturbation:   string(cfg.Perturbation.Mode),
		OOV:            oovName(cfg.Perturbation),
		ProtectSpecial: cfg.Perturbation.ProtectSpecial,
		Rates:          append([]float64(nil), cfg.Rates...),
		Seeds:          cfg.seedList(),
		K:              cfg.K,
		Engine:         string(cfg.ModelOptions.Engine),
		Analyzer:       string(cfg.ModelOptions.Analyzer),
		Task:           string(cfg.Task),
		PassageText:    cfg.PassageText,
		AnswerKs:       cfg.AnswerKs,
		Resamples:      cfg.Resamples,
		TestSeed:       cfg.TestSeed,
	}
}

func oovName(p perturb.Config) string {
	if p.Mode != perturb.IDShift {
		return ""
	}
	if p.OOV == "" {
		return string(perturb.Redraw)
	}
	return string(p.OOV)
}

// parseInOrder parses measure names one by one, keeping their order (the
// paper's column order; metrics.ParseMeasures sorts).
func parseInOrder(names []string, c metrics.Convention) ([]metrics.Measure, error) {
	var out []metrics.Measure
	for _, n := range names {
		ms, err := metrics.ParseMeasures([]string{n}, c)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}

func measureNames(ms []metrics.Measure) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

// load loads cfg.Data and appends cfg.Collections.
func (r *runner) load() ([]*dataset.Collection, []string, error) {
	var colls []*dataset.Collection
	var sources []string
	for _, d := range r.cfg.Data {
		r.emit(Event{Step: StepLoad, Dataset: d, Message: "loading"})
		c, err := dataset.Load(d, r.cfg.Split)
		if err != nil {
			return nil, nil, err
		}
		colls = append(colls, c)
		sources = append(sources, d)
	}
	for i, c := range r.cfg.Collections {
		if c == nil {
			return nil, nil, fmt.Errorf("collection %d is nil", i+1)
		}
		colls = append(colls, c)
		sources = append(sources, c.Name)
	}
	return colls, sources, nil
}

// datasetNames returns a distinct, file-name-safe name per collection.
func datasetNames(colls []*dataset.Collection) []string {
	names := make([]string, len(colls))
	seen := map[string]int{}
	for i, c := range colls {
		n := safeKey(c.Name)
		if n == "" || n == "." || n == ".." {
			n = "dataset"
		}
		seen[n]++
		if seen[n] > 1 {
			n += "-" + strconv.Itoa(seen[n])
		}
		names[i] = n
	}
	return names
}

// dataset evaluates every model on collection c.
func (r *runner) dataset(c *dataset.Collection, name, source string, models []*Model, multi bool) (*DatasetResult, error) {
	if len(c.Corpus) == 0 {
		return nil, fmt.Errorf("dataset %s: the corpus is empty: nothing to retrieve", source)
	}
	st := c.Stats()
	dr := &DatasetResult{
		Name:               name,
		Source:             source,
		Split:              r.cfg.Split,
		SHA256:             CollectionHash(c),
		CorpusSHA256:       CorpusHash(c.Corpus),
		Docs:               len(c.Corpus),
		Queries:            len(c.Queries),
		AbsentDocs:         st.AbsentDocs,
		AbsentDocJudgments: st.AbsentDocJudgments,
	}
	// Ids go into TREC run files, whose columns are separated by white
	// space: check them before any work is done.
	seenDoc := make(map[string]bool, len(c.Corpus))
	for _, d := range c.Corpus {
		if seenDoc[d.ID] {
			return nil, fmt.Errorf("dataset %s: document id %q appears twice in the corpus", source, d.ID)
		}
		if d.ID == "" || strings.IndexFunc(d.ID, unicode.IsSpace) >= 0 {
			return nil, fmt.Errorf("dataset %s: document id %q is empty or holds white space, which TREC run files cannot hold", source, d.ID)
		}
		seenDoc[d.ID] = true
	}
	for _, q := range c.Queries {
		if q.ID == "" || strings.IndexFunc(q.ID, unicode.IsSpace) >= 0 {
			return nil, fmt.Errorf("dataset %s: query id %q is empty or holds white space, which TREC run files cannot hold", source, q.ID)
		}
	}
	if c.NoQrels {
		return r.datasetWithoutQrels(c, name, source, models, multi, dr)
	}
	// The judged queries are searched; the qrels are cut to them, so that
	// every average is over the queries run (a query retrieving nothing
	// scores 0 rather than vanishing from the average).
	queries := c.JudgedQueries()
	dr.Judged = len(queries)
	dr.Unjudged = len(c.Queries) - len(queries)
	qrels := metrics.Qrels{}
	for _, q := range queries {
		qrels[q.ID] = c.Qrels[q.ID]
		if (metrics.Qrels{q.ID: c.Qrels[q.ID]}).NumRelevant(q.ID, 1) == 0 {
			dr.NoRelevant++
		}
	}
	if dr.AbsentDocs > 0 {
		dr.Warnings = append(dr.Warnings, r.warn(name, "", "the qrels name %d documents absent from the corpus (%d judgments); they can never be retrieved, and count against recall", dr.AbsentDocs, dr.AbsentDocJudgments))
	}
	if st.QrelsUnknownQueries > 0 {
		dr.Warnings = append(dr.Warnings, r.warn(name, "", "the qrels judge %d queries absent from the queries file; they are not evaluated", st.QrelsUnknownQueries))
	}
	if dr.Unjudged > 0 {
		dr.Warnings = append(dr.Warnings, r.warn(name, "", "%d of %d queries have no judgments for split %q and are excluded", dr.Unjudged, dr.Queries, r.cfg.Split))
	}
	if dr.NoRelevant > 0 {
		dr.Warnings = append(dr.Warnings, r.warn(name, "", "%d judged queries have no relevant document: st drops them from its averages, trec scores them 0", dr.NoRelevant))
	}
	dr.Qrels = qrels
	if len(queries) == 0 {
		return nil, fmt.Errorf("dataset %s: none of its %d queries has judgments for split %q: nothing to evaluate", source, len(c.Queries), r.cfg.Split)
	}
	td, err := r.prepareTask(c, name, queries, dr)
	if err != nil {
		return nil, err
	}
	return r.models(c, name, queries, qrels, td, models, multi, dr)
}

// models evaluates every model on collection c's queries and adds the
// results to dr.
func (r *runner) models(c *dataset.Collection, name string, queries []dataset.Query, qrels metrics.Qrels, td *taskData, models []*Model, multi bool, dr *DatasetResult) (*DatasetResult, error) {
	encodedHash := EncodedCorpusHash(c.Corpus, r.cfg.PassageText)
	for _, m := range models {
		mr, err := r.model(c, name, encodedHash, queries, qrels, td, m, multi)
		if err != nil {
			return nil, fmt.Errorf("dataset %s, model %s: %w", name, m.Name, err)
		}
		dr.Models = append(dr.Models, mr)
	}
	return dr, nil
}

// ErrNoQrels is wrapped by Run's error when a dataset without relevance
// judgments (dataset.Collection.NoQrels) meets a task that needs them
// (TaskIR): the task asked for does not suit the data.
var ErrNoQrels = errors.New("no relevance judgments (qrels)")

// datasetWithoutQrels evaluates the models on a collection without
// relevance judgments, a DPR-style question set: the questions with
// answers are searched, and only the task's answer accuracy is measured,
// as DPR defines its evaluation. The st, trec and dureader scores, which
// need judgments, are left out, not reported as zeros.
func (r *runner) datasetWithoutQrels(c *dataset.Collection, name, source string, models []*Model, multi bool, dr *DatasetResult) (*DatasetResult, error) {
	dr.QrelsAbsent = true
	if !hasAnswers(r.cfg.Task) {
		return nil, fmt.Errorf("dataset %s: %w: there is no qrels/%s.tsv, which task %s scores runs against; with its answers (answers.jsonl), task %s measures DPR's answer accuracy instead",
			source, ErrNoQrels, r.cfg.Split, r.cfg.Task, TaskDPR)
	}
	src, answers := answerSource(c, r.cfg.Task)
	if answers == nil {
		return nil, fmt.Errorf("dataset %s has no relevance judgments (qrels) and no answers (answers.jsonl): task %s has nothing to measure", source, r.cfg.Task)
	}
	var queries []dataset.Query
	for _, q := range c.Queries {
		if _, ok := answers[q.ID]; ok {
			queries = append(queries, q)
		}
	}
	dr.Unanswered = len(c.Queries) - len(queries)
	dropped := "st and trec scores"
	if r.cfg.Task == TaskDuReader {
		dropped = "st, trec and dureader scores"
	}
	dr.Warnings = append(dr.Warnings, r.warn(name, "", "the dataset has no relevance judgments (no qrels/%s.tsv): only the answer accuracy is measured; the %s need judgments and are not computed", r.cfg.Split, dropped))
	if dr.Unanswered > 0 {
		dr.Warnings = append(dr.Warnings, r.warn(name, "", "%d of %d queries have no %s and are excluded", dr.Unanswered, dr.Queries, src))
	}
	if len(queries) == 0 {
		return nil, fmt.Errorf("dataset %s has no relevance judgments (qrels) and none of its %d queries has %s: nothing to evaluate", source, len(c.Queries), src)
	}
	td, err := r.prepareTask(c, name, queries, dr)
	if err != nil {
		return nil, err
	}
	td.noQrels = true
	return r.models(c, name, queries, nil, td, models, multi, dr)
}

// model evaluates model m on one collection.
func (r *runner) model(c *dataset.Collection, dsName, corpusHash string, queries []dataset.Query, qrels metrics.Qrels, td *taskData, m *Model, multi bool) (*ModelResult, error) {
	mr := &ModelResult{
		Model:                m.Name,
		Kind:                 m.Kind,
		Engine:               m.Engine,
		Fingerprint:          m.Fingerprint,
		TokenizerFingerprint: m.Tokenizer.Fingerprint(),
		Notes:                m.Notes,
	}
	if m.Kind == Lexical {
		mr.Analyzer = m.AnalyzerName
	} else {
		mr.Dim = m.Embedder.Dim()
	}
	start := time.Now()
	idx, cacheState, err := r.index(c, dsName, corpusHash, m)
	if err != nil {
		return nil, err
	}
	mr.CorpusCache = cacheState
	mr.CorpusSeconds = time.Since(start).Seconds()

	start = time.Now()
	rates := r.cfg.perturbedRates()
	seeds := r.cfg.seedList()
	tok := m.Tokenizer
	clean := make([][]int32, len(queries))
	for i, q := range queries {
		clean[i] = tok.EncodeIDs(q.Text)
	}
	// Every perturbed run's ids first, so that a dense model encodes all
	// distinct query sequences in one pass of full batches.
	type pending struct {
		rate     float64
		seed     uint64
		ids      [][]int32
		perturbs []perturb.Result
	}
	var runs []pending
	for _, rate := range rates {
		for _, seed := range seeds {
			pc := r.cfg.Perturbation
			pc.Rate, pc.Seed = rate, seed
			pids, presults, err := perturbQueries(pc, tok, queries, clean)
			if err != nil {
				return nil, err
			}
			runs = append(runs, pending{rate, seed, pids, presults})
		}
	}
	if w, ok := idx.(warmer); ok {
		all := append([][]int32(nil), clean...)
		names := make([]string, 0, len(queries)*(1+len(runs)))
		for _, q := range queries {
			names = append(names, q.ID)
		}
		for _, p := range runs {
			all = append(all, p.ids...)
			for _, q := range queries {
				names = append(names, q.ID)
			}
		}
		err := w.warm(r.ctx, all, names, func(done, total int) {
			r.emit(Event{Step: StepEncodeQueries, Dataset: dsName, Model: m.Name, Done: done, Total: total, Unit: "queries"})
		})
		if err != nil {
			return nil, err
		}
	}

	done, total := 0, 1+len(runs)
	tick := func() {
		done++
		r.emit(Event{Step: StepSearch, Dataset: dsName, Model: m.Name, Done: done, Total: total, Unit: "runs"})
	}
	prefix := ""
	if multi {
		prefix = dsName + "/"
	}
	cleanRun, err := r.search(idx, queries, clean)
	if err != nil {
		return nil, fmt.Errorf("clean run: %w", err)
	}
	mr.Clean, err = r.score(qrels, cleanRun, td)
	if err != nil {
		return nil, fmt.Errorf("scoring the clean run: %w", err)
	}
	if err := r.scoreTask(td, qrels, mr.Clean); err != nil {
		return nil, fmt.Errorf("scoring the clean run: %w", err)
	}
	mr.Clean.Name = safeKey(m.Name) + "__clean"
	mr.Clean.File = path.Join("runs", prefix+mr.Clean.Name+".trec")
	tick()

	for _, rate := range rates {
		var rateRuns []*RunResult
		var examples []Example
		for _, p := range runs {
			if p.rate != rate {
				continue
			}
			if err := r.ctx.Err(); err != nil {
				return nil, err
			}
			run, err := r.search(idx, queries, p.ids)
			if err != nil {
				return nil, fmt.Errorf("run at rate %v seed %d: %w", p.rate, p.seed, err)
			}
			rr, err := r.score(qrels, run, td)
			if err != nil {
				return nil, fmt.Errorf("scoring the run at rate %v seed %d: %w", p.rate, p.seed, err)
			}
			if err := r.scoreTask(td, qrels, rr); err != nil {
				return nil, fmt.Errorf("scoring the run at rate %v seed %d: %w", p.rate, p.seed, err)
			}
			rr.Rate, rr.Seed = p.rate, p.seed
			rr.Name = fmt.Sprintf("%s__rate%s__seed%d", safeKey(m.Name), FormatRate(p.rate), p.seed)
			rr.File = path.Join("runs", prefix+rr.Name+".trec")
			for _, pr := range p.perturbs {
				rr.ChangedTokens += pr.Changed
				rr.ConsideredTokens += pr.Considered
			}
			if rr.ConsideredTokens > 0 {
				rr.ChangedFraction = float64(rr.ChangedTokens) / float64(rr.ConsideredTokens)
			}
			if judged(td) {
				rr.VsClean, err = r.compare(mr.Clean, []*RunResult{rr}, r.res.STMeasures, true)
				if err != nil {
					return nil, err
				}
			}
			if len(rateRuns) == 0 && r.cfg.Examples > 0 {
				examples = pickExamples(p.perturbs, queries, p.rate, p.seed, r.cfg.Examples)
			}
			rateRuns = append(rateRuns, rr)
			tick()
		}
		sum, err := r.summarizeRate(mr.Clean, rate, seeds, rateRuns, td)
		if err != nil {
			return nil, err
		}
		mr.Perturbed = append(mr.Perturbed, rateRuns...)
		mr.Rates = append(mr.Rates, sum)
		mr.Examples = append(mr.Examples, examples...)
	}
	mr.QuerySeconds = time.Since(start).Seconds()
	return mr, nil
}

// FormatRate writes a rate as short as it reads, as run names do: 0.05,
// 0.1, 0.2.
func FormatRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// perturbQueries perturbs every query with config pc: id modes perturb
// the clean ids (the clean tokenization is reused); text modes perturb the
// text and tokenize it; vocabswap tokenizes with a copy of the tokenizer
// whose vocabulary has the config's pairs swapped (the attack is applied
// on purpose here, so the fingerprint defence is not involved).
func perturbQueries(pc perturb.Config, tok Tokenizer, queries []dataset.Query, clean [][]int32) ([][]int32, []perturb.Result, error) {
	ids := make([][]int32, len(queries))
	res := make([]perturb.Result, len(queries))
	var p *perturb.Perturber
	switch {
	case pc.Mode.IsText():
		p = &perturb.Perturber{Config: pc, Vocab: tok, Encode: tok.EncodeIDs}
	case pc.Mode == perturb.VocabSwap:
		sw, ok := tok.(Swapper)
		if !ok {
			return nil, nil, fmt.Errorf("%s: the tokenizer (%T) cannot make a tampered copy of itself", pc.Mode, tok)
		}
		pairs, err := perturb.Pairs(pc, tok)
		if err != nil {
			return nil, nil, err
		}
		bad, err := sw.Swapped(pairs)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", pc, err)
		}
		p = &perturb.Perturber{Config: pc, Vocab: tok, Encode: tok.EncodeIDs, PoisonedEncode: bad.EncodeIDs}
	}
	for i, q := range queries {
		var pr perturb.Result
		var err error
		switch {
		case pc.Mode.IsID():
			pr, err = perturb.IDs(pc, q.ID, clean[i], tok)
			pr.Text = q.Text
		case p != nil:
			pr, err = p.Apply(q.ID, q.Text)
		default:
			err = fmt.Errorf("perturbation mode %s is not supported by experiments", pc.Mode)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("perturbing query %q (%v): %w", q.ID, pc, err)
		}
		ids[i], res[i] = pr.PerturbedIDs, pr
	}
	return ids, res, nil
}

// pickExamples returns up to n perturbed queries that changed, in query
// order; when fewer changed, unchanged ones fill the list.
func pickExamples(res []perturb.Result, queries []dataset.Query, rate float64, seed uint64, n int) []Example {
	var out []Example
	add := func(changed bool) {
		for i, p := range res {
			if len(out) >= n {
				return
			}
			if (p.Changed > 0) != changed {
				continue
			}
			out = append(out, Example{
				QueryID: queries[i].ID, Rate: rate, Seed: seed, Text: queries[i].Text,
				Decoded: p.Decoded, PerturbedDecoded: p.PerturbedDecoded,
				Changed: p.Changed, Considered: p.Considered,
			})
		}
	}
	add(true)
	add(false)
	return out
}

// search runs one set of queries (their token ids) against idx in
// batches.
func (r *runner) search(idx index, queries []dataset.Query, ids [][]int32) (metrics.Run, error) {
	run := make(metrics.Run, len(queries))
	const chunk = 256
	for lo := 0; lo < len(queries); lo += chunk {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+chunk, len(queries))
		names := make([]string, hi-lo)
		for i := range names {
			names[i] = queries[lo+i].ID
		}
		lists, err := idx.search(ids[lo:hi], names, r.cfg.K)
		if err != nil {
			return nil, err
		}
		for i, l := range lists {
			run[queries[lo+i].ID] = l
		}
	}
	return run, nil
}

// score evaluates run under st and trec. Every searched query is in qrels
// and the averages are over all of them (Complete): a query that
// retrieved nothing scores 0. Without qrels (see judged) the run is kept
// unscored: ST, TREC and PerQuery stay nil.
func (r *runner) score(qrels metrics.Qrels, run metrics.Run, td *taskData) (*RunResult, error) {
	if !judged(td) {
		return &RunResult{Run: run}, nil
	}
	rr := &RunResult{Run: run, PerQuery: map[string]QueryValues{}}
	for _, conv := range []metrics.Convention{metrics.ConventionST, metrics.ConventionTREC} {
		ms := r.st
		if conv == metrics.ConventionTREC {
			ms = r.trec
		}
		res, err := metrics.Evaluate(qrels, run, ms, metrics.Options{Convention: conv, Complete: true})
		if err != nil {
			return nil, err
		}
		means := make(map[string]float64, len(ms))
		for i, m := range ms {
			means[m.String()] = res.All[i]
		}
		for qid, vals := range res.PerQuery {
			qv := rr.PerQuery[qid]
			per := make(map[string]float64, len(ms))
			for i, m := range ms {
				per[m.String()] = vals[i]
			}
			if conv == metrics.ConventionST {
				qv.ST = per
			} else {
				qv.TREC = per
			}
			rr.PerQuery[qid] = qv
		}
		// Complete: queries missing from the run score 0.
		for _, qid := range res.Missing {
			qv := rr.PerQuery[qid]
			per := make(map[string]float64, len(ms))
			for _, m := range ms {
				per[m.String()] = 0
			}
			if conv == metrics.ConventionST {
				qv.ST = per
			} else {
				qv.TREC = per
			}
			rr.PerQuery[qid] = qv
		}
		if conv == metrics.ConventionST {
			rr.ST, rr.STQueries = means, res.NumQ
		} else {
			rr.TREC, rr.TRECQueries = means, res.NumQ
		}
	}
	return rr, nil
}

// stGetter and trecGetter read a query's measure under st or trec.
func stGetter(name string) func(*RunResult, string) (float64, bool) {
	return func(rr *RunResult, qid string) (float64, bool) {
		v, ok := rr.PerQuery[qid].ST[name]
		return v, ok
	}
}

func trecGetter(name string) func(*RunResult, string) (float64, bool) {
	return func(rr *RunResult, qid string) (float64, bool) {
		v, ok := rr.PerQuery[qid].TREC[name]
		return v, ok
	}
}

// values returns, for the queries of clean that have a value (read by
// get), the clean value and the perturbed runs' values averaged over runs.
func values(clean *RunResult, runs []*RunResult, get func(*RunResult, string) (float64, bool)) (qids []string, a, b []float64) {
	// Every query searched is in PerQuery, or without qrels (PerQuery
	// nil) in the run; answer questions are a subset.
	keep := func(qid string) {
		if _, ok := get(clean, qid); ok {
			qids = append(qids, qid)
		}
	}
	if clean.PerQuery != nil {
		for qid := range clean.PerQuery {
			keep(qid)
		}
	} else {
		for qid := range clean.Run {
			keep(qid)
		}
	}
	slices.Sort(qids)
	kept := qids[:0]
	for _, qid := range qids {
		x, _ := get(clean, qid)
		var sum float64
		n := 0
		for _, rr := range runs {
			if y, ok := get(rr, qid); ok {
				sum += y
				n++
			}
		}
		if n == 0 {
			continue
		}
		kept = append(kept, qid)
		a = append(a, x)
		b = append(b, sum/float64(n))
	}
	return kept, a, b
}

// compare compares clean with runs averaged query by query, per st (or
// trec) measure.
func (r *runner) compare(clean *RunResult, runs []*RunResult, names []string, st bool) (map[string]Comparison, error) {
	if st {
		return r.compareBy(clean, runs, names, stGetter)
	}
	return r.compareBy(clean, runs, names, trecGetter)
}

// compareBy compares clean with runs averaged query by query, per name,
// reading values with getter(name). The tests of all names run together
// (metrics.PairedTests shares their random draws); each test's result
// equals its own metrics.PairedTest.
func (r *runner) compareBy(clean *RunResult, runs []*RunResult, names []string, getter func(string) func(*RunResult, string) (float64, bool)) (map[string]Comparison, error) {
	as := make([][]float64, len(names))
	bs := make([][]float64, len(names))
	for i, name := range names {
		_, as[i], bs[i] = values(clean, runs, getter(name))
	}
	res, err := pairedCompares(as, bs, r.cfg.Resamples, r.cfg.TestSeed)
	if err != nil {
		return nil, fmt.Errorf("comparing %s: %w", strings.Join(names, ", "), err)
	}
	out := make(map[string]Comparison, len(names))
	for i, name := range names {
		out[name] = res[i]
	}
	return out, nil
}

// summarizeRate summarises the runs of one rate over seeds; without qrels
// only the changed fraction and the task's answer accuracy.
func (r *runner) summarizeRate(clean *RunResult, rate float64, seeds []uint64, runs []*RunResult, td *taskData) (*RateSummary, error) {
	s := &RateSummary{Rate: rate, Seeds: seeds}
	stat := func(f func(*RunResult) float64) Stat {
		xs := make([]float64, len(runs))
		for i, rr := range runs {
			xs[i] = f(rr)
		}
		return NewStat(xs)
	}
	s.ChangedFraction = stat(func(rr *RunResult) float64 { return rr.ChangedFraction })
	if !judged(td) {
		if err := r.summarizeTask(clean, runs, s, td); err != nil {
			return nil, err
		}
		return s, nil
	}
	s.ST, s.TREC = map[string]Stat{}, map[string]Stat{}
	for _, name := range r.res.STMeasures {
		s.ST[name] = stat(func(rr *RunResult) float64 { return rr.ST[name] })
	}
	for _, name := range r.res.TRECMeasures {
		s.TREC[name] = stat(func(rr *RunResult) float64 { return rr.TREC[name] })
	}
	var err error
	if len(runs) == 1 && runs[0].VsClean != nil {
		// One seed: the drop is the run's own comparison with the clean
		// run (same values, same test seed), already computed.
		s.Drop = runs[0].VsClean
	} else if s.Drop, err = r.compare(clean, runs, r.res.STMeasures, true); err != nil {
		return nil, err
	}
	if s.TRECDrop, err = r.compare(clean, runs, r.res.TRECMeasures, false); err != nil {
		return nil, err
	}
	if err := r.summarizeTask(clean, runs, s, td); err != nil {
		return nil, err
	}
	return s, nil
}
