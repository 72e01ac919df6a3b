package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/dreval/dreval/answer"
	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/metrics"
)

// Task chooses what an experiment scores beside st and trec
// (Config.Task).
type Task string

// The tasks.
const (
	// TaskIR scores the runs against the qrels under st and trec (the
	// default).
	TaskIR Task = "ir"
	// TaskDPR adds DPR's answer-span top-k accuracy, with the answers of
	// the collection's answers.jsonl (string match by default).
	TaskDPR Task = "dpr"
	// TaskDuReader adds the DuReader_retrieval convention (MRR@10,
	// recall@1, recall@50) and the answer-span accuracy of DuReader's
	// extractive answers (string and substring matches by default).
	TaskDuReader Task = "dureader"
)

// Tasks returns the tasks (a new slice each call).
func Tasks() []Task { return []Task{TaskIR, TaskDPR, TaskDuReader} }

// ParseTask returns the task named s ("ir", "dpr" or "dureader").
func ParseTask(s string) (Task, error) {
	return parseName(s, "task", Tasks())
}

// parseName returns the one of known named s, or an error naming what
// (an option) and the names accepted.
func parseName[T ~string](s, what string, known []T) (T, error) {
	for _, k := range known {
		if string(k) == s {
			return k, nil
		}
	}
	names := make([]string, len(known))
	for i, k := range known {
		names[i] = string(k)
	}
	return "", fmt.Errorf("unknown %s %q: want %s", what, s, strings.Join(names, ", "))
}

// DuReaderMeasures are the DuReader_retrieval official script's measures.
var DuReaderMeasures = []string{"MRR@10", "recall@1", "recall@50"}

// hasAnswers reports whether the task measures answer-span accuracy.
func hasAnswers(task Task) bool { return task == TaskDPR || task == TaskDuReader }

// defaultAnswerModes returns the answer modes of task.
func defaultAnswerModes(task Task) []answer.Mode {
	switch task {
	case TaskDPR:
		return []answer.Mode{answer.String}
	case TaskDuReader:
		return []answer.Mode{answer.String, answer.Substring}
	}
	return nil
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

// hit returns the question's hit@k indicator.
func (a *AnswerAccuracy) hit(qid string, k int) (float64, bool) {
	r, ok := a.FirstHit[qid]
	if !ok {
		return 0, false
	}
	if r >= 1 && r <= k {
		return 1, true
	}
	return 0, true
}

// taskData is what a dataset needs for the task's extra scores.
type taskData struct {
	questions []answer.Question
	passages  *answer.Passages
	opts      answer.Options
	// noQrels: the dataset has no relevance judgments, so only the
	// answer accuracy is measured.
	noQrels bool
}

// judged reports whether the runs of the dataset td belongs to are scored
// against qrels (td is nil for task ir, which always has them).
func judged(td *taskData) bool { return td == nil || !td.noQrels }

// answerSource returns the answers the task measures the answer accuracy
// with, and their name: DuReader's extractive answers for task dureader
// when the collection has them, else answers.jsonl's answers.
func answerSource(c *dataset.Collection, task Task) (string, map[string][]string) {
	if task == TaskDuReader && c.ExtractiveAnswers != nil {
		return "extractive answers", c.ExtractiveAnswers
	}
	return "answers", c.Answers
}

// prepareTask builds the dataset's questions for the answer accuracy; it
// returns nil when the task has none.
func (r *runner) prepareTask(c *dataset.Collection, name string, queries []dataset.Query, dr *DatasetResult) (*taskData, error) {
	if !hasAnswers(r.cfg.Task) {
		return nil, nil
	}
	src, answers := answerSource(c, r.cfg.Task)
	if answers == nil && r.cfg.Task == TaskDuReader {
		dr.Warnings = append(dr.Warnings, r.warn(name, "", "the dataset has no answers (answers.jsonl): no answer accuracy, only the dureader convention"))
		return nil, nil
	}
	if answers == nil {
		return nil, fmt.Errorf("dataset %s has no answers (answers.jsonl): task %s measures answer-span accuracy and needs them", name, r.cfg.Task)
	}
	qs, without := answer.QuestionsFor(queries, answers)
	if len(qs) == 0 {
		return nil, fmt.Errorf("dataset %s: none of the %d searched queries has %s: task %s has nothing to measure", name, len(queries), src, r.cfg.Task)
	}
	p, err := answer.NewPassages(c.Corpus)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", name, err)
	}
	// Questions the collection declares not answerable by span (HotpotQA's
	// yes/no questions, yesno_query_ids.txt) count as misses; without such
	// a declaration every answer is matched, as DPR does (SQuAD's "yes"
	// answers are real spans).
	un := map[string]string{}
	for _, q := range qs {
		if c.NotSpans[q.ID] {
			un[q.ID] = "not a passage span (" + dataset.NotSpansFile + ")"
		}
	}
	sum := &AnswerSummary{Source: src, Questions: len(qs), WithoutAnswers: without, Unanswerable: []string{}}
	for id := range un {
		sum.Unanswerable = append(sum.Unanswerable, id)
	}
	slices.Sort(sum.Unanswerable)
	dr.Answers = sum
	if len(without) > 0 {
		dr.Warnings = append(dr.Warnings, r.warn(name, "", "%d of %d searched queries have no %s: they are left out of the answer accuracy", len(without), len(queries), src))
	}
	var deep []string
	for _, k := range r.cfg.AnswerKs {
		if k > r.cfg.K {
			deep = append(deep, fmt.Sprint(k))
		}
	}
	if len(deep) > 0 {
		dr.Warnings = append(dr.Warnings, r.warn(name, "", "answer cut-offs %s exceed k = %d: their accuracy is that of the top %d", strings.Join(deep, ", "), r.cfg.K, r.cfg.K))
	}
	if len(un) > 0 {
		dr.Warnings = append(dr.Warnings, r.warn(name, "", "%d of %d questions have answers that are not passage spans (yes/no, listed in %s): they count as misses in every answer accuracy", len(un), len(qs), dataset.NotSpansFile))
	}
	return &taskData{questions: qs, passages: p, opts: answer.Options{Ks: r.cfg.AnswerKs, Unanswerable: un}}, nil
}

