package retrieval

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tieMatrix returns rows x dim values that are mostly 0 and otherwise -1,
// 1 or 2, so that dot products are small integers and most scores tie.
func tieMatrix(rng *rand.Rand, rows, dim int, density float64) *Matrix {
	m := NewMatrix(rows, dim)
	for i := range m.Data {
		if rng.Float64() < density {
			m.Data[i] = float32(rng.IntN(4) - 1)
		}
	}
	return m
}

// shuffledIDs returns n distinct ids whose byte order differs from the
// row order and from numeric order (lengths vary).
func shuffledIDs(rng *rand.Rand, n int) []string {
	ids := make([]string, n)
	for i, p := range rng.Perm(n) {
		ids[i] = strconv.Itoa(p*7) + strings.Repeat("x", p%3)
	}
	return ids
}

// TestTopKMatchesSortedReference compares TopK's candidate selection with
// the straightforward reference (score every pair, sort all n hits by the
// total order, take k) on inputs where most scores tie: every k from 1 to
// beyond the corpus, ties across the tile kernel's corpus blocks (24 rows
// at 256 dimensions) and query blocks, several threads, both scorings,
// ids given and not.
func TestTopKMatchesSortedReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, tc := range []struct {
		docs, queries, dim int
		density            float64
	}{
		{1, 3, 4, 0.5},
		{7, 5, 3, 0.6},
		{50, 20, 8, 0.3},
		{300, 40, 256, 0.01}, // scores 0, ±1, ±2 mostly: ties everywhere
		{300, 300, 256, 0.05},
		{1084, 9, 16, 0.2},
	} {
		c := tieMatrix(rng, tc.docs, tc.dim, tc.density)
		q := tieMatrix(rng, tc.queries, tc.dim, tc.density)
		ids := shuffledIDs(rng, tc.docs)
		for _, sc := range []Scoring{Dot, Cosine} {
			for _, docIDs := range [][]string{nil, ids} {
				all := bruteTopK(c, q, tc.docs, sc, docIDs) // every hit, sorted
				for _, k := range []int{1, 2, 3, 17, 100, tc.docs - 1, tc.docs, tc.docs + 5} {
					if k < 1 {
						continue
					}
					for _, threads := range []int{1, 3} {
						name := fmt.Sprintf("%dx%dx%d k=%d %v threads=%d ids=%v", tc.docs, tc.queries, tc.dim, k, sc, threads, docIDs != nil)
						got, err := TopK(c, q, Options{K: k, Scoring: sc, Threads: threads, DocIDs: docIDs})
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						for i, hs := range got {
							if want := all[i][:min(k, tc.docs)]; !slices.Equal(hs, want) {
								t.Fatalf("%s: query %d: TopK differs from the sorted reference:\n got %v\nwant %v", name, i, hs, want)
							}
						}
					}
				}
			}
		}
	}
}

// TestTopKDemoSizeMatchesReference runs the page's opening lesson's shape
// (1,084 documents, 3,514 queries, 256 dimensions, k = 100, two threads)
// against the sorted reference, with a few exact duplicates so that ties
// occur at real scores.
func TestTopKDemoSizeMatchesReference(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the reference sorts 3.8 million hits")
	}
	rng := rand.New(rand.NewPCG(23, 24))
	c, q := randMatrix(rng, 1084, 256), randMatrix(rng, 3514, 256)
	for _, d := range []int{1, 500, 1083} {
		copy(c.Row(d), c.Row(d-1))
	}
	c.Normalize()
	q.Normalize()
	got, err := TopK(c, q, Options{K: 100, Scoring: Dot, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := bruteTopK(c, q, 100, Dot, nil)
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("query %d: TopK differs from the sorted reference", i)
		}
	}
}

// TestTopKScoreErrors pins which overflowing scores are errors, and which
// row the error names: NaN and +Inf always, -Inf only among a query's
// first k scores (later it is below the k-th best and dropped), and the
// first bad score in the search's order (query rows of one thread in
// order, corpus rows in order within a query).
func TestTopKScoreErrors(t *testing.T) {
	const big = 3e38
	// Corpus rows against the query (big, big): 0 and 1 finite, 2 -Inf,
	// 3 +Inf, 4 NaN (+Inf + -Inf), 5 finite.
	corpus := &Matrix{Rows: 6, Dim: 2, Data: []float32{
		1, 0,
		0, 1,
		-big, -big,
		big, big,
		big, -big,
		0.5, 0.5,
	}}
	pick := func(rows ...int) *Matrix {
		m := NewMatrix(len(rows), 2)
		for i, r := range rows {
			copy(m.Row(i), corpus.Row(r))
		}
		return m
	}
	query := &Matrix{Rows: 1, Dim: 2, Data: []float32{big, big}}
	for _, tc := range []struct {
		name   string
		corpus *Matrix
		k      int
		want   string // "" for no error
	}{
		{"-Inf among the first k", pick(0, 2, 1), 2, "corpus row 1 is -Inf"},
		{"-Inf after the first k", pick(0, 1, 2, 5), 2, ""},
		{"-Inf at row k", pick(0, 1, 2), 3, "corpus row 2 is -Inf"},
		{"+Inf after the first k", pick(0, 1, 5, 3), 1, "corpus row 3 is +Inf"},
		{"NaN after the first k", pick(5, 0, 1, 4), 1, "corpus row 3 is NaN"},
		{"first bad row named", pick(0, 1, 5, 4, 3), 1, "corpus row 3 is NaN"},
	} {
		for _, threads := range []int{1, 2} {
			_, err := TopK(tc.corpus, query, Options{K: tc.k, Scoring: Dot, Threads: threads})
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s: %v", tc.name, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), "score of query row 0 against "+tc.want)):
				t.Errorf("%s: got error %v, want one naming %s", tc.name, err, tc.want)
			}
		}
	}
	// Several queries: the lowest bad query row in a thread's order.
	qs := &Matrix{Rows: 4, Dim: 2, Data: []float32{1e-30, 1e-30, 1e-30, 1e-30, big, big, big, big}}
	_, err := TopK(pick(5, 3, 0), qs, Options{K: 1, Scoring: Dot, Threads: 1})
	if err == nil || !strings.Contains(err.Error(), "score of query row 2 against corpus row 1 is +Inf") {
		t.Errorf("several queries: got %v, want query row 2 against corpus row 1", err)
	}
}

