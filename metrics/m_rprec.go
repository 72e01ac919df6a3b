package metrics

// calcRprec is Rprec, R-precision: the fraction of the first R retrieved
// documents that are relevant, R being the number of relevant documents
// for the query (0 when R is 0).
func calcRprec(q *queryData, _ int) float64 {
	if q.numRel == 0 {
		return 0
	}
	return float64(q.hitsAt(q.numRel)) / float64(q.numRel)
}
