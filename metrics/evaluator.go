package metrics

import "fmt"

// An Evaluator scores a run query by query, as Evaluate does, for a
// caller that scores many runs sharing most of their lists (the runs of
// a rate sweep, where most queries come out of a perturbation unchanged):
// Reuse takes the values Add returned for an equal list earlier, so each
// distinct list is scored once. Finish gives the Result Evaluate gives
// for the same lists.
type Evaluator struct {
	e *evaluator
	// added marks the queries added: the judged ones by their index in
	// the Judgments, the others by id.
	added      []bool
	addedOther map[string]bool
}

// NewEvaluator returns an Evaluator of measures against qrels, checked as
// Evaluate checks them.
func NewEvaluator(qrels Qrels, measures []Measure, opts Options) (*Evaluator, error) {
	j, err := NewJudgments(qrels, opts)
	if err != nil {
		return nil, err
	}
	return j.Evaluator(measures)
}

// Add scores query qid's list (ordered by the convention, as Evaluate
// orders it; list is not modified) and returns its values, indexed like
// the measures, or nil when the convention leaves the query out (not in
// the qrels; under st and dureader, without a relevant document). A
// document listed twice, a score that is NaN or infinite, or a query
// added twice is an error.
func (v *Evaluator) Add(qid string, list Ranked) ([]float64, error) {
	if err := v.once(qid); err != nil {
		return nil, err
	}
	return v.e.add(qid, list, true)
}

// A CheckedList is one query's ranked list checked once, as
// Evaluator.Add checks it, and ready to be scored by any number of
// Evaluators (Evaluator.AddChecked), under any convention, without
// being checked again: a caller that scores each list under several
// conventions checks it once. The zero value is ready for Check, which
// reuses its memory list after list.
type CheckedList struct {
	qid    string
	list   Ranked
	hashes []uint64
	ok     bool
}

// Check checks query qid's list as Evaluator.Add does (a document listed
// twice or a score that is NaN or infinite is an error) and holds it in
// c, in place of the list c held. The list is kept, not copied, and must
// not change while c holds it.
func (c *CheckedList) Check(qid string, list Ranked) error {
	hashes, err := checkList(qid, list, true, c.hashes[:0])
	c.qid, c.list, c.hashes, c.ok = qid, list, hashes, err == nil
	return err
}

// QueryID returns the id of the query whose list c holds.
func (c *CheckedList) QueryID() string { return c.qid }

// AddChecked is Add of the query and list c holds, which c.Check
// checked: it returns what Add returns for them.
func (v *Evaluator) AddChecked(c *CheckedList) ([]float64, error) {
	if !c.ok {
		return nil, fmt.Errorf("query %q: list not checked (CheckedList.Check failed or was not called)", c.qid)
	}
	jq, judged := v.e.j.queries[c.qid]
	if err := v.onceJudged(c.qid, jq, judged); err != nil {
		return nil, err
	}
	if !judged || !jq.scored {
		v.e.counted(c.qid) // records it as Ignored or Dropped
		return nil, nil
	}
	return v.e.scoreJudged(jq, c.qid, c.list, c.hashes), nil
}

// Reuse records query qid with the values an earlier Add returned for
// the same query and an equal list, under the same qrels, measures and
// options (nil: the query is left out); the values are kept, not copied.
func (v *Evaluator) Reuse(qid string, vals []float64) error {
	jq, judged := v.e.j.queries[qid]
	if err := v.onceJudged(qid, jq, judged); err != nil {
		return err
	}
	if !judged || !jq.scored {
		v.e.counted(qid) // records it as Ignored or Dropped
		if vals != nil {
			return fmt.Errorf("query %q: values reused for a query the %s convention leaves out", qid, v.e.opts.Convention)
		}
		return nil
	}
	if len(vals) != len(v.e.measures) {
		return fmt.Errorf("query %q: %d values reused for %d measures", qid, len(vals), len(v.e.measures))
	}
	v.e.res.PerQuery[qid] = vals
	v.e.byIndex[jq.index] = vals
	return nil
}

// once fails when qid was added before.
func (v *Evaluator) once(qid string) error {
	jq, ok := v.e.j.queries[qid]
	return v.onceJudged(qid, jq, ok)
}

// onceJudged is once of a query with judgments jq (judged: in the
// Judgments).
func (v *Evaluator) onceJudged(qid string, jq *judgedQuery, judged bool) error {
	if judged {
		if v.added[jq.index] {
			return fmt.Errorf("query %q added twice", qid)
		}
		v.added[jq.index] = true
		return nil
	}
	if v.addedOther[qid] {
		return fmt.Errorf("query %q added twice", qid)
	}
	if v.addedOther == nil {
		v.addedOther = map[string]bool{}
	}
	v.addedOther[qid] = true
	return nil
}

// Finish returns the Result: the missing queries scored as Evaluate
// scores them, every mean over the queries in id order.
func (v *Evaluator) Finish() (*Result, error) { return v.e.finish() }
