package experiment

import (
	"fmt"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/retrieval"
)

// lexicalIndex searches a BM25 index of the analysed corpus. Queries
// arrive as token ids: they are decoded (special tokens skipped) and the
// text analysed, so a perturbed query reaches BM25 as the text its
// perturbed ids spell (PERTURBATION.md); the clean run goes the same way.
type lexicalIndex struct {
	m      *Model
	bm25   *retrieval.BM25
	docIDs []string
}

func newLexicalIndex(m *Model, corpus []dataset.Doc, docIDs []string) (*lexicalIndex, error) {
	x := retrieval.NewBM25(retrieval.Analyzer(m.Analyzer))
	for _, d := range corpus {
		x.Add(DocText(d))
	}
	return &lexicalIndex{m: m, bm25: x, docIDs: docIDs}, nil
}

func (l *lexicalIndex) search(ids [][]int32, names []string, k int) ([]metrics.Ranked, error) {
	texts := make([]string, len(ids))
	for i, s := range ids {
		texts[i] = l.m.Query.Tokenizer.Decode(s, true)
		if l.m.AnalyzerName == "bigram" {
			texts[i] = JoinCJK(texts[i])
		}
	}
	hits, err := l.bm25.Search(texts, retrieval.Options{K: k, DocIDs: l.docIDs})
	if err != nil {
		return nil, fmt.Errorf("BM25: %w", err)
	}
	out := make([]metrics.Ranked, len(hits))
	for i, hs := range hits {
		r := make(metrics.Ranked, len(hs))
		for j, h := range hs {
			r[j] = metrics.ScoredDoc{DocID: l.docIDs[h.Doc], Score: float64(h.Score)}
		}
		out[i] = r
	}
	return out, nil
}
