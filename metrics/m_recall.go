package metrics

// calcRecall is recall.k: the number of relevant documents within the
// first k retrieved, divided by R, the number of relevant documents for the
// query (0 when R is 0).
func calcRecall(q *queryData, k int) float64 {
	if q.numRel == 0 {
		return 0
	}
	return float64(q.hitsAt(k)) / float64(q.numRel)
}
