package sharedtest

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"sync"
	"time"
)

// RSS returns this process's resident memory in bytes (VmRSS of
// /proc/self/status; an error where there is none, off Linux).
func RSS() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
			if err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("/proc/self/status has no VmRSS")
}

// SampleRSS samples RSS every interval until the returned function is
// called, which returns the highest sample (0 where RSS fails).
func SampleRSS(interval time.Duration) (stop func() (peak int64)) {
	var mu sync.Mutex
	var peak int64
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := func() {
		if r, err := RSS(); err == nil {
			mu.Lock()
			peak = max(peak, r)
			mu.Unlock()
		}
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			sample()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		<-finished
		sample()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}
