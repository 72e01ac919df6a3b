package bert

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// BenchmarkMiniLM measures sentences per second of the all-MiniLM-L6-v2
// forward pass at 32 and 128 tokens per sentence, batches of 16, with each
// kernel. Run with -cpu 1 for the single-thread figure (the model uses
// GOMAXPROCS goroutines). Besides the mean it reports the fastest batch
// and, where the CPU time is available, sentences per CPU-second.
func BenchmarkMiniLM(b *testing.B) {
	m := miniLM(b)
	r := rand.New(rand.NewPCG(7, 8))
	for _, kernel := range kernels {
		for _, n := range []int{32, 128} {
			batch := make([][]int32, 16)
			for i := range batch {
				s := []int32{101}
				for len(s) < n-1 {
					s = append(s, int32(1000+r.IntN(29000)))
				}
				batch[i] = append(s, 102)
			}
			b.Run(fmt.Sprintf("%s/tokens=%d", kernel.name, n), func(b *testing.B) {
				mm := m.clone()
				mm.gemm = kernel.f
				mm.SetThreads(runtime.GOMAXPROCS(0))
				cpu0 := cpuSeconds()
				var best time.Duration
				for b.Loop() {
					t0 := time.Now()
					if _, err := mm.Forward(batch); err != nil {
						b.Fatal(err)
					}
					if d := time.Since(t0); best == 0 || d < best {
						best = d
					}
				}
				sent := float64(len(batch) * b.N)
				b.ReportMetric(sent/b.Elapsed().Seconds(), "sentences/s")
				// The fastest batch: on a machine shared with other jobs,
				// the figure least distorted by them.
				b.ReportMetric(float64(len(batch))/best.Seconds(), "sentences/s-best")
				if cpu := cpuSeconds() - cpu0; cpu > 0 {
					b.ReportMetric(sent/cpu, "sentences/cpu-s")
				}
			})
		}
	}
}
