package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/dreval/dreval/answer"
	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/results"
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
func (r *runner) prepareTask(c *dataset.Collection, name string, queries []dataset.Query, dr *results.DatasetResult) (*taskData, error) {
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
	sum := &results.AnswerSummary{Source: src, Questions: len(qs), WithoutAnswers: without, Unanswerable: []string{}}
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

// scoreAnswers adds the answer accuracy in every mode of the task to
// rr; nothing when the task measures none (td nil).
func (r *runner) scoreAnswers(td *taskData, rr *results.RunResult) error {
	if td == nil {
		return nil
	}
	rr.Answers = map[string]*results.AnswerAccuracy{}
	for _, mode := range r.cfg.AnswerModes {
		o := td.opts
		o.Mode = mode
		res, err := answer.TopK(rr.Run, td.questions, td.passages, o)
		if err != nil {
			return fmt.Errorf("answer accuracy (%s): %w", mode, err)
		}
		rr.Answers[mode.String()] = &results.AnswerAccuracy{
			Ks: res.Ks, Accuracy: res.Accuracy, Hits: res.Hits, Questions: res.Questions,
			MissingFromRun: len(res.MissingFromRun), Unanswerable: len(res.Unanswerable),
			EmptyAnswers: len(res.EmptyAnswers), FirstHit: res.FirstHit,
		}
	}
	return nil
}

// summarizeAnswers adds the answer accuracy's summaries over seeds to s.
func (r *runner) summarizeAnswers(clean *results.RunResult, runs []*results.RunResult, s *results.RateSummary) error {
	if clean.Answers == nil {
		return nil
	}
	s.Answers = map[string][]results.Stat{}
	if !r.cfg.DeferTests {
		s.AnswerDrop = map[string][]results.Comparison{}
	}
	for _, mode := range r.res.AnswerModes {
		ca := clean.Answers[mode]
		if ca == nil {
			continue
		}
		stats := make([]results.Stat, len(ca.Ks))
		names := make([]string, len(ca.Ks))
		getters := make([]getter, len(ca.Ks))
		for j, k := range ca.Ks {
			xs := make([]float64, len(runs))
			for i, rr := range runs {
				xs[i] = rr.Answers[mode].Accuracy[j]
			}
			stats[j] = results.NewStat(xs)
			names[j] = fmt.Sprint(k)
			getters[j] = answerGetter(mode, k)
		}
		s.Answers[mode] = stats
		if r.cfg.DeferTests {
			continue
		}
		cmp, err := r.compareBy(clean, runs, names, getters)
		if err != nil {
			return err
		}
		drops := make([]results.Comparison, len(ca.Ks))
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