// TestTopKRepeatedIDs checks the order's last rule: rows with equal
// scores and equal ids rank by row, the higher first.
func TestTopKRepeatedIDs(t *testing.T) {
	corpus := NewMatrix(40, 1)
	for i := range corpus.Data {
		corpus.Data[i] = 1
	}
	ids := make([]string, 40)
	for i := range ids {
		ids[i] = []string{"a", "b"}[i%2]
	}
	q := &Matrix{Rows: 1, Dim: 1, Data: []float32{1}}
	got, err := TopK(corpus, q, Options{K: 5, Scoring: Dot, DocIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	var rows []int
	for _, h := range got[0] {
		rows = append(rows, h.Doc)
	}
	if want := []int{39, 37, 35, 33, 31}; !slices.Equal(rows, want) {
		t.Errorf("got rows %v, want %v", rows, want)
	}
}

// referenceBest sorts a copy of h by the total order and keeps k.
func referenceBest(s *searcher, h []Hit, k int) []Hit {
	r := slices.Clone(h)
	slices.SortFunc(r, func(a, b Hit) int {
		switch {
		case s.before(a, b):
			return -1
		case s.before(b, a):
			return 1
		}
		return 0
	})
	return r[:min(k, len(r))]
}

// TestSelectAndSort checks selectBest and sortHits against the reference
// on shapes that reach their fallbacks: sorted and reversed inputs, all
// scores equal, few distinct scores, and every k.
func TestSelectAndSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for _, n := range []int{1, 2, 3, 12, 13, 14, 50, 257, 1000} {
		for shape := 0; shape < 5; shape++ {
			h := make([]Hit, n)
			for i := range h {
				var v float32
				switch shape {
				case 0:
					v = float32(rng.NormFloat64())
				case 1:
					v = float32(i)
				case 2:
					v = float32(-i)
				case 3:
					v = 1
				case 4:
					v = float32(rng.IntN(3))
				}
				h[i] = Hit{Doc: i, Score: v}
			}
			rng.Shuffle(n, func(i, j int) {
				if shape == 0 || shape >= 3 {
					h[i], h[j] = h[j], h[i]
				}
			})
			s := &searcher{}
			if shape == 4 {
				s.ids = shuffledIDs(rng, n)
			}
			for _, k := range []int{1, 2, n / 3, n / 2, n - 1} {
				if k < 1 || k >= n {
					continue
				}
				g := slices.Clone(h)
				s.selectBest(g, k)
				g = g[:k]
				s.sortHits(g)
				if want := referenceBest(s, h, k); !slices.Equal(g, want) {
					t.Fatalf("n %d shape %d k %d: selectBest+sortHits %v, want %v", n, shape, k, g, want)
				}
			}
			g := slices.Clone(h)
			s.sortHits(g)
			if want := referenceBest(s, h, n); !slices.Equal(g, want) {
				t.Fatalf("n %d shape %d: sortHits differs from the reference", n, shape)
			}
		}
	}
}

// FuzzSelectBest checks selectBest and sortHits against the reference on
// arbitrary scores (4 bytes each, many ties from a one-byte mode) and k.
func FuzzSelectBest(f *testing.F) {
	f.Add(uint8(3), []byte{0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 128, 63, 0, 0, 0, 0})
	f.Add(uint8(1), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		var h []Hit
		for i := 0; i+4 <= len(data) && len(h) < 2000; i += 4 {
			v := math.Float32frombits(binary.LittleEndian.Uint32(data[i:]))
			if v != v || math.IsInf(float64(v), 0) {
				v = float32(data[i] % 4) // finite, and tying often
			}
			h = append(h, Hit{Doc: len(h), Score: v})
		}
		if len(h) == 0 {
			return
		}
		s := &searcher{}
		kk := 1 + int(k)%len(h)
		g := slices.Clone(h)
		if kk < len(g) {
			s.selectBest(g, kk)
			g = g[:kk]
		}
		s.sortHits(g)
		if want := referenceBest(s, h, kk); !slices.Equal(g, want) {
			t.Fatalf("k %d of %d: %v, want %v", kk, len(h), g, want)
		}
	})
}

