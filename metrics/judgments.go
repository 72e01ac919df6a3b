package metrics

import (
	"fmt"
	"slices"
)

// Judgments are qrels prepared for scoring under one set of options: each
// query's relevant-document count and ideal gains, whether the convention
// scores it, and its judged documents hashed for quick look-up. A caller
// that scores many runs against the same qrels (the runs of a rate sweep)
// prepares them once and makes an Evaluator per run with
// Judgments.Evaluator; the values are those of NewEvaluator.
//
// Judgments keep qrels, which must not change while they are in use. A
// Judgments may be used by several goroutines at once; each Evaluator by
// one.
type Judgments struct {
	qrels   Qrels
	opts    Options
	level   int
	queries map[string]*judgedQuery
	// scored lists the queries the convention scores, sorted byte-wise:
	// under st and dureader those with a relevant document, else all.
	scored   []string
	scoredAt []int // the index of each query of scored
}

// judgedQuery is one query's prepared judgments.
type judgedQuery struct {
	index  int // in the order the Judgments prepared the queries
	docs   map[string]int
	numRel int   // judged documents with relevance >= level
	ideal  []int // positive relevance values, descending
	scored bool  // false: st or dureader, and no relevant document
	// hashes, ids and rels are the judged documents, for queries with few
	// of them (at most smallJudged); others look documents up in docs.
	hashes []uint64
	ids    []string
	rels   []int
	// bloom has bit h&63 set for the hash h of every judged document:
	// most retrieved documents are unjudged, and most are told so by
	// one bit.
	bloom uint64
}

// smallJudged is the most judged documents a query looks up by a linear
// scan of their hashes rather than in its map.
const smallJudged = 32

// hashID returns the hash of a document id that Evaluator's look-ups
// use: 64-bit FNV-1a with its high bits folded into the low ones (the
// duplicate table uses the low bits). Unlike maphash's it needs no
// 128-bit multiply, which WebAssembly lacks: under node it halved the
// cost of checking the opening lesson's lists. Ids that collide are told
// apart by comparing them, so collisions (which a crafted run can force:
// the hash is not seeded) cost time, never a wrong value.
func hashID(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h ^ h>>29
}

// NewJudgments prepares qrels for scoring under opts, checked as
// Evaluate checks them.
func NewJudgments(qrels Qrels, opts Options) (*Judgments, error) {
	if !opts.Convention.valid() {
		return nil, fmt.Errorf("unknown convention %d", int(opts.Convention))
	}
	if opts.RelLevel < 0 {
		return nil, fmt.Errorf("relevance level %d: expected 1 or more", opts.RelLevel)
	}
	if len(qrels) == 0 {
		return nil, fmt.Errorf("no relevance judgments")
	}
	j := &Judgments{qrels: qrels, opts: opts, level: opts.level(), queries: make(map[string]*judgedQuery, len(qrels)), scored: make([]string, 0, len(qrels))}
	dropsEmpty := opts.Convention == ConventionST || opts.Convention == ConventionDuReader
	for qid, docs := range qrels {
		q := &judgedQuery{index: len(j.queries), docs: docs}
		q.numRel, q.ideal = judgmentStats(docs, j.level)
		q.scored = !dropsEmpty || q.numRel > 0
		if len(docs) <= smallJudged {
			q.hashes, q.ids, q.rels = make([]uint64, 0, len(docs)), make([]string, 0, len(docs)), make([]int, 0, len(docs))
			for id, r := range docs {
				h := hashID(id)
				q.hashes = append(q.hashes, h)
				q.bloom |= 1 << (h & 63)
				q.ids = append(q.ids, id)
				q.rels = append(q.rels, r)
			}
		}
		j.queries[qid] = q
		if q.scored {
			j.scored = append(j.scored, qid)
		}
	}
	slices.Sort(j.scored)
	j.scoredAt = make([]int, len(j.scored))
	for k, qid := range j.scored {
		j.scoredAt[k] = j.queries[qid].index
	}
	return j, nil
}

// Evaluator returns an Evaluator of measures against j, as NewEvaluator
// returns one against j's qrels and options.
func (j *Judgments) Evaluator(measures []Measure) (*Evaluator, error) {
	e, err := j.evaluator(measures)
	if err != nil {
		return nil, err
	}
	return &Evaluator{e: e, added: make([]bool, len(j.queries))}, nil
}

// evaluator returns an evaluator of measures against j.
func (j *Judgments) evaluator(measures []Measure) (*evaluator, error) {
	if len(measures) == 0 {
		return nil, fmt.Errorf("no measures given")
	}
	for _, m := range measures {
		if m.f == nil || !m.f.conv(j.opts.Convention) {
			return nil, fmt.Errorf("measure %s is not a %s measure", m, j.opts.Convention)
		}
	}
	return &evaluator{
		j:        j,
		byIndex:  make([][]float64, len(j.queries)),
		measures: measures,
		opts:     j.opts,
		res: &Result{
			Options:  j.opts,
			Measures: measures,
			PerQuery: make(map[string][]float64, len(j.scored)),
		},
	}, nil
}

// relevance returns the relevance of document id (hashed h) for q, or
// unjudged.
func (q *judgedQuery) relevance(id string, h uint64) int {
	if q.hashes == nil {
		if r, ok := q.docs[id]; ok {
			return r
		}
		return unjudged
	}
	if q.bloom&(1<<(h&63)) == 0 {
		return unjudged
	}
	for i, x := range q.hashes {
		if x == h && q.ids[i] == id {
			return q.rels[i]
		}
	}
	return unjudged
}
