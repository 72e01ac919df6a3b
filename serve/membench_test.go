package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dreval/dreval/internal/sharedtest"
)

// BenchmarkMetricsMemory sends 40 concurrent /api/metrics requests of
// 4.7 MB each (a run of 50,000 lines and its qrels) over loopback and
// reports the server process's peak resident memory ("peak-MB") and
// where it started ("base-MB"): with the default limits (4 evaluations
// at once, 32 MB of bodies held), and unbounded (40 evaluations, 1 GB of
// bodies: as before the limits). Run one sub-benchmark per process
// (-bench 'MetricsMemory/default$'): the Go heap a burst grows is not
// returned at once, so a second burst in the same process starts from
// the first's memory.
func BenchmarkMetricsMemory(b *testing.B) {
	var q, r strings.Builder
	for i := 0; r.Len() < 4<<20; i++ {
		qid := fmt.Sprintf("query-%d", i/100)
		fmt.Fprintf(&r, "%s Q0 document-%07d %d %.6f run-name\n", qid, i*7919%1000003, i%100+1, 1/float64(i%100+1))
		if i%4 == 0 {
			fmt.Fprintf(&q, "%s 0 document-%07d %d\n", qid, i*7919%1000003, 1+i%2)
		}
	}
	body, _ := json.Marshal(map[string]any{"qrels": q.String(), "run": r.String()})
	for _, tt := range []struct {
		name   string
		limits Limits
	}{
		{"default", Limits{}},
		{"unbounded", Limits{MaxConcurrentMetrics: 40, MaxBodyBytesInFlight: 1 << 30}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			l := tt.limits
			l.QueueWait, l.MaxBodyBytes = time.Minute, 16<<20
			ts := httptest.NewServer(NewMux(Options{Limits: l}))
			defer ts.Close()
			base, _ := sharedtest.RSS()
			stop := sharedtest.SampleRSS(5 * time.Millisecond)
			for b.Loop() {
				var wg sync.WaitGroup
				for range 40 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						resp, err := http.Post(ts.URL+"/api/metrics", "application/json", bytes.NewReader(body))
						if err != nil {
							b.Error(err)
							return
						}
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK {
							b.Errorf("status %d", resp.StatusCode)
						}
					}()
				}
				wg.Wait()
			}
			peak := stop()
			b.ReportMetric(float64(base)/(1<<20), "base-MB")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
			b.ReportMetric(float64(len(body))/(1<<20), "body-MB")
		})
	}
}
