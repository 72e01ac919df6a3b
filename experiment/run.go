package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/dreval/dreval/results"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/perturb"
)

// runner holds one Run's state.
type runner struct {
	ctx      context.Context
	s        *Session // what earlier runs left to reuse
	cfg      Config
	progress func(Event)
	// scoring holds the measures of every convention the runs are
	// scored under (Conventions).
	scoring []scoring
	res     *results.Results
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
func Run(ctx context.Context, cfg Config, progress func(Event)) (*results.Results, error) {
	return NewSession().Run(ctx, cfg, progress)
}

// run is Run within session s.
func run(ctx context.Context, s *Session, cfg Config, progress func(Event)) (*results.Results, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	r := &runner{ctx: ctx, s: s, cfg: cfg, progress: progress}
	var err error
	if r.scoring, err = parseConventions(Conventions(cfg.Task)); err != nil {
		return nil, err
	}
	convs := make([]results.Measures, len(r.scoring))
	for i, s := range r.scoring {
		convs[i] = results.Measures{Convention: s.conv, Names: s.names}
	}
	r.res = &results.Results{
		Version:      cfg.Version,
		Config:       summarize(cfg),
		Spec:         ptr(cfg.Spec()),
		Conventions:  convs,
		Task:         string(cfg.Task),
		Significance: fmt.Sprintf("Tests are paired by query: two-sided randomization test (%d sign-flip permutations), paired t-test, percentile-bootstrap 95%% CI (%d resamples), seed %d", cfg.Resamples, cfg.Resamples, cfg.TestSeed),
	}
	for _, m := range cfg.AnswerModes {
		r.res.AnswerModes = append(r.res.AnswerModes, m.String())
	}
	var short []string
	for _, s := range r.scoring {
		if s.conv == metrics.ConventionDuReader {
			continue // the official script's own cut-off (50 candidates), checked below
		}
		for _, m := range s.measures {
			if m.Cutoff() > cfg.K {
				short = append(short, m.String())
			}
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
		dr, err := r.dataset(c, names[i], sources[i], models)
		if err != nil {
			return nil, err
		}
		r.res.Datasets = append(r.res.Datasets, dr)
	}
	if !cfg.DeferTests {
		if r.res.Average, err = r.averageDrops(); err != nil {
			return nil, err
		}
	}
	return r.res, nil
}

func summarize(cfg Config) results.ConfigSummary {
	data := append([]string(nil), cfg.Data...)
	for _, c := range cfg.Collections {
		data = append(data, c.Name)
	}
	return results.ConfigSummary{
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

// hashesOf returns c's hashes, its corpus's as Config.CorpusHashes gives
// it when it does.
func (r *runner) hashesOf(c *dataset.Collection) *collectionHashes {
	if i := slices.Index(r.cfg.Collections, c); i >= 0 && i < len(r.cfg.CorpusHashes) {
		return r.s.hashesWith(c, r.cfg.CorpusHashes[i])
	}
	return r.s.hashesOf(c)
}

// load loads cfg.Data and appends cfg.Collections.
func (r *runner) load() ([]*dataset.Collection, []string, error) {
	var colls []*dataset.Collection
	var sources []string
	for _, d := range r.cfg.Data {
		r.emit(Event{Step: StepLoad, Dataset: d, Message: "loading"})
		c, err := r.s.collection(d, r.cfg.Split)
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
func (r *runner) dataset(c *dataset.Collection, name, source string, models []*Model) (*results.DatasetResult, error) {
	if len(c.Corpus) == 0 {
		return nil, fmt.Errorf("dataset %s: the corpus is empty: nothing to retrieve", source)
	}
	st := c.Stats()
	hashes := r.hashesOf(c)
	dr := &results.DatasetResult{
		Name:               name,
		Source:             source,
		Split:              r.cfg.Split,
		SHA256:             hashes.collection,
		CorpusSHA256:       hashes.corpus,
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
		return r.datasetWithoutQrels(c, name, source, models, dr)
	}
	// The judged queries are searched; the qrels are cut to them, so that
	// every average is over the queries run (a query retrieving nothing
	// scores 0 rather than vanishing from the average).
	queries := searchedQueries(r.cfg.Task, c)
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
	return r.models(c, name, queries, qrels, td, models, dr)
}

// models evaluates every model on collection c's queries and adds the
// results to dr.
func (r *runner) models(c *dataset.Collection, name string, queries []dataset.Query, qrels metrics.Qrels, td *taskData, models []*Model, dr *results.DatasetResult) (*results.DatasetResult, error) {
	encodedHash := r.hashesOf(c).encodedHash(c, r.cfg.PassageText)
	for _, m := range models {
		mr, err := r.model(c, name, encodedHash, queries, qrels, td, m)
		if err != nil {
			return nil, fmt.Errorf("dataset %s, model %s: %w", name, m.Name, err)
		}
		dr.Models = append(dr.Models, mr)
	}
	return dr, nil
}

// searchedQueries returns the queries Run searches on c: the judged ones,
// or for a collection without qrels (NoQrels) those with answers of the
// task's kind (answerSource).
func searchedQueries(task Task, c *dataset.Collection) []dataset.Query {
	if !c.NoQrels {
		return c.JudgedQueries()
	}
	_, answers := answerSource(c, task)
	var queries []dataset.Query
	for _, q := range c.Queries {
		if _, ok := answers[q.ID]; ok {
			queries = append(queries, q)
		}
	}
	return queries
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
func (r *runner) datasetWithoutQrels(c *dataset.Collection, name, source string, models []*Model, dr *results.DatasetResult) (*results.DatasetResult, error) {
	dr.QrelsAbsent = true
	if !hasAnswers(r.cfg.Task) {
		return nil, fmt.Errorf("dataset %s: %w: there is no qrels/%s.tsv, which task %s scores runs against; with its answers (answers.jsonl), task %s measures DPR's answer accuracy instead",
			source, ErrNoQrels, r.cfg.Split, r.cfg.Task, TaskDPR)
	}
	src, answers := answerSource(c, r.cfg.Task)
	if answers == nil {
		return nil, fmt.Errorf("dataset %s has no relevance judgments (qrels) and no answers (answers.jsonl): task %s has nothing to measure", source, r.cfg.Task)
	}
	queries := searchedQueries(r.cfg.Task, c)
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
	return r.models(c, name, queries, nil, td, models, dr)
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }
