//go:build !js && !windows && !plan9

package bert

import "syscall"

// cpuSeconds returns the process's user+system CPU time, so benchmarks can
// report throughput per CPU-second, which a machine shared with other jobs
// distorts much less than wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
