package results

import (
	"strconv"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/spec"
)

// Results is everything an experiment produced: the configuration it ran
// with, what it read, and for every dataset and model the clean run, each
// perturbed run, per-query values and summaries over seeds.
type Results struct {
	// Version is dreval's version.
	Version string `json:"dreval_version"`
	// Config is the configuration, with defaults filled in.
	Config ConfigSummary `json:"config"`
	// Spec describes the experiment as it ran, its defaults filled in:
	// "dreval eval -spec results.json" runs it again.
	Spec *spec.Spec `json:"spec,omitempty"`
	// Conventions are the conventions every run of a dataset with qrels
	// was scored under, in table order, with their measures: the keys of
	// RunResult.Means and of the other values keyed by convention.
	Conventions []Measures `json:"conventions"`
	// Task is the configuration's task ("ir", "dpr", "dureader").
	Task string `json:"task"`
	// AnswerModes are the keys of RunResult.Answers (tasks dpr and
	// dureader).
	AnswerModes []string `json:"answer_modes,omitempty"`
	// Significance describes the paired tests behind every Comparison.
	Significance string `json:"significance"`
	// Datasets holds one entry per dataset, in the order given.
	Datasets []*DatasetResult `json:"datasets"`
	// Warnings collects every dataset's and model's warnings, prefixed by
	// what they concern.
	Warnings []string `json:"warnings,omitempty"`
	// Average holds, with several datasets with qrels, each model's
	// change from clean at every rate averaged over them on the paper's
	// measures (the paper's Table 3); nil with fewer than two (datasets
	// without qrels have no values to average).
	Average []*AverageDrop `json:"average_drops,omitempty"`
}

// Measures returns the measures scored under convention c, in table
// order; nil when c was not scored.
func (r *Results) Measures(c metrics.Convention) []string {
	for _, m := range r.Conventions {
		if m.Convention == c {
			return m.Names
		}
	}
	return nil
}

// Scored reports whether the runs were scored under convention c.
func (r *Results) Scored(c metrics.Convention) bool { return r.Measures(c) != nil }

// ConfigSummary is the configuration recorded in Results.
type ConfigSummary struct {
	Data           []string  `json:"data"`
	Split          string    `json:"split"`
	Models         []string  `json:"models"`
	Perturbation   string    `json:"perturbation"`
	OOV            string    `json:"oov,omitempty"`
	ProtectSpecial bool      `json:"protect_special"`
	Rates          []float64 `json:"rates"`
	Seeds          []uint64  `json:"seeds"`
	K              int       `json:"k"`
	Engine         string    `json:"engine"`
	Analyzer       string    `json:"analyzer"`
	Resamples      int       `json:"resamples"`
	TestSeed       uint64    `json:"test_seed"`
	Task           string    `json:"task"`
	PassageText    bool      `json:"passage_text"`
	AnswerKs       []int     `json:"answer_ks,omitempty"`
}

// PerturbedRates returns the configuration's rates above 0, in order.
func (c ConfigSummary) PerturbedRates() []float64 {
	var out []float64
	for _, r := range c.Rates {
		if r > 0 {
			out = append(out, r)
		}
	}
	return out
}

