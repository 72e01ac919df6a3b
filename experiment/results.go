package experiment

import (
	"math"

	"github.com/dreval/dreval/metrics"
)

// Results is everything an experiment produced, as plain data: the
// configuration it ran with, what it read, and for every dataset and model
// the clean run, each perturbed run, per-query values and summaries over
// seeds. It is JSON-tagged; package report renders it without knowing how
// it was computed.
type Results struct {
	// Version is dreval's version.
	Version string `json:"dreval_version"`
	// Config is the configuration, with defaults filled in.
	Config ConfigSummary `json:"config"`
	// STMeasures and TRECMeasures are the measure names, in table order,
	// of the st and trec conventions (the keys of RunResult.ST and .TREC).
	STMeasures   []string `json:"st_measures"`
	TRECMeasures []string `json:"trec_measures"`
	// Task is the configuration's task (TaskIR, TaskDPR, TaskDuReader).
	Task string `json:"task"`
	// DuReaderMeasures are the keys of RunResult.DuReader (task
	// dureader); AnswerModes the keys of RunResult.Answers.
	DuReaderMeasures []string `json:"dureader_measures,omitempty"`
	AnswerModes      []string `json:"answer_modes,omitempty"`
	// Significance describes the paired tests behind every Comparison.
	Significance string `json:"significance"`
	// Datasets holds one entry per dataset, in the order given.
	Datasets []*DatasetResult `json:"datasets"`
	// Warnings collects every dataset's and model's warnings, prefixed by
	// what they concern.
	Warnings []string `json:"warnings,omitempty"`
	// Average holds, with several datasets with qrels, each model's
	// change from clean at every rate averaged over them (the paper's
	// Table 3); nil with fewer than two (datasets without qrels have no
	// st values to average).
	Average []*AverageDrop `json:"average_drops,omitempty"`
}

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

// DatasetResult is one dataset's part of Results.
type DatasetResult struct {
	// Name is the name used in tables and file names; Source is what was
	// asked for ("demo" or a directory).
	Name   string `json:"name"`
	Source string `json:"source"`
	Split  string `json:"split"`
	// SHA256 is the hash of the corpus, queries and qrels (see
	// CollectionHash); CorpusSHA256 the corpus's alone (see CorpusHash).
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
	// the answer accuracy only: no st, trec or dureader values, no
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

// RunResult is one run: the clean one or one (rate, seed).
type RunResult struct {
	// Name identifies the run, as in "minilm__rate0.05__seed1"; File is the
	// path of its TREC run file relative to the output directory.
	Name string  `json:"name"`
	File string  `json:"file"`
	Rate float64 `json:"rate"`
	Seed uint64  `json:"seed,omitempty"`
	// ChangedTokens of ConsideredTokens query tokens were changed by the
	// perturbation, a fraction ChangedFraction.
	ChangedTokens    int     `json:"changed_tokens"`
	ConsideredTokens int     `json:"considered_tokens"`
	ChangedFraction  float64 `json:"changed_fraction"`
	// ST and TREC map measure names to the mean over evaluated queries;
	// nil, as PerQuery and VsClean are, on a dataset without qrels
	// (DatasetResult.QrelsAbsent).
	ST   map[string]float64 `json:"st"`
	TREC map[string]float64 `json:"trec"`
	// STQueries and TRECQueries count the queries averaged over.
	STQueries   int `json:"st_queries"`
	TRECQueries int `json:"trec_queries"`
	// PerQuery maps a query id to its values under each convention.
	PerQuery map[string]QueryValues `json:"per_query"`
	// VsClean compares this run with the clean one, per st measure
	// (perturbed minus clean); nil for the clean run.
	VsClean map[string]Comparison `json:"vs_clean,omitempty"`
	// DuReader maps the dureader measures to their means over the
	// reference queries, DuReaderQueries of them (task dureader).
	DuReader        map[string]float64 `json:"dureader,omitempty"`
	DuReaderQueries int                `json:"dureader_queries,omitempty"`
	// Answers maps an answer matching mode ("string", "substring") to the
	// run's answer-span accuracy (tasks dpr and dureader).
	Answers map[string]*AnswerAccuracy `json:"answers,omitempty"`
	// Run is the ranking itself, written to File by package report.
	Run metrics.Run `json:"-"`
}

// QueryValues is one query's measure values under st and trec. A query
// the st convention drops (no relevant document) has no ST map.
type QueryValues struct {
	ST   map[string]float64 `json:"st,omitempty"`
	TREC map[string]float64 `json:"trec,omitempty"`
	// DuReader holds the dureader measures (task dureader).
	DuReader map[string]float64 `json:"dureader,omitempty"`
}

// Stat is a mean and sample standard deviation over N values (SD is 0
// when N < 2).
type Stat struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	N    int     `json:"n"`
}

// NewStat returns the mean and sample standard deviation of xs.
func NewStat(xs []float64) Stat {
	s := Stat{N: len(xs)}
	if len(xs) == 0 {
		return s
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	s.Mean = sum / float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			d := x - s.Mean
			ss += d * d
		}
		s.SD = math.Sqrt(ss / float64(len(xs)-1))
	}
	return s
}

// RateSummary summarises the runs of one rate over its seeds.
type RateSummary struct {
	Rate  float64  `json:"rate"`
	Seeds []uint64 `json:"seeds"`
	// ST and TREC: mean and SD over seeds of each measure's mean; nil,
	// as Drop and TRECDrop are, on a dataset without qrels.
	ST   map[string]Stat `json:"st"`
	TREC map[string]Stat `json:"trec"`
	// ChangedFraction: mean and SD over seeds of the changed fraction.
	ChangedFraction Stat `json:"changed_fraction"`
	// Drop compares, per st measure, the clean run with the perturbed
	// runs averaged over seeds query by query (perturbed minus clean).
	Drop map[string]Comparison `json:"drop"`
	// TRECDrop is Drop for the trec measures.
	TRECDrop map[string]Comparison `json:"trec_drop"`
	// DuReader and DuReaderDrop are ST and Drop for the dureader measures
	// (task dureader).
	DuReader     map[string]Stat       `json:"dureader,omitempty"`
	DuReaderDrop map[string]Comparison `json:"dureader_drop,omitempty"`
	// Answers maps a matching mode to the accuracy at each answer
	// cut-off, mean and SD over seeds; AnswerDrop to the paired
	// comparison of each question's hit@k indicator (clean against the
	// perturbed runs averaged over seeds).
	Answers    map[string][]Stat       `json:"answers,omitempty"`
	AnswerDrop map[string][]Comparison `json:"answer_drop,omitempty"`
}

// AverageDrop is one model's change at one rate on one st measure,
// averaged over the datasets: the paper's Table 3.
type AverageDrop struct {
	Model   string  `json:"model"`
	Rate    float64 `json:"rate"`
	Measure string  `json:"measure"`
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

// Comparison is a paired comparison of two runs on one measure: the mean
// of the per-query differences (B minus A), two-sided p-values of a paired
// randomization test and a paired t-test, and a bootstrap confidence
// interval of the mean difference.
type Comparison struct {
	MeanA          Float `json:"mean_a"`
	MeanB          Float `json:"mean_b"`
	MeanDiff       Float `json:"mean_diff"`
	PRandomization Float `json:"p_randomization"`
	PTTest         Float `json:"p_ttest"`
	CILow          Float `json:"ci_low"`
	CIHigh         Float `json:"ci_high"`
	N              int   `json:"n"`
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
