package retrieval

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

func randMatrix(rng *rand.Rand, rows, dim int) *Matrix {
	m := NewMatrix(rows, dim)
	for i := range m.Data {
		m.Data[i] = float32(rng.NormFloat64())
	}
	return m
}

// TestDotLanesOrder checks the portable kernel against the canonical
// order written out by hand for a 10-element vector.
func TestDotLanesOrder(t *testing.T) {
	a := []float32{1e8, 1, -1e8, 2, 3, 4, 5, 6, 7, 0.5}
	b := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 3}
	var s [8]float32
	for k := range a {
		s[k%8] += float32(a[k] * b[k])
	}
	want := ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
	if got := dotLanes(a, b); got != want {
		t.Fatalf("dotLanes = %v, want %v", got, want)
	}
}

// TestDotTileKernelsAgree runs the assembly tile kernel (where the CPU
// has it) against the portable one: the results must be bit-identical.
// Both are then checked against gonum's Sgemm within float32 rounding.
func TestDotTileKernelsAgree(t *testing.T) {
	if !useAVX {
		t.Log("no assembly kernel in this build; checking the portable kernel against gonum only")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 47, 64, 100, 384} {
		for _, nc := range []int{1, 2, 3, 4, 5, 6, 7, 30, 31} {
			for mq := 1; mq <= tileQ; mq++ {
				// Strides larger than dim check that padding is skipped.
				ldq, ldc := dim+3, dim+5
				q := make([]float32, mq*ldq)
				c := make([]float32, nc*ldc)
				for i := range q {
					q[i] = float32(rng.NormFloat64())
				}
				for i := range c {
					c[i] = float32(rng.NormFloat64())
				}
				got := make([]float32, nc*4)
				want := make([]float32, nc*4)
				dotTile(q, ldq, mq, c, ldc, nc, dim, got)
				dotTileGo(q, ldq, mq, c, ldc, nc, dim, want)
				ref := make([]float32, mq*nc)
				blas32.Gemm(blas.NoTrans, blas.Trans, 1,
					blas32.General{Rows: mq, Cols: dim, Stride: ldq, Data: q[:(mq-1)*ldq+dim]},
					blas32.General{Rows: nc, Cols: dim, Stride: ldc, Data: c[:(nc-1)*ldc+dim]},
					0, blas32.General{Rows: mq, Cols: nc, Stride: nc, Data: ref})
				for j := 0; j < nc; j++ {
					for i := 0; i < mq; i++ {
						g, w := got[j*4+i], want[j*4+i]
						if math.Float32bits(g) != math.Float32bits(w) {
							t.Fatalf("dim %d nc %d mq %d: score(q%d, c%d) = %v (assembly), %v (portable)", dim, nc, mq, i, j, g, w)
						}
						if r := ref[i*nc+j]; math.Abs(float64(g-r)) > 1e-5*math.Sqrt(float64(dim))*4 {
							t.Fatalf("dim %d nc %d mq %d: score(q%d, c%d) = %v, gonum Sgemm says %v", dim, nc, mq, i, j, g, r)
						}
					}
				}
			}
		}
	}
}

// BenchmarkDotTile measures the tile kernel alone on cache-resident data
// (9 corpus rows) and on a corpus block streamed from L2 (498 rows).
func BenchmarkDotTile(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, nc := range []int{9, 60, 498} {
		c := randMatrix(rng, nc, 384)
		q := randMatrix(rng, 3, 384)
		out := make([]float32, nc*4)
		b.Run(strconv.Itoa(nc), func(b *testing.B) {
			for b.Loop() {
				dotTile(q.Data, 384, 3, c.Data, 384, nc, 384, out)
			}
			b.ReportMetric(2*3*float64(nc)*384*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkPortableKernel measures the portable kernel, the one js/wasm runs
// (GOOS=js GOARCH=wasm go test -bench PortableKernel -run '^$' ./retrieval/).
func BenchmarkPortableKernel(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	const nc = 498
	c := randMatrix(rng, nc, 384)
	q := randMatrix(rng, 3, 384)
	out := make([]float32, nc*4)
	for b.Loop() {
		dotTileGo(q.Data, 384, 3, c.Data, 384, nc, 384, out)
	}
	b.ReportMetric(2*3*nc*384*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
