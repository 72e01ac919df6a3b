package metrics

// calcP is P.k, precision at k: the number of relevant documents within
// the first k retrieved, divided by k, even when fewer than k documents
// were retrieved.
func calcP(q *queryData, k int) float64 { return float64(q.hitsAt(k)) / float64(k) }
