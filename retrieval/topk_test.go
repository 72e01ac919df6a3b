package retrieval

import (
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// bruteTopK scores every pair with dotLanes, sorts everything by the
// trec_eval rule and keeps k: the reference TopK must match exactly.
func bruteTopK(corpus, queries *Matrix, k int, scoring Scoring, ids []string) [][]Hit {
	id := func(i int) string {
		if ids != nil {
			return ids[i]
		}
		return strconv.Itoa(i)
	}
	res := make([][]Hit, queries.Rows)
	for qi := range res {
		hits := make([]Hit, corpus.Rows)
		for d := range hits {
			v := dotLanes(queries.Row(qi), corpus.Row(d))
			if scoring == Cosine {
				v = v * invNorm(queries.Row(qi)) * invNorm(corpus.Row(d))
			}
			hits[d] = Hit{d, v}
		}
		sort.Slice(hits, func(i, j int) bool {
			if hits[i].Score != hits[j].Score {
				return hits[i].Score > hits[j].Score
			}
			return id(hits[i].Doc) > id(hits[j].Doc)
		})
		res[qi] = hits[:min(k, len(hits))]
	}
	return res
}

func TestTopKMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		docs, queries, dim, k, threads int
		scoring                        Scoring
	}{
		{1, 1, 1, 1, 1, Dot},
		{10, 4, 3, 3, 1, Cosine},
		{500, 7, 17, 10, 1, Dot},
		{500, 7, 17, 10, 3, Cosine},
		{1000, 10, 384, 100, 2, Dot},
		{257, 5, 8, 300, 2, Dot},    // k > corpus: every row
		{50, 4, 5, 7, 1000, Cosine}, // more threads than queries
	} {
		c := randMatrix(rng, tc.docs, tc.dim)
		q := randMatrix(rng, tc.queries, tc.dim)
		got, err := TopK(c, q, Options{K: tc.k, Scoring: tc.scoring, Threads: tc.threads})
		if err != nil {
			t.Fatal(err)
		}
		want := bruteTopK(c, q, tc.k, tc.scoring, nil)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: TopK differs from brute force", tc)
		}
	}
}

