//go:build !js

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/chromedp/chromedp"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's
// times (100 on every Linux architecture Go supports).
const clockTicks = 100

// browserCPU returns the CPU seconds (user and system) the browser of ctx
// and every process under it have used so far, from /proc; ok is false
// where /proc cannot be read. A benchmark's difference of two readings is
// the CPU the page used, which the other programs on a shared machine
// change much less than its wall time.
func browserCPU(ctx context.Context) (secs float64, ok bool) {
	c := chromedp.FromContext(ctx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return 0, false
	}
	root := c.Browser.Process().Pid
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	parent := map[int]int{}
	ticks := map[int]float64{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command is in parentheses and may hold spaces: the fields
		// after its closing one are state, ppid, ... utime (14), stime (15).
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 13 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		parent[pid], ticks[pid] = ppid, ut+st
	}
	if _, found := ticks[root]; !found {
		return 0, false
	}
	for pid, t := range ticks {
		for p := pid; p != 0; p = parent[p] {
			if p == root {
				secs += t / clockTicks
				break
			}
			if _, known := parent[p]; !known {
				break
			}
		}
	}
	return secs, true
}
