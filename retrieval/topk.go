package retrieval

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"
)

// Scoring is how TopK scores a query vector against a corpus vector.
type Scoring int

const (
	// Cosine is the dot product scaled by both vectors' inverse L2 norms:
	// dot(q, c) · (1/‖q‖) · (1/‖c‖), with each inverse norm computed once
	// per row in float64 and rounded to float32. The inputs are neither
	// copied nor modified (call Matrix.Normalize and use Dot to normalise
	// in place instead). A zero vector has cosine 0 with everything.
	Cosine Scoring = iota
	// Dot is the raw dot product.
	Dot
)

// String returns "cos" or "dot".
func (s Scoring) String() string {
	switch s {
	case Cosine:
		return "cos"
	case Dot:
		return "dot"
	}
	return "Scoring(" + strconv.Itoa(int(s)) + ")"
}

// ParseScoring parses "cos" (or "cosine") and "dot".
func ParseScoring(s string) (Scoring, error) {
	switch s {
	case "cos", "cosine":
		return Cosine, nil
	case "dot":
		return Dot, nil
	}
	return 0, fmt.Errorf("unknown scoring %q, want cos or dot", s)
}

// Hit is one retrieved document: its corpus row and score.
type Hit struct {
	Doc   int
	Score float32
}

// Options configures TopK.
type Options struct {
	// K is the number of documents returned per query (at least 1). When
	// the corpus has fewer rows, every row is returned.
	K int
	// Scoring is Cosine (the zero value) or Dot.
	Scoring Scoring
	// Threads is the number of goroutines scoring queries in parallel;
	// 0 means runtime.GOMAXPROCS(0). Results do not depend on it.
	Threads int
	// DocIDs names the corpus rows for tie-breaking; nil means the row
	// numbers written in decimal ("0", "1", ...).
	DocIDs []string
	// Progress, when not nil, is called as TopK advances with the number
	// of query-document pairs scored so far and their total (queries x
	// corpus rows): after a block of work once at least 1/256 of the
	// total has been scored since the last call, and at the end.
	// Calls may come from different goroutines but never overlap, and
	// done never decreases.
	Progress func(done, total int64)
}

