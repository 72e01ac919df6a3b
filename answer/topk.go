package answer

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/metrics"
)

// DefaultKs returns the cut-offs DPR reports (a new slice each call).
func DefaultKs() []int { return []int{1, 5, 20, 100} }

// Question is one question's answers.
type Question struct {
	ID      string
	Answers []string
}

// Passages holds passages by id and caches their normalised forms, computed
// on first use. It is not safe for concurrent use.
type Passages struct {
	docs  []dataset.Doc
	pos   map[string]int
	forms [3][]string // per Mode; "" = not computed yet
	done  [3][]bool
}

// NewPassages indexes docs by id; a repeated id is an error.
func NewPassages(docs []dataset.Doc) (*Passages, error) {
	p := &Passages{docs: docs, pos: make(map[string]int, len(docs))}
	for i, d := range docs {
		if j, dup := p.pos[d.ID]; dup {
			return nil, fmt.Errorf("passage id %q appears twice (passages %d and %d)", d.ID, j+1, i+1)
		}
		p.pos[d.ID] = i
	}
	return p, nil
}

// Len returns the number of passages.
func (p *Passages) Len() int { return len(p.docs) }

// form returns passage i's form for mode: String and Substring forms, or
// the NFD text for Regex.
func (p *Passages) form(i int, mode Mode) string {
	if p.forms[mode] == nil {
		p.forms[mode] = make([]string, len(p.docs))
		p.done[mode] = make([]bool, len(p.docs))
	}
	if !p.done[mode][i] {
		t := p.docs[i].Text
		switch mode {
		case String:
			t = tokenForm(t)
		case Substring:
			t = substringForm(t)
		default:
			t = nfd(t)
		}
		p.forms[mode][i] = t
		p.done[mode][i] = true
	}
	return p.forms[mode][i]
}

// Options configures TopK.
type Options struct {
	Mode Mode
	// Ks are the cut-offs; nil means DefaultKs. Each must be at least 1.
	Ks []int
	// Unanswerable names questions that no passage can answer by span
	// (such as yes/no questions) with the reason. They stay in the
	// denominator and count as misses, as in DPR; their matches, if any,
	// are not counted.
	Unanswerable map[string]string
	// CheckCollection searches every passage for every question's answers
	// and lists in Result.NoPassage the questions no passage of the
	// collection answers. It builds a suffix array of the whole collection
	// (String and Substring modes) or scans every passage per question
	// (Regex mode): meant for collections that fit in memory.
	CheckCollection bool
}

// Result is the outcome of TopK.
type Result struct {
	Mode Mode
	Ks   []int
	// Accuracy[i] is the fraction of Questions with an answer-bearing
	// passage among the first Ks[i] retrieved; Hits[i] their number.
	Accuracy []float64
	Hits     []int
	// Questions is the denominator: every question of the answers,
	// including those absent from the run, unanswerable or without an
	// answer (they count as misses).
	Questions int
	// FirstHit maps every question id to the 1-based rank of its first
	// answer-bearing passage in the run's order, 0 when there is none
	// (at any depth of the run).
	FirstHit map[string]int
	// MissingFromRun lists the questions absent from the run (misses).
	MissingFromRun []string
	// Unanswerable lists the questions of Options.Unanswerable (misses).
	Unanswerable []string
	// EmptyAnswers lists the questions without a non-empty answer
	// (misses).
	EmptyAnswers []string
	// NoPassage lists, under Options.CheckCollection, the questions whose
	// answers occur in no passage of the collection (misses, whatever the
	// run); nil otherwise. Unanswerable and empty-answer questions are not
	// repeated here.
	NoPassage []string
	// IgnoredRunQueries counts run queries that are not questions.
	IgnoredRunQueries int
	// Depth is the longest list of the run.
	Depth int
}

// InDenominator reports that every question counts in the denominator;
// it is true by construction and exists so that output can say so.
func (r *Result) InDenominator() bool { return true }

