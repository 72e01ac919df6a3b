package metrics

// calcRecipRank is recip_rank: 1 / the rank of the first relevant
// document retrieved, 0 when none is. It has no cut-off in trec_eval.
func calcRecipRank(q *queryData, _ int) float64 {
	if i := q.firstHit(); i >= 0 {
		return 1 / float64(i+1)
	}
	return 0
}
