package serve

import (
	"context"
	"sync"
	"time"
)

// budget is a number of bytes that requests take from and give back:
// the request bodies the API holds at once (Limits.MaxBodyBytesInFlight).
type budget struct {
	mu   sync.Mutex
	free int64
	wake chan struct{} // closed, and replaced, when bytes are given back
}

func newBudget(n int64) *budget { return &budget{free: n, wake: make(chan struct{})} }

// take takes n bytes, waiting up to wait (or until ctx ends) for them
// to be free; it reports whether it got them.
func (b *budget) take(ctx context.Context, n int64, wait time.Duration) bool {
	var timeout <-chan time.Time
	for {
		b.mu.Lock()
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			return true
		}
		wake := b.wake
		b.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-wake:
		case <-timeout:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// give gives back n bytes taken.
func (b *budget) give(n int64) {
	b.mu.Lock()
	b.free += n
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}
