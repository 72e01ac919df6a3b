package retrieval

import (
	"errors"
	"fmt"
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
// (byte-wise string comparison), then, for rows with equal scores and
// equal ids (DocIDs with repeats), row descending. The search is exact: every query is
// scored against every corpus row in tiles, and a candidate buffer per
// query keeps the best K (topselect.go).
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
	cands := newCandidates(s, hi-lo)
	if bk := takeBlockKernel(dim); bk != nil {
		defer bk.release()
		return s.runBlocks(bk, lo, hi, cands, res)
	}
	out := make([]float32, bc*4)
	q, c := s.queries.Data, s.corpus.Data
	step := max(s.total/256, 1) // pairs between progress calls
	var pending int64
	for b0 := lo; b0 < hi; b0 += bq {
		b1 := min(b0+bq, hi)
		sets := cands.load(b0-lo, b1-lo)
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
				if err := s.collect(sets[q0-b0:q0-b0+mq], cands, out, q0, c0, nc); err != nil {
					return err
				}
			}
		}
		cands.store(b0 - lo)
	}
	s.report(pending)
	cands.results(res)
	return nil
}

// runBlocks is run with a block kernel: each call scores a block of
// queries against a chunk of the corpus, row-major, and the scores are
// offered to the candidate sets as run offers a tile's.
func (s *searcher) runBlocks(bk blockKernel, lo, hi int, cands *candidates, res [][]Hit) error {
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
			sets := cands.load(b0-lo, b1-lo)
			if err := s.collectRows(sets, cands, out, b0, c0, nc); err != nil {
				return err
			}
			cands.store(b0 - lo)
			s.report(int64(nc) * int64(b1-b0))
		}
	}
	cands.results(res)
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
// corpus row c0+j) to the queries' candidate sets.
func (s *searcher) collect(sets []candSet, cands *candidates, out []float32, q0, c0, nc int) error {
	row := cands.row(nc)
	for i := range sets {
		o := out[i : i+4*(nc-1)+1]
		if s.cInv == nil {
			for j := range row {
				row[j] = o[4*j]
			}
		} else {
			iq, ic := s.qInv[q0+i], s.cInv[c0:c0+nc]
			for j := range row {
				row[j] = o[4*j] * iq * ic[j]
			}
		}
		if err := s.scan(&sets[i], cands.scratch, row, q0+i, c0); err != nil {
			return err
		}
	}
	return nil
}

// collectRows offers a block kernel's scores, out[i*nc+j] for query q0+i
// and corpus row c0+j, to the queries' candidate sets (scaling them in
// place for Cosine).
func (s *searcher) collectRows(sets []candSet, cands *candidates, out []float32, q0, c0, nc int) error {
	for i := range sets {
		row := out[i*nc : (i+1)*nc]
		if s.cInv != nil {
			iq, ic := s.qInv[q0+i], s.cInv[c0:c0+nc]
			for j := range row {
				row[j] = row[j] * iq * ic[j]
			}
		}
		if err := s.scan(&sets[i], cands.scratch, row, q0+i, c0); err != nil {
			return err
		}
	}
	return nil
}

// scan offers query row q's scores against corpus rows c0, c0+1, ...,
// row[j] for row c0+j, to its candidate set (scratch: cut's).
func (s *searcher) scan(cs *candSet, scratch, row []float32, q, c0 int) error {
	for j := 0; j < len(row); {
		n, m, bad := keepRow(cs.hits[:cap(cs.hits)], len(cs.hits), cs.limit, cs.th, row[j:], c0+j)
		cs.hits = cs.hits[:n]
		j += m
		if bad {
			return scoreError(q, c0+j, row[j])
		}
		if n == cs.limit {
			cs.cut(s, s.k, scratch)
		}
	}
	return nil
}

// keepRow appends to buf[:n] the hits Hit{c0+j, row[j]} whose score is
// not below th, until n reaches limit, a kept score is NaN or infinite, or
// row ends. It returns the new length, the number of scores looked at,
// and whether the score after them, row[m], is a bad one. It calls
// nothing and branches on nothing but those stops: every score is written
// at buf[n] and kept by advancing n (about half of the scores pass early
// in a search, so a branch on it would be mispredicted often).
func keepRow(buf []Hit, n, limit int, th float32, row []float32, c0 int) (int, int, bool) {
	for j, v := range row {
		// !(v < th) is v >= th or v is NaN: a NaN is looked at, and is
		// an error, as are ±Inf (v-v is NaN for all three).
		keep := b2i(!(v < th))
		buf[n] = Hit{Doc: c0 + j, Score: v}
		n += keep
		// One branch for both stops (each is a jump out of the loop
		// under js/wasm, where Go's code pays for every block).
		if bad := b2i(v-v != 0) & keep; bad|b2i(n == limit) != 0 {
			if bad != 0 {
				return n - 1, j, true
			}
			return n, j + 1, false
		}
	}
	return n, len(row), false
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
