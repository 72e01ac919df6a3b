package metrics

// calcMAP is map, mean average precision: the sum, over the relevant
// retrieved documents, of the precision at each one's rank, divided by R,
// the number of relevant documents for the query (0 when R is 0).
func calcMAP(q *queryData, _ int) float64 { return averagePrecision(q, len(q.rels)) }

// calcMAPCut is map_cut.k: map counting only the relevant documents
// within the first k, still divided by R (not min(k, R)).
func calcMAPCut(q *queryData, k int) float64 { return averagePrecision(q, k) }

func averagePrecision(q *queryData, k int) float64 {
	sum := 0.0
	hits := 0
	for i, r := range q.rels[:min(k, len(q.rels))] {
		if r >= q.level {
			hits++
			sum += float64(hits) / float64(i+1)
		}
	}
	if hits == 0 {
		return 0
	}
	return sum / float64(q.numRel)
}
