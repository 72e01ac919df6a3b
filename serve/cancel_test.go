package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// bigEncode returns the body of an encode request of n texts.
func bigEncode(t *testing.T, n int) []byte {
	t.Helper()
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("text number %d of a long request", i)
	}
	b, err := json.Marshal(map[string]any{"model": "fake", "texts": texts})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// waitIdle waits up to limit for the encoder to have no call running and
// reports how long that took.
func waitIdle(t *testing.T, f *fakeEncoder, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for f.running.Load() > 0 {
		if time.Since(start) > limit {
			t.Fatalf("the encoder still runs %s after the request ended", limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// TestFaultEncodeClientGone: a client that leaves during a 1,024-text
// encode stops the encoding within a batch (the fake takes 2 ms a text,
// 64 ms a batch of 32, 2 s for the request), frees the slot, and a
// one-text request is answered at once.
func TestFaultEncodeClientGone(t *testing.T) {
	for _, tt := range []struct {
		name    string
		timeout time.Duration // the server's request limit
		leave   bool          // the client leaves after 200 ms
	}{
		{"client leaves", time.Minute, true},
		{"server timeout", 200 * time.Millisecond, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeEncoder{dim: 4, vocab: 5000, perSeq: 2 * time.Millisecond}
			ts := newTestServer(t, Options{Encoder: fakeFactory(fake),
				Limits: Limits{MaxConcurrentEncodes: 1, QueueWait: 5 * time.Second, Timeout: tt.timeout}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/api/encode", bytes.NewReader(bigEncode(t, 1024)))
			done := make(chan int, 1)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					done <- 0
					return
				}
				resp.Body.Close()
				done <- resp.StatusCode
			}()
			for fake.running.Load() == 0 {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond)
			if tt.leave {
				cancel()
			}
			status := <-done
			if !tt.leave && status != http.StatusServiceUnavailable {
				t.Errorf("the long request: status %d, want 503", status)
			}
			calls := fake.calls.Load()
			if d := waitIdle(t, fake, time.Second); d > 500*time.Millisecond {
				t.Errorf("the encoding ran on %s after the request ended; want at most a batch", d)
			}
			start := time.Now()
			c := &http.Client{Timeout: 3 * time.Second}
			r := do(t, c, http.MethodPost, ts.URL+"/api/encode", []byte(`{"model": "fake", "texts": ["one"]}`))
			if r.status != http.StatusOK {
				t.Fatalf("a one-text request after the long one ended: status %d: %s", r.status, r.body)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("a one-text request waited %s for the slot", d)
			}
			if extra := fake.calls.Load() - calls; extra != 1 {
				t.Errorf("%d embed calls after the long request ended, want the one-text request's only", extra)
			}
		})
	}
}
