package metrics

// calcNumQ is num_q: the number of queries averaged over. Per query it is
// 1; in the summary it is the number of queries in the average (under
// Options.Complete, every qrels query).
func calcNumQ(q *queryData, _ int) float64 { return 1 }

// calcNumRet is num_ret: the number of documents retrieved for the query.
// The summary is the sum over the evaluated queries.
func calcNumRet(q *queryData, _ int) float64 { return float64(len(q.rels)) }

// calcNumRel is num_rel: the number of judged documents with relevance
// >= the relevance level. The summary is the sum over the evaluated
// queries (not over qrels queries missing from the run, even under
// Options.Complete, as in trec_eval).
func calcNumRel(q *queryData, _ int) float64 { return float64(q.numRel) }

// calcNumRelRet is num_rel_ret: the number of relevant documents
// retrieved. The summary is the sum over the evaluated queries.
func calcNumRelRet(q *queryData, _ int) float64 { return float64(q.hitsAt(len(q.rels))) }
