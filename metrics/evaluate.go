package metrics

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
)

// Options controls an evaluation.
type Options struct {
	// Convention fixes ordering, averaging and measure names; the zero
	// value is ConventionTREC.
	Convention Convention
	// RelLevel is the relevance level (trec_eval's -l): a document is
	// relevant when its relevance is >= RelLevel. 0 means 1, the default.
	// Levels below 1 are refused, as pytrec_eval refuses them.
	RelLevel int
	// Complete (trec_eval's -c) averages over every qrels query (under st,
	// every one with a relevant document), a query missing from the run
	// scoring 0. ConventionDuReader always averages this way.
	Complete bool
}

func (o Options) level() int {
	if o.RelLevel == 0 {
		return 1
	}
	return o.RelLevel
}

// Result holds per-query values and their summary.
type Result struct {
	Options  Options
	Measures []Measure
	// Queries lists the evaluated queries, sorted byte-wise: those in both
	// the run and the qrels (less the dropped ones), and the missing ones
	// when they count.
	Queries []string
	// PerQuery holds each evaluated query's values, indexed like Measures.
	PerQuery map[string][]float64
	// All holds the summary, indexed like Measures: the mean over
	// Queries, or for counts (Measure.IsCount) the sum.
	All []float64
	// NumQ is the number of queries averaged over, len(Queries).
	NumQ int
	// Missing lists the qrels queries absent from the run (under st and
	// dureader, those with a relevant document). When Options.Complete is
	// set or the convention is dureader they are evaluated with an empty
	// list (so they score 0) and are part of Queries, as trec_eval 9.0.8
	// does under -c; otherwise they are left out.
	Missing []string
	// Ignored lists the run queries absent from the qrels; no convention
	// scores them.
	Ignored []string
	// Dropped lists the run queries whose judgments hold no relevant
	// document, left out under st and dureader.
	Dropped []string
	// RunTag is the tag column of the run's first line, when read from a
	// file.
	RunTag string
}

// MissingCounted reports whether the queries in Missing count as 0 in All.
func (r *Result) MissingCounted() bool {
	return r.Options.Complete || r.Options.Convention == ConventionDuReader
}

// Index returns the position of the measure printed as name in
// r.Measures, or -1.
func (r *Result) Index(name string) int {
	return slices.IndexFunc(r.Measures, func(m Measure) bool { return m.String() == name })
}

// Mean returns the summary value of the measure printed as name.
func (r *Result) Mean(name string) (float64, bool) {
	i := r.Index(name)
	if i < 0 {
		return 0, false
	}
	return r.All[i], true
}

// Value returns query qid's value of the measure printed as name.
func (r *Result) Value(qid, name string) (float64, bool) {
	i := r.Index(name)
	v, ok := r.PerQuery[qid]
	if i < 0 || !ok {
		return 0, false
	}
	return v[i], true
}

// Evaluate scores every query of run against qrels. Each list is ordered
// by the convention (Convention.Order); run is not modified. A document
// listed twice for a query, or a NaN or infinite score, is an error.
func Evaluate(qrels Qrels, run Run, measures []Measure, opts Options) (*Result, error) {
	e, err := newEvaluator(qrels, measures, opts)
	if err != nil {
		return nil, err
	}
	for _, qid := range run.QueryIDs() {
		if _, err := e.add(qid, run[qid], true); err != nil {
			return nil, err
		}
	}
	return e.finish()
}

// EvaluateReader scores the TREC run read from r (name is used in errors)
// while reading it, one query at a time, so that memory holds the qrels and
// a few queries' lists (a goroutine parses the next queries while this one
// scores). When the run turns out not to be grouped by query and r
// is an io.Seeker, EvaluateReader seeks back to where it started reading
// and evaluates the run read whole by ReadRun, with the same results; when
// r cannot seek, the error wraps ErrUngrouped.
func EvaluateReader(qrels Qrels, r io.Reader, name string, measures []Measure, opts Options) (*Result, error) {
	e, err := newEvaluator(qrels, measures, opts)
	if err != nil {
		return nil, err
	}
	seeker, canSeek := r.(io.Seeker)
	var start int64
	if canSeek {
		if start, err = seeker.Seek(0, io.SeekCurrent); err != nil {
			canSeek = false
		}
	}
	rr := NewRunReader(r, name)
	readErr := pipeline(rr, func(qid string, list Ranked) error { // RunReader refuses duplicates
		_, err := e.add(qid, list, false)
		return err
	})
	if errors.Is(readErr, ErrUngrouped) && canSeek {
		if _, serr := seeker.Seek(start, io.SeekStart); serr != nil {
			return nil, fmt.Errorf("%w (and seeking back to read it whole failed: %v)", readErr, serr)
		}
		run, err := ReadRun(r, name)
		if err != nil {
			return nil, err
		}
		res, err := Evaluate(qrels, run, measures, opts)
		if res != nil {
			res.RunTag = rr.Tag()
		}
		return res, err
	}
	if readErr != nil {
		return nil, readErr
	}
	res, err := e.finish()
	if res != nil {
		res.RunTag = rr.Tag()
	}
	return res, err
}

