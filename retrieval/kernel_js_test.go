//go:build js && wasm

package retrieval

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestSIMDKernelBitIdentical checks the browser's SIMD module against the
// portable kernel bit for bit: every tile shape (whole tiles of simdTile
// queries and the rows left over), dims from 8 to 768, and values that
// expose any change in the order of operations (large cancelling terms,
// subnormal products, signed zeros).
func TestSIMDKernelBitIdentical(t *testing.T) {
	k := takeBlockKernel(8)
	if k == nil {
		t.Fatal("no SIMD kernel under this JavaScript engine (Node >= 16 runs WebAssembly SIMD)")
	}
	defer k.release()
	rng := rand.New(rand.NewPCG(3, 4))
	special := []float32{1e8, -1e8, 1e-20, -1e-20, 0, float32(math.Copysign(0, -1)), 3e19, 1}
	for _, dim := range []int{8, 16, 24, 64, 256, 384, 768} {
		for _, mq := range []int{1, 2, 3, 4, 5, 7, 8, 9} {
			for _, nc := range []int{1, 2, 5, 33} {
				q := make([]float32, mq*dim)
				c := make([]float32, nc*dim)
				for _, x := range [][]float32{q, c} {
					for i := range x {
						if rng.IntN(4) == 0 {
							x[i] = special[rng.IntN(len(special))]
						} else {
							x[i] = float32(rng.NormFloat64())
						}
					}
				}
				got, err := k.scores(q, mq, c, nc, dim, true)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < mq; i++ {
					for j := 0; j < nc; j++ {
						want := dotLanes(q[i*dim:(i+1)*dim], c[j*dim:(j+1)*dim])
						if g := got[i*nc+j]; math.Float32bits(g) != math.Float32bits(want) {
							t.Fatalf("dim %d, %d x %d: dot(q%d, c%d) = %v (%#x), portable kernel %v (%#x)", dim, mq, nc, i, j, g, math.Float32bits(g), want, math.Float32bits(want))
						}
					}
				}
			}
		}
	}
}

// TestSIMDKernelKeepsCorpus checks that a kernel reused across searches
// scores against the corpus of the current call, not a stale copy.
func TestSIMDKernelKeepsCorpus(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	q := randMatrix(rng, 6, 16)
	for round := 0; round < 3; round++ {
		c := randMatrix(rng, 7+round, 16)
		got, err := TopK(c, q, Options{K: 3, Scoring: Dot})
		if err != nil {
			t.Fatal(err)
		}
		want := portableTopK(t, c, q, Options{K: 3, Scoring: Dot})
		if !slices.EqualFunc(got, want, slices.Equal[[]Hit]) {
			t.Fatalf("round %d: %v, portable kernel %v", round, got, want)
		}
	}
}

// TestTopKSIMDMatchesPortable runs whole searches with and without the
// SIMD kernel: the hits and scores must be identical, for both scorings,
// ties, several threads, corpora larger than one kernel chunk and a
// dimension the kernel does not take (12: the portable kernel scores).
func TestTopKSIMDMatchesPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct{ docs, queries, dim, k, threads int }{
		{50, 9, 8, 5, 1}, {1084, 37, 256, 100, 1}, {300, 41, 384, 10, 3}, {200, 5, 12, 4, 1},
		{blockCorpusBytes/(4*64) + 10, 6, 64, 7, 2},
	} {
		t.Run(strconv.Itoa(tc.docs)+"x"+strconv.Itoa(tc.queries)+"x"+strconv.Itoa(tc.dim), func(t *testing.T) {
			c, q := randMatrix(rng, tc.docs, tc.dim), randMatrix(rng, tc.queries, tc.dim)
			copy(c.Row(1), c.Row(0)) // a tie, broken by id
			for _, sc := range []Scoring{Cosine, Dot} {
				o := Options{K: tc.k, Scoring: sc, Threads: tc.threads}
				got, err := TopK(c, q, o)
				if err != nil {
					t.Fatal(err)
				}
				if want := portableTopK(t, c, q, o); !slices.EqualFunc(got, want, slices.Equal[[]Hit]) {
					t.Fatalf("%v: the SIMD kernel's hits differ from the portable kernel's", sc)
				}
			}
		})
	}
}

// portableTopK is TopK with the tile kernels only.
func portableTopK(t *testing.T, c, q *Matrix, o Options) [][]Hit {
	t.Helper()
	save := takeBlockKernel
	takeBlockKernel = func(int) blockKernel { return nil }
	defer func() { takeBlockKernel = save }()
	res, err := TopK(c, q, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
