package metrics

import (
	"math"
	"slices"
)

// unjudged is the relevance given to a retrieved document absent from the
// qrels. It is below any relevance level, and no gain is positive.
const unjudged = math.MinInt32

// queryData is what every measure reads: one query's ordered list reduced
// to relevance values, and the query's judgments.
type queryData struct {
	rels   []int // relevance of each retrieved document in rank order, unjudged if not judged
	level  int   // relevance level: rel >= level is relevant
	numRel int   // judged documents with rel >= level (trec_eval's num_rel, |R|)
	ideal  []int // positive relevance values of the judged documents, descending
}

// relevant reports whether the document at 0-based rank i is relevant.
func (q *queryData) relevant(i int) bool { return q.rels[i] >= q.level }

// hitsAt returns how many of the first k retrieved documents are relevant.
func (q *queryData) hitsAt(k int) int {
	n := 0
	for _, r := range q.rels[:min(k, len(q.rels))] {
		if r >= q.level {
			n++
		}
	}
	return n
}

// firstHit returns the 0-based rank of the first relevant document, or -1.
func (q *queryData) firstHit() int {
	for i, r := range q.rels {
		if r >= q.level {
			return i
		}
	}
	return -1
}

// judgmentStats returns a query's numRel at level and its positive
// relevance values sorted descending.
func judgmentStats(docs map[string]int, level int) (numRel int, ideal []int) {
	for _, r := range docs {
		if r > 0 && ideal == nil {
			ideal = make([]int, 0, len(docs))
		}
		if r >= level {
			numRel++
		}
		if r > 0 {
			ideal = append(ideal, r)
		}
	}
	slices.SortFunc(ideal, func(a, b int) int { return b - a })
	return numRel, ideal
}