// scoreTask adds the task's scores to rr: the answer accuracy in every
// mode, and the dureader convention.
func (r *runner) scoreTask(td *taskData, qrels metrics.Qrels, rr *RunResult) error {
	if td != nil {
		rr.Answers = map[string]*AnswerAccuracy{}
		for _, mode := range r.cfg.AnswerModes {
			o := td.opts
			o.Mode = mode
			res, err := answer.TopK(rr.Run, td.questions, td.passages, o)
			if err != nil {
				return fmt.Errorf("answer accuracy (%s): %w", mode, err)
			}
			rr.Answers[mode.String()] = &AnswerAccuracy{
				Ks: res.Ks, Accuracy: res.Accuracy, Hits: res.Hits, Questions: res.Questions,
				MissingFromRun: len(res.MissingFromRun), Unanswerable: len(res.Unanswerable),
				EmptyAnswers: len(res.EmptyAnswers), FirstHit: res.FirstHit,
			}
		}
	}
	if r.cfg.Task != TaskDuReader || !judged(td) {
		return nil
	}
	ms, err := parseInOrder(DuReaderMeasures, metrics.ConventionDuReader)
	if err != nil {
		return err
	}
	res, err := metrics.Evaluate(qrels, rr.Run, ms, metrics.Options{Convention: metrics.ConventionDuReader, Complete: true})
	if err != nil {
		return fmt.Errorf("dureader convention: %w", err)
	}
	rr.DuReader = make(map[string]float64, len(ms))
	for i, m := range ms {
		rr.DuReader[m.String()] = res.All[i]
	}
	rr.DuReaderQueries = res.NumQ
	set := func(qid string, vals []float64) {
		qv := rr.PerQuery[qid]
		qv.DuReader = make(map[string]float64, len(ms))
		for i, m := range ms {
			v := 0.0
			if vals != nil {
				v = vals[i]
			}
			qv.DuReader[m.String()] = v
		}
		rr.PerQuery[qid] = qv
	}
	for qid, vals := range res.PerQuery {
		set(qid, vals)
	}
	for _, qid := range res.Missing {
		set(qid, nil)
	}
	return nil
}

// dureaderGetter reads a dureader measure of a query.
func dureaderGetter(name string) func(*RunResult, string) (float64, bool) {
	return func(rr *RunResult, qid string) (float64, bool) {
		v, ok := rr.PerQuery[qid].DuReader[name]
		return v, ok
	}
}

// answerGetter reads a question's hit@k in mode.
func answerGetter(mode string, k int) func(*RunResult, string) (float64, bool) {
	return func(rr *RunResult, qid string) (float64, bool) {
		a := rr.Answers[mode]
		if a == nil {
			return 0, false
		}
		return a.hit(qid, k)
	}
}

