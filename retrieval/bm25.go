package retrieval

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// BM25 is an inverted index over tokenised documents, scored with Okapi
// BM25 as Lucene (and so Anserini/Pyserini) scores it:
//
//	score(q, d) = Σ_{t in q} qtf(t) · idf(t) · tf(t,d) / (tf(t,d) + K1·(1 − B + B·|d|/avgdl))
//	idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
//
// where qtf counts repeats of t in the query, |d| is the number of terms
// the Analyzer produced for d, avgdl their mean over all N documents
// added, and df(t) the number of documents containing t. Unlike Lucene,
// document lengths are exact (Lucene stores them in one lossy byte), so
// scores can differ from Anserini's in the third or fourth digit. Lucene 8+
// also drops the constant factor (K1+1), and so does BM25.
//
// Add documents, then search; Search is safe for concurrent use as long as
// no Add runs at the same time.
type BM25 struct {
	K1, B    float64 // 0.9 and 0.4 (Anserini's defaults) from NewBM25
	analyze  Analyzer
	postings map[string][]posting
	lengths  []int32
	total    int64 // sum of lengths
}

type posting struct {
	doc, tf int32
}

// NewBM25 returns an empty index with K1 = 0.9 and B = 0.4 that analyses
// documents and queries with analyze.
func NewBM25(analyze Analyzer) *BM25 {
	return &BM25{K1: 0.9, B: 0.4, analyze: analyze, postings: map[string][]posting{}}
}

// Add indexes text as the next document; its row is the previous Len().
func (x *BM25) Add(text string) {
	doc := int32(len(x.lengths))
	terms := x.analyze(text)
	tf := make(map[string]int32, len(terms))
	for _, t := range terms {
		tf[t]++
	}
	for t, n := range tf {
		x.postings[t] = append(x.postings[t], posting{doc, n})
	}
	x.lengths = append(x.lengths, int32(len(terms)))
	x.total += int64(len(terms))
}

// Len returns the number of documents added.
func (x *BM25) Len() int { return len(x.lengths) }

// idf returns the BM25 idf of a term found in df documents.
func (x *BM25) idf(df int) float64 {
	n := float64(len(x.lengths))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// queryTerms returns the distinct terms of query with their counts, in
// first-occurrence order (so sums are computed in a fixed order).
func (x *BM25) queryTerms(query string) ([]string, []float64) {
	var terms []string
	var counts []float64
	seen := map[string]int{}
	for _, t := range x.analyze(query) {
		if i, ok := seen[t]; ok {
			counts[i]++
			continue
		}
		seen[t] = len(terms)
		terms = append(terms, t)
		counts = append(counts, 1)
	}
	return terms, counts
}

// Score returns the BM25 score of document row doc for query, 0 when they
// share no term.
func (x *BM25) Score(query string, doc int) float64 {
	if doc < 0 || doc >= len(x.lengths) {
		return 0
	}
	terms, counts := x.queryTerms(query)
	avgdl := float64(x.total) / float64(len(x.lengths))
	norm := x.K1 * (1 - x.B + x.B*float64(x.lengths[doc])/avgdl)
	var s float64
	for i, t := range terms {
		ps := x.postings[t]
		for _, p := range ps {
			if int(p.doc) == doc {
				tf := float64(p.tf)
				s += counts[i] * x.idf(len(ps)) * tf / (tf + norm)
			}
		}
	}
	return s
}

// Search returns the opt.K best documents for each query, best first,
// ranked like TopK (score descending, then document id descending, with
// opt.DocIDs or row numbers as ids). Only documents sharing at least one
// term with the query are returned, so a query may get fewer than K (none
// when no term matches). Scores are computed in float64 and returned
// rounded to float32; ties are decided after rounding. opt.Scoring is
// ignored; opt.Threads parallelises over queries.
func (x *BM25) Search(queries []string, opt Options) ([][]Hit, error) {
	switch {
	case len(x.lengths) == 0:
		return nil, errors.New("empty BM25 index: no documents to search")
	case opt.K < 1:
		return nil, fmt.Errorf("k = %d, want at least 1", opt.K)
	case opt.DocIDs != nil && len(opt.DocIDs) != len(x.lengths):
		return nil, fmt.Errorf("%d document ids for %d indexed documents", len(opt.DocIDs), len(x.lengths))
	case math.IsNaN(x.K1) || x.K1 < 0 || math.IsNaN(x.B) || x.B < 0 || x.B > 1:
		return nil, fmt.Errorf("BM25 parameters k1 = %v, b = %v: want k1 >= 0 and 0 <= b <= 1", x.K1, x.B)
	}
	n := len(x.lengths)
	avgdl := float64(x.total) / float64(n)
	norms := make([]float64, n)
	for d, l := range x.lengths {
		norms[d] = x.K1 * (1 - x.B + x.B*float64(l)/avgdl)
	}
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = max(1, min(threads, len(queries)))
	res := make([][]Hit, len(queries))
	s := &searcher{k: min(opt.K, n), ids: opt.DocIDs}
	var wg sync.WaitGroup
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := make([]float64, n)
			var touched []int32
			var hits []Hit
			for qi := t; qi < len(queries); qi += threads {
				terms, counts := x.queryTerms(queries[qi])
				touched = touched[:0]
				for i, term := range terms {
					ps := x.postings[term]
					w := counts[i] * x.idf(len(ps))
					for _, p := range ps {
						if acc[p.doc] == 0 {
							touched = append(touched, p.doc)
						}
						tf := float64(p.tf)
						acc[p.doc] += w * tf / (tf + norms[p.doc])
					}
				}
				hits = hits[:0]
				for _, d := range touched {
					// Scores are finite and positive.
					hits = append(hits, Hit{Doc: int(d), Score: float32(acc[d])})
					acc[d] = 0
				}
				if len(hits) > s.k {
					s.selectBest(hits, s.k)
					hits = hits[:s.k]
				}
				s.sortHits(hits)
				res[qi] = append(make([]Hit, 0, len(hits)), hits...)
			}
		}()
	}
	wg.Wait()
	return res, nil
}