// BenchmarkSelection measures the selection alone at the page's opening
// lesson's shape: the scores of 3,514 queries against 1,084 documents,
// computed once, offered block by block as runBlocks offers them, k = 100.
func BenchmarkSelection(b *testing.B) {
	rng := rand.New(rand.NewPCG(27, 28))
	c, q := randMatrix(rng, 1084, 256), randMatrix(rng, 3514, 256)
	c.Normalize()
	q.Normalize()
	scores := make([]float32, q.Rows*c.Rows)
	for i := 0; i < q.Rows; i++ {
		for j := 0; j < c.Rows; j++ {
			scores[i*c.Rows+j] = dotLanes(q.Row(i), c.Row(j))
		}
	}
	s := &searcher{corpus: c, queries: q, k: 100}
	res := make([][]Hit, q.Rows)
	const bq = 16
	for b.Loop() {
		cands := newCandidates(s, q.Rows)
		for b0 := 0; b0 < q.Rows; b0 += bq {
			b1 := min(b0+bq, q.Rows)
			sets := cands.load(b0, b1)
			if err := s.collectRows(sets, cands, scores[b0*c.Rows:b1*c.Rows], b0, 0, c.Rows); err != nil {
				b.Fatal(err)
			}
			cands.store(b0)
		}
		cands.results(res)
	}
}

// goBlockKernel is a block kernel on the portable kernel, so that the
// block path (runBlocks: candidate sets stored and reloaded between
// corpus chunks) runs natively too, not only under js/wasm.
type goBlockKernel struct{ out []float32 }

func (k *goBlockKernel) scores(q []float32, mq int, c []float32, nc, dim int, _ bool) ([]float32, error) {
	k.out = k.out[:0]
	for i := 0; i < mq; i++ {
		for j := 0; j < nc; j++ {
			k.out = append(k.out, dotLanes(q[i*dim:(i+1)*dim], c[j*dim:(j+1)*dim]))
		}
	}
	return k.out, nil
}

func (k *goBlockKernel) release() {}

// TestTopKBlockPathMatchesReference runs the block path over a corpus of
// two chunks (2,048 + 52 rows at 1,024 dimensions) with ties across the
// chunk boundary against the sorted reference, and checks that its score
// errors name the same rows as the tile path's.
func TestTopKBlockPathMatchesReference(t *testing.T) {
	save := takeBlockKernel
	takeBlockKernel = func(int) blockKernel { return &goBlockKernel{} }
	defer func() { takeBlockKernel = save }()
	rng := rand.New(rand.NewPCG(29, 30))
	const dim = 1024
	docs := blockCorpusBytes/(4*dim) + 52
	c := tieMatrix(rng, docs, dim, 0.003)
	q := tieMatrix(rng, 6, dim, 0.003)
	copy(c.Row(docs-1), c.Row(0)) // a tie across the chunks
	for _, sc := range []Scoring{Dot, Cosine} {
		all := bruteTopK(c, q, docs, sc, nil)
		for _, k := range []int{1, 10, 100, docs} {
			got, err := TopK(c, q, Options{K: k, Scoring: sc, Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if want := all[i][:min(k, docs)]; !slices.Equal(got[i], want) {
					t.Fatalf("%v k=%d: query %d differs from the sorted reference", sc, k, i)
				}
			}
		}
	}
	// Which bad score fails the search follows each path's order: the
	// block path goes query by query through a chunk, the tile path goes
	// corpus block by corpus block (1,536 rows at 4 dimensions) through a
	// block of queries. A +Inf late in the corpus for query 1 and a NaN
	// early for query 4: the block path names the first, the tile path
	// the second, as both did with the heap.
	const big = 3e38
	bad := NewMatrix(docs, 4)
	bq := NewMatrix(6, 4)
	for i := range bq.Data {
		bq.Data[i] = 1e-30
	}
	copy(bq.Row(1), []float32{big, big, 0, 0})
	copy(bq.Row(4), []float32{0, 0, big, big})
	copy(bad.Row(docs-3), []float32{big, big, 0, 0}) // +Inf against query 1
	copy(bad.Row(5), []float32{0, 0, big, -big})     // NaN against query 4
	_, err := TopK(bad, bq, Options{K: 3, Scoring: Dot, Threads: 1})
	if want := "score of query row 1 against corpus row " + strconv.Itoa(docs-3) + " is +Inf"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("block path: got %v, want %q", err, want)
	}
	takeBlockKernel = func(int) blockKernel { return nil }
	_, err = TopK(bad, bq, Options{K: 3, Scoring: Dot, Threads: 1})
	if want := "score of query row 4 against corpus row 5 is NaN"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("tile path: got %v, want %q", err, want)
	}
}