// pipeline reads rr in a goroutine and hands each query to add in this
// one, so that parsing and scoring overlap on two cores. A few lists are in
// flight at once. It returns the first error of either side, after the
// reading goroutine has stopped (so the caller may seek the input).
func pipeline(rr *RunReader, add func(string, Ranked) error) error {
	type batch struct {
		qid  string
		list Ranked
	}
	const inFlight = 4
	batches := make(chan batch, inFlight)
	free := make(chan Ranked, inFlight+2)
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(batches)
		for {
			qid, list, err := rr.Next()
			if err != nil {
				if err != io.EOF {
					readErr = err
				}
				return
			}
			var buf Ranked
			select {
			case buf = <-free:
			default:
			}
			select {
			case batches <- batch{qid, append(buf[:0], list...)}:
			case <-stop:
				return
			}
		}
	}()
	var addErr error
	for b := range batches {
		if addErr != nil {
			continue // draining until the reader stops
		}
		if addErr = add(b.qid, b.list); addErr != nil {
			close(stop)
		}
		select {
		case free <- b.list:
		default:
		}
	}
	if addErr != nil {
		return addErr
	}
	return readErr
}

// evaluator accumulates per-query values.
type evaluator struct {
	j        *Judgments
	measures []Measure
	opts     Options
	res      *Result
	q        queryData
	// Buffers reused from query to query: the list's document id
	// hashes, and the list with relevance values to sort.
	hashes []uint64
	items  []rankedItem
	slab   []float64 // where the next queries' values go
	// byIndex holds the values of res.PerQuery by query index in j.
	byIndex [][]float64
}

// rankedItem is a retrieved document with its relevance.
type rankedItem struct {
	ScoredDoc
	rel int
}

func newEvaluator(qrels Qrels, measures []Measure, opts Options) (*evaluator, error) {
	j, err := NewJudgments(qrels, opts)
	if err != nil {
		return nil, err
	}
	return j.evaluator(measures)
}

// add evaluates one query and returns its values (nil when the
// convention leaves it out). Queries are keyed by id, so the caller must
// not pass the same id twice. With checkDups a document listed twice is
// an error; a score that is NaN or infinite is one always: the order,
// and every measure, would be arbitrary.
func (e *evaluator) add(qid string, list Ranked, checkDups bool) ([]float64, error) {
	hashes, err := checkList(qid, list, checkDups, e.hashes[:0])
	e.hashes = hashes
	if err != nil {
		return nil, err
	}
	return e.score(qid, list, hashes)
}

// score evaluates one checked query; hashes are its documents' (nil:
// not computed yet).
func (e *evaluator) score(qid string, list Ranked, hashes []uint64) ([]float64, error) {
	jq, ok := e.counted(qid)
	if !ok {
		return nil, nil
	}
	return e.scoreJudged(jq, qid, list, hashes), nil
}

// scoreJudged evaluates one checked query the convention scores, with
// its judgments jq.
func (e *evaluator) scoreJudged(jq *judgedQuery, qid string, list Ranked, hashes []uint64) []float64 {
	if jq.hashes == nil {
		hashes = nil
	} else if len(hashes) != len(list) {
		hashes = hashDocs(list, e.hashes[:0])
		e.hashes = hashes
	}
	// The relevance of each document in the convention's order
	// (Convention.order's). Rankers usually list documents in order.
	c := e.opts.Convention
	q := &e.q
	q.rels = q.rels[:0]
	if inOrder(c, list) {
		if c == ConventionDuReader {
			list = list[:min(len(list), DuReaderCandidates)]
		}
		for i, d := range list {
			if c == ConventionBEIR && d.DocID == qid {
				continue
			}
			var h uint64
			if hashes != nil {
				h = hashes[i]
			}
			q.rels = append(q.rels, jq.relevance(d.DocID, h))
		}
	} else {
		compare := compareTREC
		if c == ConventionST {
			compare = compareST
		}
		items := e.items[:0]
		for i, d := range list {
			if c == ConventionBEIR && d.DocID == qid {
				continue
			}
			var h uint64
			if hashes != nil {
				h = hashes[i]
			}
			items = append(items, rankedItem{d, jq.relevance(d.DocID, h)})
		}
		// compare orders the documents of a list without duplicates
		// totally, so any sort gives the one order.
		slices.SortFunc(items, func(a, b rankedItem) int { return compare(a.ScoredDoc, b.ScoredDoc) })
		for _, it := range items {
			q.rels = append(q.rels, it.rel)
		}
		e.items = items
	}
	q.level = e.j.level
	q.numRel, q.ideal = jq.numRel, jq.ideal
	// The values of the queries share a few allocations.
	m := len(e.measures)
	if len(e.slab) < m {
		e.slab = make([]float64, m*min(64, max(len(e.j.scored), 1)))
	}
	vals := e.slab[:m:m]
	e.slab = e.slab[m:]
	for i, m := range e.measures {
		vals[i] = m.f.calc(q, m.k)
	}
	e.res.PerQuery[qid] = vals
	e.byIndex[jq.index] = vals
	return vals
}

