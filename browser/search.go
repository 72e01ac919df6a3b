package browser

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/dreval/dreval/retrieval"
)

// minSplitQueries is the fewest queries a search splits between the
// workers: below it, posting the corpus costs more than it saves.
const minSplitQueries = 64

// search is the session's Search (experiment.Session.Search): the query
// rows split between this worker and its helpers as helperEmbedder splits
// a batch, each part ranked by retrieval.TopK against the whole corpus.
// A query's hits depend on nothing but its row and the corpus, so the
// result is TopK's; the opening sweep's 3,514 distinct queries rank on
// every core. A helper's failure (a NaN in a row, say) reruns the whole
// search here, so that the error names the row as TopK does.
func (a *App) search(corpus, queries *retrieval.Matrix, opt retrieval.Options) ([][]retrieval.Hit, error) {
	peers := a.peerList()
	parts := min(len(peers)+1, queries.Rows/minSplitQueries)
	if parts <= 1 || corpus.Dim != queries.Dim {
		return retrieval.TopK(corpus, queries, opt)
	}
	dim := queries.Dim
	size := (queries.Rows + parts - 1) / parts
	cid := a.corpora.id(corpus, opt.DocIDs)
	var corpusBytes []byte
	type sent struct {
		p      *peer
		answer <-chan Message
		lo, hi int
	}
	var pending []sent
	for i := 1; i < parts; i++ {
		lo, hi := i*size, min((i+1)*size, queries.Rows)
		if lo >= hi {
			break
		}
		p := peers[i-1]
		a.mu.Lock()
		held := p.corpus == cid
		p.corpus = cid
		a.mu.Unlock()
		m := &SearchRequest{Dim: dim, K: opt.K, Scoring: int(opt.Scoring), CorpusID: cid, Queries: floatBytes(queries.Data[lo*dim : hi*dim])}
		if !held {
			// The corpus and its ids once per helper: the sweep's
			// batches and the slider's searches rank against the same.
			if corpusBytes == nil {
				corpusBytes = floatBytes(corpus.Data[:corpus.Rows*dim])
			}
			m.Corpus, m.DocIDs = corpusBytes, opt.DocIDs
		}
		pending = append(pending, sent{p, p.Call(m), lo, hi})
	}
	total := int64(queries.Rows) * int64(corpus.Rows)
	local := opt
	if opt.Progress != nil {
		// This worker's pairs count towards the whole search's; the
		// helpers' when they answer.
		local.Progress = func(done, _ int64) { opt.Progress(done, total) }
	}
	out := make([][]retrieval.Hit, queries.Rows)
	mine, err := retrieval.TopK(corpus, &retrieval.Matrix{Rows: size, Dim: dim, Data: queries.Data[:size*dim]}, local)
	if err != nil {
		return nil, err
	}
	copy(out, mine)
	failed := false
	for _, s := range pending {
		r, ok := (<-s.answer).(*SearchReply)
		if !ok { // an ErrorReply
			failed = true
			a.mu.Lock()
			s.p.corpus = 0 // sent again next time
			a.mu.Unlock()
			continue
		}
		hits, err := unpackHits(r.Data, s.hi-s.lo, corpus.Rows)
		if err != nil {
			return nil, fmt.Errorf("helper worker: %w", err)
		}
		copy(out[s.lo:s.hi], hits)
	}
	if failed {
		return retrieval.TopK(corpus, queries, opt)
	}
	if opt.Progress != nil {
		opt.Progress(total, total)
	}
	return out, nil
}

// searchCorpora is what the split searches' corpora are to the helpers.
// The first worker numbers each corpus it sends (with its document ids)
// and sends it to a helper once; the helper keeps the last few it got,
// by number, and answers an error for one it no longer holds (the first
// worker then searches alone, and sends the corpus again next time).
type searchCorpora struct {
	mu sync.Mutex
	// The first worker's side: the last corpus numbered with its
	// document ids (kept alive here, so that no other matrix can take
	// their addresses) and its number.
	last       *retrieval.Matrix
	lastDocIDs []string
	lastNum    int
	// A helper's side: the corpora received, newest last.
	held []heldCorpus
}

type heldCorpus struct {
	id     int
	corpus *retrieval.Matrix
	docIDs []string
}

// keepCorpora is how many corpora a helper holds.
const keepCorpora = 2

