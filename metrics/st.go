package metrics

import "math"

// The st family reproduces sentence-transformers'
// InformationRetrievalEvaluator. R is the query's relevant set (judged
// documents with relevance >= the level); queries with an empty R never
// reach these functions, being dropped from every average. A hit is a
// relevant document.

// calcSTAccuracy is accuracy@k: 1 when a hit is within the first k, else 0.
func calcSTAccuracy(q *queryData, k int) float64 {
	if q.hitsAt(k) > 0 {
		return 1
	}
	return 0
}

// calcSTPrecision is precision@k: hits within the first k, divided by k.
func calcSTPrecision(q *queryData, k int) float64 { return float64(q.hitsAt(k)) / float64(k) }

// calcSTRecall is recall@k: hits within the first k, divided by |R|.
func calcSTRecall(q *queryData, k int) float64 {
	if q.numRel == 0 {
		return 0
	}
	return float64(q.hitsAt(k)) / float64(q.numRel)
}

// calcSTMRR is mrr@k: 1 / the rank of the first hit when it is within the
// first k, else 0.
func calcSTMRR(q *queryData, k int) float64 {
	if i := q.firstHit(); i >= 0 && i < k {
		return 1 / float64(i+1)
	}
	return 0
}

// calcSTNDCG is ndcg@k with binary gains: DCG = sum over the first k ranks
// i = 1.. of hit_i / log2(i+1); the ideal DCG is that of min(k, |R|) hits
// in a row.
func calcSTNDCG(q *queryData, k int) float64 {
	dcg := 0.0
	for i := range q.rels[:min(k, len(q.rels))] {
		if q.relevant(i) {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	ideal := 0.0
	for i := range min(k, q.numRel) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// calcSTMAP is map@k: the sum, over the hits within the first k, of (hits
// so far / rank), divided by min(k, |R|).
func calcSTMAP(q *queryData, k int) float64 {
	sum := 0.0
	hits := 0
	for i := range q.rels[:min(k, len(q.rels))] {
		if q.relevant(i) {
			hits++
			sum += float64(hits) / float64(i+1)
		}
	}
	if d := min(k, q.numRel); d > 0 {
		return sum / float64(d)
	}
	return 0
}