// DatasetResult is one dataset's part of Results.
type DatasetResult struct {
	// Name is the name used in tables and file names; Source is what was
	// asked for ("demo" or a directory).
	Name   string `json:"name"`
	Source string `json:"source"`
	Split  string `json:"split"`
	// SHA256 is the hash of the corpus, queries and qrels;
	// CorpusSHA256 the corpus's alone.
	SHA256       string `json:"sha256"`
	CorpusSHA256 string `json:"corpus_sha256"`
	Docs         int    `json:"docs"`
	Queries      int    `json:"queries"`
	// Judged is the number of queries with at least one judgment: the
	// queries searched. Unjudged were excluded and are counted here.
	Judged   int `json:"judged_queries"`
	Unjudged int `json:"unjudged_queries"`
	// QrelsAbsent reports a dataset without relevance judgments (a
	// DPR-style question set: answers.jsonl and no qrels). Its searched
	// queries are the questions with answers (Answers.Questions of
	// them); Judged and Unjudged are 0, Qrels is nil, and its runs hold
	// the answer accuracy only: no values keyed by convention, no
	// comparisons of them.
	QrelsAbsent bool `json:"qrels_absent"`
	// Unanswered counts the queries of a dataset without qrels that have
	// no answers entry: they were excluded.
	Unanswered int `json:"unanswered_queries,omitempty"`
	// NoRelevant counts judged queries without a relevant document: the st
	// convention drops them from its averages, trec scores them 0.
	NoRelevant int `json:"queries_without_relevant"`
	// AbsentDocs counts documents named by the qrels but absent from the
	// corpus, AbsentDocJudgments the judgments naming them.
	AbsentDocs         int            `json:"qrels_absent_docs"`
	AbsentDocJudgments int            `json:"qrels_absent_doc_judgments"`
	Warnings           []string       `json:"warnings,omitempty"`
	Models             []*ModelResult `json:"models"`
	// Answers describes the questions of the answer accuracy (tasks dpr
	// and dureader); nil otherwise.
	Answers *AnswerSummary `json:"answers,omitempty"`
	// Qrels are the judgments of the evaluated queries, the ones every
	// run was scored against; package report writes them beside the runs.
	// Nil when QrelsAbsent.
	Qrels metrics.Qrels `json:"-"`
}

// Model returns the result of the model called name, or nil.
func (d *DatasetResult) Model(name string) *ModelResult {
	for _, m := range d.Models {
		if m.Model == name {
			return m
		}
	}
	return nil
}

// Kind says how a model retrieves.
type Kind string

// The model kinds.
const (
	// Dense models embed queries and documents and rank by similarity.
	Dense Kind = "dense"
	// Lexical models (BM25) rank by term statistics over an analyser's
	// terms.
	Lexical Kind = "lexical"
)

// ModelResult is one model's runs on one dataset.
type ModelResult struct {
	Model                string `json:"model"`
	Kind                 Kind   `json:"kind"`
	Engine               string `json:"engine,omitempty"`
	Analyzer             string `json:"analyzer,omitempty"`
	Fingerprint          string `json:"fingerprint"`
	TokenizerFingerprint string `json:"tokenizer_fingerprint"`
	Dim                  int    `json:"dim,omitempty"`
	// Notes are the model's remarks, such as why an engine was chosen.
	Notes []string `json:"notes,omitempty"`
	// Score is how a dense model scored ("cos" or "dot"), ScoreFrom where
	// that came from ("model", "manifest", "option", "default"), Towers
	// its number of encoders (1 or 2), and Query and Document its sides.
	Score     string       `json:"score,omitempty"`
	ScoreFrom string       `json:"score_from,omitempty"`
	Towers    int          `json:"towers,omitempty"`
	Query     *TowerResult `json:"query_tower,omitempty"`
	Document  *TowerResult `json:"document_tower,omitempty"`
	// CorpusCache says where the corpus vectors came from: "hit" (the
	// cache), "stored" (encoded and stored), "encoded" (no cache), or ""
	// for lexical models.
	CorpusCache string `json:"corpus_cache,omitempty"`
	// Clean is the unperturbed run (rate 0), computed once.
	Clean *RunResult `json:"clean"`
	// Perturbed holds one run per (rate > 0, seed), rates outer.
	Perturbed []*RunResult `json:"perturbed"`
	// Rates summarises each rate > 0 over its seeds.
	Rates []*RateSummary `json:"rates"`
	// Examples are decoded perturbed queries (the paper's Table 1).
	Examples []Example `json:"examples"`
	// Seconds spent encoding the corpus (or indexing it) and on the query
	// runs; they vary between machines and runs.
	CorpusSeconds float64 `json:"corpus_seconds"`
	QuerySeconds  float64 `json:"query_seconds"`
}

// Runs returns the clean run followed by the perturbed ones.
func (m *ModelResult) Runs() []*RunResult {
	return append([]*RunResult{m.Clean}, m.Perturbed...)
}

// Rate returns the summary of rate, or nil when it was not run.
func (m *ModelResult) Rate(rate float64) *RateSummary {
	for _, rs := range m.Rates {
		if rs.Rate == rate {
			return rs
		}
	}
	return nil
}