// id returns the number of corpus with docIDs: the last one's when they
// are the same matrix and slice (a search never changes its inputs),
// else a new one.
func (c *searchCorpora) id(corpus *retrieval.Matrix, docIDs []string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	same := c.last == corpus && len(c.lastDocIDs) == len(docIDs) && (len(docIDs) == 0 || &c.lastDocIDs[0] == &docIDs[0])
	if !same || c.lastNum == 0 {
		c.lastNum++
		c.last, c.lastDocIDs = corpus, docIDs
	}
	return c.lastNum
}

// put keeps a corpus a helper received under its number.
func (c *searchCorpora) put(h heldCorpus) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = append(c.held, h)
	if len(c.held) > keepCorpora {
		c.held = slices.Delete(c.held, 0, len(c.held)-keepCorpora)
	}
}

// get returns the corpus numbered id a helper holds.
func (c *searchCorpora) get(id int) (heldCorpus, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range c.held {
		if h.id == id {
			return h, true
		}
	}
	return heldCorpus{}, false
}

// searchPart answers a SearchRequest from the first worker: its query
// rows ranked by retrieval.TopK against the corpus the request carries,
// or the one it names when this helper holds it already.
func (a *App) searchPart(q *SearchRequest) (*SearchReply, error) {
	dim, id := q.Dim, q.CorpusID
	h, ok := a.corpora.get(id)
	if len(q.Corpus) > 0 {
		corpus, err := matrixOf(q.Corpus, dim)
		if err != nil {
			return nil, fmt.Errorf("search: corpus: %w", err)
		}
		h = heldCorpus{id: id, corpus: corpus, docIDs: q.DocIDs}
		if len(h.docIDs) == 0 {
			h.docIDs = nil
		}
		a.corpora.put(h)
	} else if !ok {
		return nil, fmt.Errorf("search: corpus %d is not held here any more", id)
	}
	if h.corpus.Dim != dim {
		return nil, fmt.Errorf("search: corpus %d has %d values a row, the queries %d", id, h.corpus.Dim, dim)
	}
	queries, err := matrixOf(q.Queries, dim)
	if err != nil {
		return nil, fmt.Errorf("search: queries: %w", err)
	}
	opt := retrieval.Options{K: q.K, Scoring: retrieval.Scoring(q.Scoring), DocIDs: h.docIDs}
	hits, err := retrieval.TopK(h.corpus, queries, opt)
	if err != nil {
		return nil, err
	}
	return &SearchReply{Data: packHits(hits)}, nil
}

// floatBytes returns v's values as little-endian float32 bytes.
func floatBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// matrixOf reads little-endian float32 bytes as a matrix of rows of dim
// values.
func matrixOf(b []byte, dim int) (*retrieval.Matrix, error) {
	if dim < 1 || len(b)%(4*dim) != 0 {
		return nil, fmt.Errorf("%d bytes are not rows of %d float32 values", len(b), dim)
	}
	m := retrieval.NewMatrix(len(b)/(4*dim), dim)
	for i := range m.Data {
		m.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return m, nil
}

// packHits writes each query's hits as its count (uint32), then per hit
// the document row (uint32) and the score's float32 bits.
func packHits(hits [][]retrieval.Hit) []byte {
	var b []byte
	for _, hs := range hits {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(hs)))
		for _, h := range hs {
			b = binary.LittleEndian.AppendUint32(b, uint32(h.Doc))
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(h.Score))
		}
	}
	return b
}

// unpackHits reads packHits' bytes of n queries over a corpus of rows
// documents.
func unpackHits(b []byte, n, rows int) ([][]retrieval.Hit, error) {
	out := make([][]retrieval.Hit, n)
	for q := range out {
		if len(b) < 4 {
			return nil, errors.New("search hits cut short")
		}
		c := int(binary.LittleEndian.Uint32(b))
		b = b[4:]
		if c > rows || len(b) < 8*c {
			return nil, errors.New("search hits cut short")
		}
		hs := make([]retrieval.Hit, c)
		for i := range hs {
			doc := int(binary.LittleEndian.Uint32(b[8*i:]))
			if doc >= rows {
				return nil, fmt.Errorf("search hit of document row %d in a corpus of %d", doc, rows)
			}
			hs[i] = retrieval.Hit{Doc: doc, Score: math.Float32frombits(binary.LittleEndian.Uint32(b[8*i+4:]))}
		}
		b = b[8*c:]
		out[q] = hs
	}
	if len(b) != 0 {
		return nil, errors.New("search hits: bytes left over")
	}
	return out, nil
}