// TestTopKTies checks trec_eval's tie rule: equal scores rank by document
// id descending as strings, so "9" beats "10" and "b" beats "a".
func TestTopKTies(t *testing.T) {
	corpus := NewMatrix(12, 2)
	for i := 0; i < 12; i++ {
		corpus.Data[2*i] = 1 // every document scores 1
	}
	q := &Matrix{Rows: 1, Dim: 2, Data: []float32{1, 0}}
	got, err := TopK(corpus, q, Options{K: 4, Scoring: Dot, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	var order []int
	for _, h := range got[0] {
		order = append(order, h.Doc)
	}
	if want := []int{9, 8, 7, 6}; !reflect.DeepEqual(order, want) {
		t.Errorf("row-number ids: got %v, want %v", order, want)
	}
	ids := []string{"a", "c", "b", "zz", "z", "y", "x", "w", "v", "u", "t", "s"}
	got, err = TopK(corpus, q, Options{K: 3, Scoring: Dot, DocIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range got[0] {
		names = append(names, ids[h.Doc])
	}
	if want := []string{"zz", "z", "y"}; !reflect.DeepEqual(names, want) {
		t.Errorf("string ids: got %v, want %v", names, want)
	}
}

func TestTopKCosineIgnoresLength(t *testing.T) {
	corpus := &Matrix{Rows: 3, Dim: 2, Data: []float32{10, 0, 0.6, 0.8, 0, 0}}
	q := &Matrix{Rows: 1, Dim: 2, Data: []float32{0, 2}}
	got, err := TopK(corpus, q, Options{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	// cos = 0.8 for row 1, 0 for rows 0 and 2 (a zero vector scores 0);
	// the tie between 0 and 2 goes to the larger id "2".
	if got[0][0].Doc != 1 || math.Abs(float64(got[0][0].Score)-0.8) > 1e-6 || got[0][1].Doc != 2 || got[0][2].Doc != 0 {
		t.Errorf("got %v", got[0])
	}
	dot, err := TopK(corpus, q, Options{K: 1, Scoring: Dot})
	if err != nil {
		t.Fatal(err)
	}
	if dot[0][0].Doc != 1 || dot[0][0].Score != 1.6 {
		t.Errorf("dot: got %v, want row 1 with 1.6", dot[0])
	}
}

func TestTopKProgress(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c, q := randMatrix(rng, 3000, 128), randMatrix(rng, 50, 128)
	var calls int
	var last int64
	_, err := TopK(c, q, Options{K: 5, Threads: 3, Progress: func(done, total int64) {
		calls++
		if total != 50*3000 || done < last || done > total {
			t.Errorf("progress(%d, %d) after %d", done, total, last)
		}
		last = done
	}})
	if err != nil {
		t.Fatal(err)
	}
	if last != 50*3000 || calls < 10 {
		t.Errorf("%d progress calls ending at %d, want >= 10 ending at 150000", calls, last)
	}
}

func TestTopKErrors(t *testing.T) {
	ok := &Matrix{Rows: 2, Dim: 2, Data: []float32{1, 2, 3, 4}}
	nan := &Matrix{Rows: 2, Dim: 2, Data: []float32{1, 2, 3, float32(math.NaN())}}
	inf := &Matrix{Rows: 2, Dim: 2, Data: []float32{float32(math.Inf(1)), 2, 3, 4}}
	huge := &Matrix{Rows: 1, Dim: 2, Data: []float32{3e38, 3e38}}
	for _, tc := range []struct {
		name      string
		corpus, q *Matrix
		opt       Options
		want      string
	}{
		{"empty corpus", &Matrix{Dim: 2}, ok, Options{K: 1}, "empty corpus"},
		{"dims", ok, &Matrix{Rows: 1, Dim: 3, Data: []float32{1, 2, 3}}, Options{K: 1}, "queries have 3 dimensions, corpus 2"},
		{"k", ok, ok, Options{K: 0}, "k = 0"},
		{"nan corpus", nan, ok, Options{K: 1}, "corpus row 1 column 1 is NaN"},
		{"inf queries", ok, inf, Options{K: 1}, "queries row 0 column 0 is +Inf"},
		{"ids", ok, ok, Options{K: 1, DocIDs: []string{"a"}}, "1 document ids for 2 corpus rows"},
		{"malformed", &Matrix{Rows: 2, Dim: 2, Data: []float32{1}}, ok, Options{K: 1}, "corpus matrix is malformed"},
		{"overflow", huge, huge, Options{K: 1, Scoring: Dot}, "overflows float32"},
	} {
		_, err := TopK(tc.corpus, tc.q, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// BenchmarkTopK scores 1,000 queries against a 100,000 x 384 normalised
// corpus for the top 100 on one thread (the bench-search.sh workload
// without file I/O).
func BenchmarkTopK(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	// The last is the page's opening lesson: the demo's 1,084 passages
	// and its 3,514 distinct query sequences, static model (256 values).
	for _, size := range []struct{ docs, queries, dim int }{{10000, 100, 384}, {100000, 1000, 384}, {1084, 3514, 256}} {
		b.Run(strconv.Itoa(size.docs)+"x"+strconv.Itoa(size.queries)+"x"+strconv.Itoa(size.dim), func(b *testing.B) {
			// Built here, not for every size: -bench TopK/1084 under node
			// would spend seconds drawing the 100,000-row corpus.
			c := randMatrix(rng, size.docs, size.dim)
			q := randMatrix(rng, size.queries, size.dim)
			c.Normalize()
			q.Normalize()
			for b.Loop() {
				if _, err := TopK(c, q, Options{K: 100, Scoring: Dot, Threads: 1}); err != nil {
					b.Fatal(err)
				}
			}
			flops := 2 * float64(size.docs) * float64(size.queries) * float64(size.dim)
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func TestCheckSearch(t *testing.T) {
	ok := &Matrix{Rows: 2, Dim: 2, Data: []float32{1, 0, 0, 1}}
	tests := []struct {
		name            string
		corpus, queries *Matrix
		want            string // "" for no error
	}{
		{"fine", ok, ok, ""},
		{"no queries", ok, &Matrix{Rows: 0, Dim: 2}, ""},
		{"empty corpus", &Matrix{Rows: 0, Dim: 2}, ok, "c.npy: empty corpus (shape (0, 2)): nothing to search"},
		{"dimensions", ok, &Matrix{Rows: 1, Dim: 3, Data: []float32{1, 2, 3}}, "q.npy has 3-dimensional vectors, c.npy has 2: embed both with the same model"},
		{"NaN in the corpus", &Matrix{Rows: 1, Dim: 2, Data: []float32{0, float32(math.NaN())}}, ok, "c.npy row 0 column 1 is NaN: vectors must be finite"},
		{"Inf in the queries", ok, &Matrix{Rows: 2, Dim: 2, Data: []float32{0, 0, float32(math.Inf(1)), 0}}, "q.npy row 1 column 0 is +Inf"},
		{"malformed", &Matrix{Rows: 2, Dim: 2, Data: []float32{1}}, ok, "c.npy matrix is malformed"},
	}
	for _, tt := range tests {
		err := CheckSearch(tt.corpus, tt.queries, "c.npy", "q.npy")
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
}
