package bert

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

var kernels = []struct {
	name string
	f    gemmFunc
}{{"portable", gemmPortable}, {"native", gemmNative}}

// TestGemmKernels checks both kernels against a float64 reference, and
// against each other bit for bit, on odd sizes, strides wider than the
// rows, with and without bias.
func TestGemmKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][3]int{{1, 1, 1}, {3, 5, 7}, {4, 4, 4}, {4, 16, 1}, {5, 9, 13}, {17, 6, 33}, {9, 33, 129}, {2, 130, 3}, {13, 48, 40}, {0, 3, 4}, {3, 4, 0}} {
		m, n, k := sz[0], sz[1], sz[2]
		lda, ldw, ldc := k+3, k+1, n+2
		a := randSlice(r, m*lda)
		wRaw := randSlice(r, n*ldw)
		wDense := make([]float32, n*k)
		for j := 0; j < n; j++ {
			copy(wDense[j*k:(j+1)*k], wRaw[j*ldw:j*ldw+k])
		}
		w := pack(wDense, n, k)
		for _, withBias := range []bool{false, true} {
			var bias []float32
			if withBias {
				bias = randSlice(r, n)
			}
			var results [][]float32
			for _, kern := range kernels {
				c := randSlice(r, m*ldc) // garbage that must be overwritten
				pad := append([]float32(nil), c...)
				kern.f(m, a, lda, w, c, ldc, bias)
				for i := 0; i < m; i++ {
					for j := 0; j < ldc; j++ {
						got := c[i*ldc+j]
						if j >= n {
							if got != pad[i*ldc+j] {
								t.Fatalf("%s %v: wrote outside the matrix at (%d,%d)", kern.name, sz, i, j)
							}
							continue
						}
						var want float64
						for p := 0; p < k; p++ {
							want += float64(a[i*lda+p]) * float64(wDense[j*k+p])
						}
						if bias != nil {
							want += float64(bias[j])
						}
						if math.Abs(float64(got)-want) > 1e-4*(1+math.Sqrt(float64(k))) {
							t.Fatalf("%s %v bias=%v: c[%d,%d] = %v, want %v", kern.name, sz, withBias, i, j, got, want)
						}
					}
				}
				results = append(results, c)
			}
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					if x, y := results[0][i*ldc+j], results[1][i*ldc+j]; x != y {
						t.Fatalf("%v bias=%v: c[%d,%d]: portable %v, native %v (not bit-identical)", sz, withBias, i, j, x, y)
					}
				}
			}
		}
	}
}

func BenchmarkGemm(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][3]int{{128, 1536, 384}, {128, 384, 1536}, {512, 1152, 384}} {
		m, n, k := sz[0], sz[1], sz[2]
		a, w, c := randSlice(r, m*k), pack(randSlice(r, n*k), n, k), make([]float32, m*n)
		for _, kern := range kernels {
			b.Run(fmt.Sprintf("%s/%dx%dx%d", kern.name, m, n, k), func(b *testing.B) {
				cpu0 := cpuSeconds()
				for b.Loop() {
					kern.f(m, a, k, w, c, n, nil)
				}
				flops := 2 * float64(m*n*k) * float64(b.N)
				b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				if cpu := cpuSeconds() - cpu0; cpu > 0 {
					b.ReportMetric(flops/cpu/1e9, "GFLOP/cpu-s")
				}
			})
		}
	}
}