// summarizeTask adds the task's summaries over seeds to s.
func (r *runner) summarizeTask(clean *RunResult, runs []*RunResult, s *RateSummary, td *taskData) error {
	if r.cfg.Task == TaskDuReader && judged(td) {
		s.DuReader = map[string]Stat{}
		for _, name := range r.res.DuReaderMeasures {
			xs := make([]float64, len(runs))
			for i, rr := range runs {
				xs[i] = rr.DuReader[name]
			}
			s.DuReader[name] = NewStat(xs)
		}
		var err error
		if s.DuReaderDrop, err = r.compareBy(clean, runs, r.res.DuReaderMeasures, dureaderGetter); err != nil {
			return err
		}
	}
	if clean.Answers == nil {
		return nil
	}
	s.Answers = map[string][]Stat{}
	s.AnswerDrop = map[string][]Comparison{}
	for _, mode := range r.res.AnswerModes {
		ca := clean.Answers[mode]
		if ca == nil {
			continue
		}
		stats := make([]Stat, len(ca.Ks))
		names := make([]string, len(ca.Ks))
		for j, k := range ca.Ks {
			xs := make([]float64, len(runs))
			for i, rr := range runs {
				xs[i] = rr.Answers[mode].Accuracy[j]
			}
			stats[j] = NewStat(xs)
			names[j] = fmt.Sprint(k)
		}
		s.Answers[mode] = stats
		cmp, err := r.compareBy(clean, runs, names, func(k string) func(*RunResult, string) (float64, bool) {
			var kk int
			fmt.Sscan(k, &kk)
			return answerGetter(mode, kk)
		})
		if err != nil {
			return err
		}
		drops := make([]Comparison, len(ca.Ks))
		for j := range ca.Ks {
			drops[j] = cmp[names[j]]
		}
		s.AnswerDrop[mode] = drops
	}
	return nil
}

// denseText returns the text a dense model encodes for d: DPR's
// title [SEP] text under Config.PassageText (passageText), else DocText.
func denseText(d dataset.Doc, passageText bool) string {
	if passageText {
		return answer.PassageText(d.Title, d.Text)
	}
	return DocText(d)
}

// EncodedCorpusHash returns the hash that keys a dense model's corpus
// vectors: CorpusHash for the default document text, and for DPR's
// passage text (passageText) the hash of the texts actually encoded, so
// the two never share cache entries.
func EncodedCorpusHash(corpus []dataset.Doc, passageText bool) string {
	if !passageText {
		return CorpusHash(corpus)
	}
	h := sha256.New()
	writeField(h, "dreval-corpus-dpr-passage-text-v1")
	for _, d := range corpus {
		writeField(h, d.ID)
		writeField(h, answer.PassageText(d.Title, d.Text))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// JoinCJK removes the spaces a WordPiece decoder puts between CJK
// characters ("北 京" becomes "北京"), so that a decoded query reaches a
// bigram analyser as the running text the corpus was indexed from. Other
// spaces are kept.
func JoinCJK(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, c := range rs {
		if unicode.IsSpace(c) && i > 0 && i+1 < len(rs) && isCJK(rs[i-1]) && isCJK(rs[i+1]) {
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// averageDrops computes Results.Average: for every model run on every
// dataset with qrels, every perturbed rate and st measure, the drop
// averaged over those datasets and the paired comparison over the pooled
// queries. Datasets without qrels have no st values and are left out.
func (r *runner) averageDrops() ([]*AverageDrop, error) {
	var ds []*DatasetResult
	for _, d := range r.res.Datasets {
		if !d.QrelsAbsent {
			ds = append(ds, d)
		}
	}
	if len(ds) < 2 {
		return nil, nil
	}
	var out []*AverageDrop
	for _, m0 := range ds[0].Models {
		per := make([]*ModelResult, 0, len(ds))
		for _, d := range ds {
			for _, m := range d.Models {
				if m.Model == m0.Model {
					per = append(per, m)
				}
			}
		}
		if len(per) != len(ds) {
			continue
		}
		for _, rate := range r.cfg.perturbedRates() {
			for _, name := range r.res.STMeasures {
				ad := &AverageDrop{Model: m0.Model, Rate: rate, Measure: name, Datasets: len(ds)}
				var a, b []float64
				for _, m := range per {
					var runs []*RunResult
					for _, rr := range m.Perturbed {
						if rr.Rate == rate {
							runs = append(runs, rr)
						}
					}
					ad.Clean += m.Clean.ST[name] / float64(len(per))
					var sum float64
					for _, rr := range runs {
						sum += rr.ST[name]
					}
					if len(runs) > 0 {
						ad.Perturbed += sum / float64(len(runs)) / float64(len(per))
					}
					_, xa, xb := values(m.Clean, runs, stGetter(name))
					a, b = append(a, xa...), append(b, xb...)
				}
				ad.Drop = Float(ad.Clean - ad.Perturbed)
				ad.Relative = Float(math.NaN())
				if ad.Clean != 0 {
					ad.Relative = ad.Drop / Float(ad.Clean)
				}
				var err error
				if ad.Pooled, err = pairedCompare(a, b, r.cfg.Resamples, r.cfg.TestSeed); err != nil {
					return nil, fmt.Errorf("average drop of %s at rate %v on %s: %w", m0.Model, rate, name, err)
				}
				out = append(out, ad)
			}
		}
	}
	return out, nil
}