// inOrder reports whether list is in the order convention c scores it
// in (DuReader's: any), so that it need not be sorted: compareST's and
// compareTREC's order, written out (WebAssembly does not inline them).
func inOrder(c Convention, list Ranked) bool {
	switch c {
	case ConventionDuReader:
		return true
	case ConventionST:
		for i := 1; i < len(list); i++ {
			a, b := list[i-1].Score, list[i].Score
			if a < b || a == b && list[i-1].DocID < list[i].DocID {
				return false
			}
		}
	default:
		for i := 1; i < len(list); i++ {
			a, b := float32(list[i-1].Score), float32(list[i].Score)
			if a < b || a == b && list[i-1].DocID < list[i].DocID {
				return false
			}
		}
	}
	return true
}

// hashDocs appends the hash of each document id of list to buf.
func hashDocs(list Ranked, buf []uint64) []uint64 {
	for _, d := range list {
		buf = append(buf, hashID(d.DocID))
	}
	return buf
}

// checkList checks query qid's list as Evaluate checks it: with
// checkDups, a document listed twice (the first, in list order, seen
// before) is an error; a score that is NaN or infinite is one always.
// With checkDups it returns the documents' hashes appended to buf.
func checkList(qid string, list Ranked, checkDups bool, buf []uint64) ([]uint64, error) {
	if checkDups {
		buf = hashDocs(list, buf)
		size := 16
		for size < 2*len(list) {
			size *= 2
		}
		var small [256]int32
		var table []int32
		if size <= len(small) {
			table = small[:size]
		} else {
			table = make([]int32, size)
		}
		mask := uint64(size - 1)
		for i, d := range list {
			h := buf[i]
			for slot := h & mask; ; slot = (slot + 1) & mask {
				j := table[slot]
				if j == 0 {
					table[slot] = int32(i + 1)
					break
				}
				if buf[j-1] == h && list[j-1].DocID == d.DocID {
					return buf, fmt.Errorf("query %q: document %q listed twice: expected each (query, document) pair once", qid, d.DocID)
				}
			}
		}
	}
	for _, d := range list {
		if x := d.Score; x-x != 0 { // NaN or infinite
			return buf, fmt.Errorf("query %q, document %q: score %v: expected a finite number", qid, d.DocID, d.Score)
		}
	}
	return buf, nil
}

// counted returns query qid's judgments and whether the convention
// scores it; a query it leaves out is recorded in Ignored (not judged)
// or Dropped (st and dureader: no relevant document).
func (e *evaluator) counted(qid string) (*judgedQuery, bool) {
	jq, judged := e.j.queries[qid]
	if !judged {
		e.res.Ignored = append(e.res.Ignored, qid)
		return nil, false
	}
	if !jq.scored {
		e.res.Dropped = append(e.res.Dropped, qid)
		return nil, false
	}
	return jq, true
}

func (e *evaluator) finish() (*Result, error) {
	res := e.res
	if len(res.PerQuery) == 0 {
		return nil, fmt.Errorf("no queries with both results and relevant judgments: %d run queries not in the qrels, %d without a relevant document; check that the run and qrels belong together",
			len(res.Ignored), len(res.Dropped))
	}
	for k, qid := range e.j.scored { // sorted
		if e.byIndex[e.j.scoredAt[k]] == nil {
			res.Missing = append(res.Missing, qid)
		}
	}
	if res.MissingCounted() {
		// As trec_eval 9.0.8 does under -c: a missing query is evaluated
		// with an empty list, printed, and counted.
		for _, qid := range res.Missing {
			if _, err := e.add(qid, nil, false); err != nil {
				return nil, err
			}
		}
	}
	// Every query of PerQuery is one the convention scores.
	res.Queries = make([]string, 0, len(res.PerQuery))
	res.All = make([]float64, len(e.measures))
	for k, qid := range e.j.scored {
		vals := e.byIndex[e.j.scoredAt[k]]
		if vals == nil {
			continue
		}
		res.Queries = append(res.Queries, qid)
		for i, v := range vals { // trec_eval sums in query id order
			res.All[i] += v
		}
	}
	sort.Strings(res.Ignored)
	sort.Strings(res.Dropped)
	res.NumQ = len(res.Queries)
	for i, m := range e.measures {
		if !m.f.sum {
			res.All[i] /= float64(res.NumQ)
		}
	}
	return res, nil
}
