package metrics

// The dureader family reproduces the DuReader_retrieval official
// evaluation script. The list reaching these functions holds the first
// DuReaderCandidates documents in submitted order.

// calcDuReaderMRR is MRR@k: 1 / the rank of the first relevant document
// when it is within the first k, else 0. The official script uses k = 10.
func calcDuReaderMRR(q *queryData, k int) float64 {
	if i := q.firstHit(); i >= 0 && i < k {
		return 1 / float64(i+1)
	}
	return 0
}

// calcDuReaderRecall is the script's "recall@k", a hit rate: 1 when a
// relevant document is within the first k, else 0. The official script
// reports k = 1 and k = 50.
func calcDuReaderRecall(q *queryData, k int) float64 {
	if q.hitsAt(k) > 0 {
		return 1
	}
	return 0
}
