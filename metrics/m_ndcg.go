package metrics

import "math"

// calcNDCG is ndcg, trec_eval's normalised discounted cumulative gain
// (Järvelin and Kekäläinen 2002) over the whole list. The gain of a
// document is its relevance grade when positive, else 0 (unjudged and
// negative grades give nothing); the relevance level does not change
// gains. DCG = sum over ranks i = 1.. of gain_i / log2(i+1). The ideal DCG
// ranks all judged documents with positive grade by grade, descending.
// ndcg = DCG / ideal DCG, 0 when the ideal DCG is 0.
func calcNDCG(q *queryData, _ int) float64 { return ndcg(q, math.MaxInt) }

// calcNDCGCut is ndcg_cut.k: ndcg with both the DCG and the ideal DCG
// summed over the first k ranks only.
func calcNDCGCut(q *queryData, k int) float64 { return ndcg(q, k) }

func ndcg(q *queryData, k int) float64 {
	dcg := 0.0
	for i, r := range q.rels[:min(k, len(q.rels))] {
		if r > 0 {
			dcg += float64(r) / math.Log2(float64(i+2))
		}
	}
	ideal := 0.0
	for i, r := range q.ideal[:min(k, len(q.ideal))] {
		ideal += float64(r) / math.Log2(float64(i+2))
	}
	if ideal > 0 {
		return dcg / ideal
	}
	return dcg
}