// Run returns the perturbed run of (rate, seed), or nil.
func (m *ModelResult) Run(rate float64, seed uint64) *RunResult {
	for _, rr := range m.Perturbed {
		if rr.Rate == rate && rr.Seed == seed {
			return rr
		}
	}
	return nil
}

// TowerResult describes one side of a dense model: its folder, the
// engine that ran it, its fingerprints, what it does after the
// transformer, its prompt and maximum length.
type TowerResult struct {
	Dir                  string `json:"dir,omitempty"`
	Engine               string `json:"engine,omitempty"`
	Fingerprint          string `json:"fingerprint"`
	TokenizerFingerprint string `json:"tokenizer_fingerprint"`
	Head                 string `json:"head,omitempty"`
	Prompt               string `json:"prompt,omitempty"`
	MaxLength            int    `json:"max_length,omitempty"`
}

// RunResult is one run: the clean one or one (rate, seed).
type RunResult struct {
	// Name identifies the run, as in "minilm__rate0.05__seed1"; it is
	// the run's tag in its TREC file.
	Name string  `json:"name"`
	Rate float64 `json:"rate"`
	Seed uint64  `json:"seed,omitempty"`
	// ChangedTokens of ConsideredTokens query tokens were changed by the
	// perturbation, a fraction ChangedFraction.
	ChangedTokens    int     `json:"changed_tokens"`
	ConsideredTokens int     `json:"considered_tokens"`
	ChangedFraction  float64 `json:"changed_fraction"`
	// Means maps every convention of Results.Conventions to its
	// measures' means over the evaluated queries, Queries of them; nil,
	// as PerQuery and VsClean are, on a dataset without qrels
	// (DatasetResult.QrelsAbsent).
	Means   Values                     `json:"means,omitempty"`
	Queries map[metrics.Convention]int `json:"queries,omitempty"`
	// PerQuery maps a query id to its values under each convention; a
	// query a convention drops (st: no relevant document) has no values
	// under it. experiment.Run shares a query's maps between the runs of
	// one model whose values for it are the same: they are read-only.
	PerQuery map[string]Values `json:"per_query,omitempty"`
	// VsClean compares this run with the clean one on the paper's
	// measures (the st convention; perturbed minus clean); nil for the
	// clean run.
	VsClean Comparisons `json:"vs_clean,omitempty"`
	// Answers maps an answer matching mode ("string", "substring") to the
	// run's answer-span accuracy (tasks dpr and dureader).
	Answers map[string]*AnswerAccuracy `json:"answers,omitempty"`
	// Run is the ranking itself, written to a TREC file by package
	// report.
	Run metrics.Run `json:"-"`
}

// Value returns query qid's value of measure under convention c.
func (rr *RunResult) Value(c metrics.Convention, measure, qid string) (float64, bool) {
	return rr.PerQuery[qid].Get(c, measure)
}

// RateSummary summarises the runs of one rate over its seeds.
type RateSummary struct {
	Rate  float64  `json:"rate"`
	Seeds []uint64 `json:"seeds"`
	// Stats: mean and SD over seeds of each measure's mean, keyed by
	// convention; nil, as Drop is, on a dataset without qrels.
	Stats Stats `json:"stats,omitempty"`
	// ChangedFraction: mean and SD over seeds of the changed fraction.
	ChangedFraction Stat `json:"changed_fraction"`
	// Drop compares, per convention and measure, the clean run with the
	// perturbed runs averaged over seeds query by query (perturbed minus
	// clean).
	Drop Comparisons `json:"drop,omitempty"`
	// Answers maps a matching mode to the accuracy at each answer
	// cut-off, mean and SD over seeds; AnswerDrop to the paired
	// comparison of each question's hit@k indicator (clean against the
	// perturbed runs averaged over seeds).
	Answers    map[string][]Stat       `json:"answers,omitempty"`
	AnswerDrop map[string][]Comparison `json:"answer_drop,omitempty"`
}

