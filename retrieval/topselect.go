package retrieval

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// TopK keeps each query's best k hits in a candidate buffer: a score not
// below the query's threshold is appended, and when the buffer is full it
// is cut back to its k best under the total order of (*searcher).before.
// The threshold is -Inf until the query's first k scores are in, then the
// lowest of them, then after each cut the k-th best score kept; it only
// rises, and no score below it can be among the k best. The k best are
// sorted once, at the end. A score costs a comparison and a store without
// a branch (keepRow), a cut a float quickselect over the buffer's scores,
// and document ids are compared only on exact ties; a bounded heap cost
// about 2·log2(k) comparisons through method calls per replacement, with
// about k·ln(n/k) replacements per query.
//
// Which scores are errors, and which one an error names, is the rule TopK
// had with the heap: NaN and +Inf always (a NaN fails every comparison
// but is still looked at, +Inf passes every threshold), -Inf when it is
// among a query's first k scores (the threshold is then still -Inf); a
// later -Inf is below the threshold and dropped, as the heap dropped it.
// The first such score in the search's order fails the search.

// candSlack is how many candidates beyond k a query's buffer holds before
// it is cut back to k (at the lesson's shape 2k is a little faster than k
// or 4k: BenchmarkSelection).
func candSlack(k int) int { return max(2*k, 16) }

// candSet is one query's candidates: hits (within the block's buffer, cap
// k+candSlack(k)), the threshold below which no score can make the top k,
// and the length at which the next cut happens (k until the first k
// scores are in, then the buffer's capacity).
type candSet struct {
	hits  []Hit
	th    float32
	limit int
}

// candidates holds the candidate sets of a block of queries, kept between
// blocks in a compact form: each query's best k so far (unsorted) and its
// threshold, so that a thread needs a buffer for one block of queries only.
type candidates struct {
	s    *searcher
	k    int
	sets []candSet
	buf  []Hit

	scratch []float32 // cut's copy of a set's scores
	rowBuf  []float32 // collect's row of a tile's scores

	kept   []Hit     // kept[i*k:][:n[i]]: query lo+i's best so far
	n      []int     // hits kept per query
	thresh []float32 // per query: the threshold when its set was stored
}

// newCandidates returns the candidate store for nq queries.
func newCandidates(s *searcher, nq int) *candidates {
	k := s.k
	c := &candidates{s: s, k: k, kept: make([]Hit, nq*k), n: make([]int, nq), thresh: make([]float32, nq)}
	for i := range c.thresh {
		c.thresh[i] = float32(math.Inf(-1))
	}
	return c
}

// load makes c.sets the sets of queries [q0, q1) (offsets from the
// thread's first query) with their hits so far.
func (c *candidates) load(q0, q1 int) []candSet {
	k := c.k
	width := k + candSlack(k)
	if nq := q1 - q0; cap(c.sets) < nq {
		c.sets = make([]candSet, nq)
		c.buf = make([]Hit, nq*width)
		c.scratch = make([]float32, width)
	}
	c.sets = c.sets[:q1-q0]
	for i := range c.sets {
		q := q0 + i
		h := append(c.buf[i*width:i*width:(i+1)*width], c.kept[q*k:q*k+c.n[q]]...)
		limit := k
		if len(h) == k {
			limit = width
		}
		c.sets[i] = candSet{hits: h, th: c.thresh[q], limit: limit}
	}
	return c.sets
}

// row returns a buffer of n scores.
func (c *candidates) row(n int) []float32 {
	if cap(c.rowBuf) < n {
		c.rowBuf = make([]float32, n)
	}
	return c.rowBuf[:n]
}

// store cuts the sets loaded for queries from q0 back to their best k and
// keeps them.
func (c *candidates) store(q0 int) {
	k := c.k
	for i := range c.sets {
		cs := &c.sets[i]
		if len(cs.hits) > k {
			cs.cut(c.s, k, c.scratch)
		}
		q := q0 + i
		c.n[q] = copy(c.kept[q*k:(q+1)*k], cs.hits)
		c.thresh[q] = cs.th
	}
}

// results sorts each query's kept hits, best first, into res.
func (c *candidates) results(res [][]Hit) {
	k := c.k
	for q := range res {
		h := c.kept[q*k : q*k+c.n[q] : q*k+c.n[q]]
		c.s.sortHits(h)
		res[q] = h
	}
}

// cut is called when a set reaches its limit: the first time (k hits) it
// sets the threshold to the lowest score; later it keeps the k best hits
// and sets the threshold to the k-th best score. The k-th best score T is
// found among the scores alone (a copy in scratch: 4-byte moves, float
// comparisons); the hits scoring at least T are then kept, and only when
// hits tie at T across the cut does a selection by the full order decide
// which of them stay.
func (cs *candSet) cut(s *searcher, k int, scratch []float32) {
	h := cs.hits
	if len(h) == k {
		th := h[0].Score
		for _, x := range h[1:] {
			if x.Score < th { // not min: a call under js/wasm
				th = x.Score
			}
		}
		cs.th, cs.limit = th, cap(h)
		return
	}
	f := scratch[:len(h)]
	for i, x := range h {
		f[i] = x.Score
	}
	t := kthBest(f, k)
	n := 0
	for _, x := range h {
		h[n] = x
		n += b2i(x.Score >= t)
	}
	if n > k {
		s.selectBest(h[:n], k)
	}
	cs.hits, cs.th, cs.limit = h[:k], t, cap(h)
}