// TopK returns, for every query row, the K best corpus rows, best first.
// Order follows trec_eval: score descending, then document id descending
// (byte-wise string comparison). The search is exact: every query is
// scored against every corpus row in tiles, and a bounded heap per query
// keeps the best K.
//
// TopK fails on an empty corpus, mismatched dimensions, a NaN or infinite
// value in either matrix (the error names the matrix and row), and a dot
// product that overflows float32.
func TopK(corpus, queries *Matrix, opt Options) ([][]Hit, error) {
	if err := corpus.check("corpus"); err != nil {
		return nil, err
	}
	if err := queries.check("queries"); err != nil {
		return nil, err
	}
	switch {
	case corpus.Rows == 0:
		return nil, errors.New("empty corpus: no rows to search")
	case corpus.Dim == 0:
		return nil, errors.New("corpus vectors have dimension 0")
	case queries.Dim != corpus.Dim:
		return nil, fmt.Errorf("dimension mismatch: queries have %d dimensions, corpus %d", queries.Dim, corpus.Dim)
	case opt.K < 1:
		return nil, fmt.Errorf("k = %d, want at least 1", opt.K)
	case opt.DocIDs != nil && len(opt.DocIDs) != corpus.Rows:
		return nil, fmt.Errorf("%d document ids for %d corpus rows", len(opt.DocIDs), corpus.Rows)
	case opt.Scoring != Cosine && opt.Scoring != Dot:
		return nil, fmt.Errorf("unknown scoring %v", opt.Scoring)
	}
	if err := corpus.CheckFinite("corpus"); err != nil {
		return nil, err
	}
	if err := queries.CheckFinite("queries"); err != nil {
		return nil, err
	}
	s := &searcher{corpus: corpus, queries: queries, k: min(opt.K, corpus.Rows), ids: opt.DocIDs, progress: opt.Progress}
	s.total = int64(queries.Rows) * int64(corpus.Rows)
	if opt.Scoring == Cosine {
		s.cInv = rowInvNorms(corpus)
		s.qInv = rowInvNorms(queries)
	}
	res := make([][]Hit, queries.Rows)
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = max(1, min(threads, (queries.Rows+tileQ-1)/tileQ))
	// Split the queries into contiguous ranges, whole tiles each.
	per := (queries.Rows + threads - 1) / threads
	per = (per + tileQ - 1) / tileQ * tileQ
	var wg sync.WaitGroup
	errs := make([]error, threads)
	for t := 0; t < threads; t++ {
		lo, hi := t*per, min((t+1)*per, queries.Rows)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[t] = s.run(lo, hi, res[lo:hi])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return res, nil
}

// rowInvNorms returns 1/||row|| for every row of m (0 for zero rows).
func rowInvNorms(m *Matrix) []float32 {
	inv := make([]float32, m.Rows)
	for i := range inv {
		inv[i] = invNorm(m.Row(i))
	}
	return inv
}

// searcher holds one TopK call's read-only inputs.
type searcher struct {
	corpus, queries *Matrix
	k               int
	ids             []string
	cInv, qInv      []float32 // inverse norms for Cosine, nil for Dot

	progress func(done, total int64)
	mu       sync.Mutex // serialises progress calls and guards done
	done     int64
	total    int64
}

// report adds n scored pairs and calls the progress callback.
func (s *searcher) report(n int64) {
	if s.progress == nil || n == 0 {
		return
	}
	s.mu.Lock()
	s.done += n
	s.progress(s.done, s.total)
	s.mu.Unlock()
}

// Blocking: a block of queries stays in the L2 cache while the corpus
// streams past it in small blocks that stay in L1; every kernel call
// scores one query tile (tileQ rows) against one corpus block.
const (
	queryBlockBytes  = 256 << 10
	corpusBlockBytes = 24 << 10
)

// run scores queries [lo, hi) against the whole corpus into res.
func (s *searcher) run(lo, hi int, res [][]Hit) error {
	dim := s.corpus.Dim
	bc := max(corpusBlockBytes/(4*dim)/3*3, 3)
	bq := max(queryBlockBytes/(4*dim)/tileQ*tileQ, tileQ)
	out := make([]float32, bc*4)
	heaps := make([]topHeap, hi-lo)
	for i := range heaps {
		heaps[i] = topHeap{hits: make([]Hit, 0, s.k), k: s.k, thresh: float32(math.Inf(-1)), s: s}
	}
	if bk := takeBlockKernel(dim); bk != nil {
		defer bk.release()
		return s.runBlocks(bk, lo, hi, heaps, res)
	}
	q, c := s.queries.Data, s.corpus.Data
	step := max(s.total/256, 1) // pairs between progress calls
	var pending int64
	for b0 := lo; b0 < hi; b0 += bq {
		b1 := min(b0+bq, hi)
		for c0 := 0; c0 < s.corpus.Rows; c0 += bc {
			nc := min(bc, s.corpus.Rows-c0)
			if pending += int64(nc) * int64(b1-b0); pending >= step {
				s.report(pending)
				pending = 0
			}
			cb := c[c0*dim:]
			for q0 := b0; q0 < b1; q0 += tileQ {
				mq := min(tileQ, b1-q0)
				dotTile(q[q0*dim:], dim, mq, cb, dim, nc, dim, out)
				if err := s.collect(heaps[q0-lo:q0-lo+mq], out, q0, c0, nc); err != nil {
					return err
				}
			}
		}
	}
	s.report(pending)
	for i := range heaps {
		res[i] = heaps[i].sorted()
	}
	return nil
}

// runBlocks is run with a block kernel: each call scores a block of
// queries against a chunk of the corpus, row-major, and the scores are
// offered to the heaps as run offers a tile's.
func (s *searcher) runBlocks(bk blockKernel, lo, hi int, heaps []topHeap, res [][]Hit) error {
	dim := s.corpus.Dim
	chunk := max(blockCorpusBytes/(4*dim), 1)
	for c0 := 0; c0 < s.corpus.Rows; c0 += chunk {
		nc := min(chunk, s.corpus.Rows-c0)
		// Blocks of about 1/256 of the search (Options.Progress), whole
		// tiles, their scores at most blockOutBytes.
		bq := int((max(s.total/256, 1)+int64(nc)-1)/int64(nc)+simdTile-1) / simdTile * simdTile
		bq = max(min(bq, blockOutBytes/(4*nc)/simdTile*simdTile), simdTile)
		corpus := s.corpus.Data[c0*dim : (c0+nc)*dim]
		for b0 := lo; b0 < hi; b0 += bq {
			b1 := min(b0+bq, hi)
			out, err := bk.scores(s.queries.Data[b0*dim:b1*dim], b1-b0, corpus, nc, dim, b0 == lo)
			if err != nil {
				return err
			}
			if err := s.collectStrided(heaps[b0-lo:b1-lo], out, nc, 1, b0, c0, nc); err != nil {
				return err
			}
			s.report(int64(nc) * int64(b1-b0))
		}
	}
	for i := range heaps {
		res[i] = heaps[i].sorted()
	}
	return nil
}

// simdTile is the number of query rows the browser's SIMD module scores
// together (kernel_wasm_gen_test.go); the rows left over are scored one at
// a time. Blocks are whole tiles.
const simdTile = 4

// The block kernel's chunks: a chunk of the corpus is copied to the
// kernel once for all queries, and each call's scores (a block of
// queries against the chunk) are copied back.
const (
	blockCorpusBytes = 8 << 20
	blockOutBytes    = 4 << 20
)

// blockKernel scores a block of queries against a chunk of the corpus at
// once (the browser's SIMD module, kernel_js.go), with the canonical
// order of operations.
type blockKernel interface {
	// scores returns out[i*nc + j] = dot(q_i, c_j) for i < mq, j < nc,
	// valid until the next call. newCorpus says that c differs from the
	// last call's: it must be set on a kernel's first call in a search.
	scores(q []float32, mq int, c []float32, nc, dim int, newCorpus bool) ([]float32, error)
	// release gives the kernel back for another search.
	release()
}

// takeBlockKernel returns a block kernel for rows of dim values, or nil
// where there is none (then the tile kernels score): set by kernel_js.go.
var takeBlockKernel = func(dim int) blockKernel { return nil }

// collect offers the scores of one tile (out[j*4+i] for query q0+i and
// corpus row c0+j) to the queries' heaps, skipping without a heap access
// every score below a heap's current threshold.
func (s *searcher) collect(heaps []topHeap, out []float32, q0, c0, nc int) error {
	return s.collectStrided(heaps, out, 1, 4, q0, c0, nc)
}

// collectStrided is collect for scores laid out as out[i*rs + j*cs] for
// query q0+i and corpus row c0+j.
func (s *searcher) collectStrided(heaps []topHeap, out []float32, rs, cs, q0, c0, nc int) error {
	for i := range heaps {
		h := &heaps[i]
		th := h.thresh
		o := out[i*rs:]
		if s.cInv == nil {
			for j := 0; j < nc; j++ {
				if v := o[j*cs]; v >= th || v != v {
					if err := h.offer(c0+j, v, q0+i); err != nil {
						return err
					}
					th = h.thresh
				}
			}
			continue
		}
		iq := s.qInv[q0+i]
		ic := s.cInv[c0 : c0+nc]
		for j := 0; j < nc; j++ {
			if v := o[j*cs] * iq * ic[j]; v >= th || v != v {
				if err := h.offer(c0+j, v, q0+i); err != nil {
					return err
				}
				th = h.thresh
			}
		}
	}
	return nil
}

// topHeap keeps the best k hits of one query as a min-heap whose root is
// the worst kept hit; thresh is the root's score once the heap is full, so
// lower scores are rejected without touching the heap.
type topHeap struct {
	hits   []Hit
	k      int
	thresh float32
	s      *searcher
}

// better reports whether a ranks before b: higher score, then larger id.
func (s *searcher) better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return s.compareIDs(a.Doc, b.Doc) > 0
}

