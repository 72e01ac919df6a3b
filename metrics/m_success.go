package metrics

// calcSuccess is success.k: 1 when a relevant document is within the first
// k retrieved, else 0.
func calcSuccess(q *queryData, k int) float64 {
	if q.hitsAt(k) > 0 {
		return 1
	}
	return 0
}