// AverageDrop is one model's change at one rate on one measure of the
// paper's convention, averaged over the datasets: the paper's Table 3.
type AverageDrop struct {
	Model      string             `json:"model"`
	Rate       float64            `json:"rate"`
	Convention metrics.Convention `json:"convention"`
	Measure    string             `json:"measure"`
	// Clean and Perturbed are the means over datasets of the clean value
	// and of the perturbed value (mean over seeds).
	Clean     float64 `json:"clean"`
	Perturbed float64 `json:"perturbed"`
	// Drop is Clean minus Perturbed; Relative is Drop / Clean (NaN when
	// Clean is 0).
	Drop     Float `json:"drop"`
	Relative Float `json:"relative"`
	// Pooled is the paired comparison over the queries of every dataset
	// pooled (clean against perturbed averaged over seeds; perturbed
	// minus clean).
	Pooled Comparison `json:"pooled"`
	// Datasets is the number of datasets averaged.
	Datasets int `json:"datasets"`
}

// Example is one query before and after perturbation, decoded with the
// clean vocabulary, special tokens shown.
type Example struct {
	QueryID          string  `json:"query_id"`
	Rate             float64 `json:"rate"`
	Seed             uint64  `json:"seed"`
	Text             string  `json:"text"`
	Decoded          string  `json:"decoded"`
	PerturbedDecoded string  `json:"perturbed_decoded"`
	Changed          int     `json:"changed"`
	Considered       int     `json:"considered"`
}

// AnswerSummary describes the questions of a dataset's answer-span
// accuracy: where the answers came from and which searched queries count
// as misses whatever is retrieved.
type AnswerSummary struct {
	// Source is "answers" (answers.jsonl's answers) or "extractive
	// answers" (DuReader's fake_answers).
	Source string `json:"source"`
	// Questions is the denominator of every accuracy: the searched
	// queries with answers, the unanswerable ones included.
	Questions int `json:"questions"`
	// Unanswerable lists the questions no passage can answer by span (all
	// answers yes or no): misses in every run, kept in the denominator.
	Unanswerable []string `json:"unanswerable"`
	// WithoutAnswers lists the searched queries with no answers entry:
	// they are not questions and are not in the denominator.
	WithoutAnswers []string `json:"without_answers,omitempty"`
}

// AnswerAccuracy is one run's answer-span top-k accuracy in one matching
// mode (see package answer).
type AnswerAccuracy struct {
	Ks       []int     `json:"ks"`
	Accuracy []float64 `json:"accuracy"`
	Hits     []int     `json:"hits"`
	// Questions is the denominator.
	Questions      int `json:"questions"`
	MissingFromRun int `json:"missing_from_run"`
	Unanswerable   int `json:"unanswerable"`
	EmptyAnswers   int `json:"empty_answers"`
	// FirstHit maps every question to the rank of its first
	// answer-bearing passage (0: none).
	FirstHit map[string]int `json:"first_hit"`
}

// Hit returns question qid's hit@k indicator (1 when an answer-bearing
// passage is within the top k), and whether qid is a question of a.
func (a *AnswerAccuracy) Hit(qid string, k int) (float64, bool) {
	r, ok := a.FirstHit[qid]
	if !ok {
		return 0, false
	}
	if r >= 1 && r <= k {
		return 1, true
	}
	return 0, true
}

// FormatRate writes a rate as short as it reads, as run names do: 0.05,
// 0.1, 0.2.
func FormatRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// KeepExamples returns a copy of r in which every model keeps, per rate
// and seed, only its first n examples: what an experiment run with n
// examples holds (experiment.Config.Examples; the browser app decodes
// every query for its inspector and exports what the command line
// writes). The copy shares everything else with r.
func (r *Results) KeepExamples(n int) *Results {
	cp := *r
	cp.Datasets = make([]*DatasetResult, len(r.Datasets))
	for i, ds := range r.Datasets {
		d := *ds
		d.Models = make([]*ModelResult, len(ds.Models))
		for j, m := range ds.Models {
			mc := *m
			mc.Examples = nil
			count := map[[2]float64]int{}
			for _, e := range m.Examples {
				k := [2]float64{e.Rate, float64(e.Seed)}
				if count[k] < n {
					mc.Examples = append(mc.Examples, e)
					count[k]++
				}
			}
			d.Models[j] = &mc
		}
		cp.Datasets[i] = &d
	}
	return &cp
}