// compareIDs compares the ids of corpus rows a and b byte-wise.
func (s *searcher) compareIDs(a, b int) int {
	if s.ids != nil {
		switch {
		case s.ids[a] < s.ids[b]:
			return -1
		case s.ids[a] > s.ids[b]:
			return 1
		}
		return 0
	}
	var ba, bb [20]byte
	return bytes.Compare(strconv.AppendInt(ba[:0], int64(a), 10), strconv.AppendInt(bb[:0], int64(b), 10))
}

// offer considers corpus row doc with score v for query row q.
func (h *topHeap) offer(doc int, v float32, q int) error {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return fmt.Errorf("score of query row %d against corpus row %d is %v: the dot product overflows float32", q, doc, v)
	}
	x := Hit{Doc: doc, Score: v}
	if len(h.hits) < h.k {
		h.hits = append(h.hits, x)
		h.up(len(h.hits) - 1)
		if len(h.hits) == h.k {
			h.thresh = h.hits[0].Score
		}
		return nil
	}
	if !h.s.better(x, h.hits[0]) {
		return nil
	}
	h.hits[0] = x
	h.down(0)
	h.thresh = h.hits[0].Score
	return nil
}

func (h *topHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.s.better(h.hits[p], h.hits[i]) {
			break
		}
		h.hits[p], h.hits[i] = h.hits[i], h.hits[p]
		i = p
	}
}

func (h *topHeap) down(i int) {
	n := len(h.hits)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		w := l // the worse child
		if r := l + 1; r < n && h.s.better(h.hits[l], h.hits[r]) {
			w = r
		}
		if !h.s.better(h.hits[i], h.hits[w]) {
			return
		}
		h.hits[i], h.hits[w] = h.hits[w], h.hits[i]
		i = w
	}
}

// sorted returns the kept hits best first, sorting the heap in place:
// its root is the worst kept hit, so moving the root to the end of the
// shrinking heap, n times, leaves the best first (a heapsort: no
// reflection, no allocation).
func (h *topHeap) sorted() []Hit {
	out := h.hits
	for n := len(out) - 1; n > 0; n-- {
		out[0], out[n] = out[n], out[0]
		h.hits = out[:n]
		h.down(0)
	}
	h.hits = out
	return out
}

// CheckSearch checks that corpus and queries, read from the files named
// corpusName and queriesName, can be searched: a corpus with rows, vectors
// of the same dimension on both sides and finite values. "dreval search"
// and the page's vectors mode check their inputs with it, so both refuse
// the same files with the same messages.
func CheckSearch(corpus, queries *Matrix, corpusName, queriesName string) error {
	if err := corpus.CheckFinite(corpusName); err != nil {
		return err
	}
	if err := queries.CheckFinite(queriesName); err != nil {
		return err
	}
	if corpus.Rows == 0 {
		return fmt.Errorf("%s: empty corpus (shape (0, %d)): nothing to search", corpusName, corpus.Dim)
	}
	if queries.Dim != corpus.Dim {
		return fmt.Errorf("%s has %d-dimensional vectors, %s has %d: embed both with the same model", queriesName, queries.Dim, corpusName, corpus.Dim)
	}
	return nil
}
