//go:build windows || plan9

package bert

// cpuSeconds returns 0 where the process's CPU time is not available:
// benchmarks then report wall time only.
func cpuSeconds() float64 { return 0 }