// kthBest returns the k-th largest value of f (1 <= k <= len(f), no
// NaNs), reordering f: a quickselect with a median-of-three pivot and a
// branch-free partition, sorting what is left after too many rounds.
func kthBest(f []float32, k int) float32 {
	t := len(f) - k // the answer's index in ascending order
	lo, hi := 0, len(f)
	for rounds := 2 * bits.Len(uint(len(f))); hi-lo > 12 && rounds > 0; rounds-- {
		p := lo + partitionFloats(f[lo:hi])
		switch {
		case p == t:
			return f[p]
		case p > t:
			hi = p
		default:
			lo = p + 1
		}
	}
	slices.Sort(f[lo:hi])
	return f[t]
}

// partitionFloats reorders f (len(f) >= 3) around a median-of-three
// pivot and returns its index p: f[:p] < f[p] <= f[p+1:].
func partitionFloats(f []float32) int {
	n := len(f)
	m := n / 2
	if f[m] < f[0] {
		f[m], f[0] = f[0], f[m]
	}
	if f[n-1] < f[m] {
		f[n-1], f[m] = f[m], f[n-1]
		if f[m] < f[0] {
			f[m], f[0] = f[0], f[m]
		}
	}
	f[m], f[n-1] = f[n-1], f[m]
	pv := f[n-1]
	p := 0
	for i, x := range f[:n-1] {
		f[i] = f[p]
		f[p] = x
		p += b2i(x < pv)
	}
	f[p], f[n-1] = f[n-1], f[p]
	return p
}

// scoreError is TopK's error for a score that is NaN or infinite.
func scoreError(q, doc int, v float32) error {
	return fmt.Errorf("score of query row %d against corpus row %d is %v: the dot product overflows float32", q, doc, v)
}

// before reports whether a ranks before b: higher score, then larger id.
// Rows with equal scores and equal ids (DocIDs with repeats) rank by row,
// the higher row first, so that the order is total.
func (s *searcher) before(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return s.tieBefore(a.Doc, b.Doc)
}

// tieBefore reports whether row a ranks before row b when their scores
// are equal.
func (s *searcher) tieBefore(a, b int) bool {
	if c := s.compareIDs(a, b); c != 0 {
		return c > 0
	}
	return a > b
}

// compareIDs compares the ids of corpus rows a and b byte-wise.
func (s *searcher) compareIDs(a, b int) int {
	if s.ids != nil {
		return strings.Compare(s.ids[a], s.ids[b])
	}
	var ba, bb [20]byte
	return bytes.Compare(strconv.AppendInt(ba[:0], int64(a), 10), strconv.AppendInt(bb[:0], int64(b), 10))
}

// selectBest rearranges h so that h[:k] holds its k best hits, in no
// particular order (0 < k < len(h)): a quickselect with a median-of-three
// pivot that sorts what is left after too many rounds.
func (s *searcher) selectBest(h []Hit, k int) {
	lo, hi := 0, len(h) // h[:lo] are among the k best, h[hi:] are not
	for rounds := 2 * bits.Len(uint(len(h))); hi-lo > 12; rounds-- {
		if rounds == 0 {
			s.sortHits(h[lo:hi])
			return
		}
		p := s.partition(h[lo:hi]) + lo
		switch {
		case p == k || p == k-1:
			return
		case p > k:
			hi = p
		default:
			lo = p + 1
		}
	}
	s.insertionSort(h[lo:hi])
}

// partition reorders h (len(h) >= 3) around a median-of-three pivot and
// returns its index p: h[:p] rank before it, h[p+1:] after it.
func (s *searcher) partition(h []Hit) int {
	n := len(h)
	m := n / 2
	// Order h[0], h[m], h[n-1] and move the median to the end.
	if s.before(h[m], h[0]) {
		h[m], h[0] = h[0], h[m]
	}
	if s.before(h[n-1], h[m]) {
		h[n-1], h[m] = h[m], h[n-1]
		if s.before(h[m], h[0]) {
			h[m], h[0] = h[0], h[m]
		}
	}
	h[m], h[n-1] = h[n-1], h[m]
	pv := h[n-1]
	p := 0
	// Branch-free but for exact ties: a random comparison's branch is
	// mispredicted half the time.
	for i := 0; i < n-1; i++ {
		x := h[i]
		b := x.Score > pv.Score
		if x.Score == pv.Score {
			b = s.tieBefore(x.Doc, pv.Doc)
		}
		h[i] = h[p]
		h[p] = x
		p += b2i(b)
	}
	h[p], h[n-1] = h[n-1], h[p]
	return p
}

// sortHits sorts h best first: a quicksort on the partition above, with
// insertion sort for short ranges and slices.SortFunc (O(n log n)) after
// too many rounds.
func (s *searcher) sortHits(h []Hit) {
	s.quickSort(h, 2*bits.Len(uint(len(h))))
}

func (s *searcher) quickSort(h []Hit, rounds int) {
	for len(h) > 12 {
		if rounds == 0 {
			slices.SortFunc(h, func(a, b Hit) int {
				switch {
				case s.before(a, b):
					return -1
				case s.before(b, a):
					return 1
				}
				return 0
			})
			return
		}
		rounds--
		p := s.partition(h)
		// Recurse into the shorter side, loop on the longer.
		if p < len(h)-p {
			s.quickSort(h[:p], rounds)
			h = h[p+1:]
		} else {
			s.quickSort(h[p+1:], rounds)
			h = h[:p]
		}
	}
	s.insertionSort(h)
}

func (s *searcher) insertionSort(h []Hit) {
	for i := 1; i < len(h); i++ {
		x := h[i]
		j := i
		for ; j > 0; j-- {
			y := h[j-1]
			if !(x.Score > y.Score || x.Score == y.Score && s.tieBefore(x.Doc, y.Doc)) {
				break
			}
			h[j] = y
		}
		h[j] = x
	}
}

// b2i is 1 for true and 0 for false, without a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