// TopK computes top-k answer accuracy of run over questions, looking the
// run's passages up in passages. Each list is ordered as the trec
// convention orders it (score descending, ties by passage id descending).
//
// It fails when the run names a passage absent from passages, when a
// question id repeats, when a k is below 1, and in Regex mode when
// patterns do not compile (every failing pattern is listed, as a
// *PatternError, in the joined error).
func TopK(run metrics.Run, questions []Question, passages *Passages, opt Options) (*Result, error) {
	ks := opt.Ks
	if ks == nil {
		ks = DefaultKs()
	}
	ks = slices.Clone(ks)
	sort.Ints(ks)
	ks = slices.Compact(ks)
	for _, k := range ks {
		if k < 1 {
			return nil, fmt.Errorf("cut-off k = %d: want at least 1", k)
		}
	}
	if opt.Mode < String || opt.Mode > Substring {
		return nil, fmt.Errorf("unknown match mode %d", int(opt.Mode))
	}
	res := &Result{Mode: opt.Mode, Ks: ks, Accuracy: make([]float64, len(ks)), Hits: make([]int, len(ks)),
		Questions: len(questions), FirstHit: make(map[string]int, len(questions))}
	matchers := make([]*Matcher, len(questions))
	var patternErrs []error
	for i, q := range questions {
		if _, dup := res.FirstHit[q.ID]; dup {
			return nil, fmt.Errorf("question id %q appears twice", q.ID)
		}
		res.FirstHit[q.ID] = 0
		m, err := NewMatcher(q.ID, q.Answers, opt.Mode)
		if err != nil {
			patternErrs = append(patternErrs, err)
			continue
		}
		matchers[i] = m
	}
	if len(patternErrs) > 0 {
		return nil, fmt.Errorf("%d answer patterns do not compile: %w", len(patternErrs), errors.Join(patternErrs...))
	}
	for id, list := range run {
		for _, d := range list {
			if _, ok := passages.pos[d.DocID]; !ok {
				return nil, fmt.Errorf("run query %q retrieves passage %q, which is not among the %d passages: give the passages the run was made from", id, d.DocID, passages.Len())
			}
		}
		res.Depth = max(res.Depth, len(list))
		if _, ok := res.FirstHit[id]; !ok {
			res.IgnoredRunQueries++
		}
	}
	var buf metrics.Ranked
	for i, q := range questions {
		m := matchers[i]
		list, inRun := run[q.ID]
		switch {
		case opt.Unanswerable[q.ID] != "":
			res.Unanswerable = append(res.Unanswerable, q.ID)
		case m.Empty():
			res.EmptyAnswers = append(res.EmptyAnswers, q.ID)
		}
		if !inRun {
			res.MissingFromRun = append(res.MissingFromRun, q.ID)
		}
		if !inRun || m.Empty() || opt.Unanswerable[q.ID] != "" {
			continue
		}
		buf = metrics.ConventionTREC.Order(q.ID, list)
		for r, d := range buf {
			hit, err := m.matchPassage(passages, passages.pos[d.DocID])
			if err != nil {
				return nil, err
			}
			if hit {
				res.FirstHit[q.ID] = r + 1
				break
			}
		}
		if h := res.FirstHit[q.ID]; h > 0 {
			for j, k := range ks {
				if h <= k {
					res.Hits[j]++
				}
			}
		}
	}
	if len(questions) > 0 {
		for j := range ks {
			res.Accuracy[j] = float64(res.Hits[j]) / float64(len(questions))
		}
	}
	if opt.CheckCollection {
		np, err := noPassage(questions, matchers, passages, opt)
		if err != nil {
			return nil, err
		}
		res.NoPassage = np
	}
	return res, nil
}

// matchPassage matches passage i.
func (m *Matcher) matchPassage(p *Passages, i int) (bool, error) {
	if m.mode == Regex {
		ok, err := m.matchNFD(p.form(i, Regex))
		if err != nil {
			return false, fmt.Errorf("passage %q: %w", p.docs[i].ID, err)
		}
		return ok, nil
	}
	return m.matchForm(p.form(i, m.mode)), nil
}

// noPassage lists the questions (neither unanswerable nor without answers)
// that no passage answers.
func noPassage(questions []Question, matchers []*Matcher, p *Passages, opt Options) ([]string, error) {
	out := []string{}
	var index *formIndex
	if opt.Mode != Regex {
		// Forms never contain \x01: it cannot join two passages' forms
		// into a false match.
		var b strings.Builder
		for i := range p.docs {
			b.WriteString(p.form(i, opt.Mode))
			b.WriteByte(1)
		}
		index = newFormIndex([]byte(b.String()))
	}
	for i, q := range questions {
		m := matchers[i]
		if m.Empty() || opt.Unanswerable[q.ID] != "" {
			continue
		}
		found := false
		if index != nil {
			for _, f := range m.forms {
				if index.has([]byte(f)) {
					found = true
					break
				}
			}
		} else {
			for j := range p.docs {
				hit, err := m.matchPassage(p, j)
				if err != nil {
					return nil, err
				}
				if hit {
					found = true
					break
				}
			}
		}
		if !found {
			out = append(out, q.ID)
		}
	}
	return out, nil
}

// IsYesNo reports whether every answer is "yes" or "no" (case and
// surrounding spaces ignored) and there is at least one: a question no
// passage answers by span.
func IsYesNo(answers []string) bool {
	if len(answers) == 0 {
		return false
	}
	for _, a := range answers {
		switch strings.ToLower(strings.TrimSpace(a)) {
		case "yes", "no":
		default:
			return false
		}
	}
	return true
}

// YesNoQuestions returns, for Options.Unanswerable, the questions whose
// answers are all yes or no (see IsYesNo), with the reason "yes/no
// answer".
func YesNoQuestions(qs []Question) map[string]string {
	out := map[string]string{}
	for _, q := range qs {
		if IsYesNo(q.Answers) {
			out[q.ID] = "yes/no answer"
		}
	}
	return out
}
