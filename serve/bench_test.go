package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkMetrics100 measures POST /api/metrics in process (no network)
// for a run of 100 queries with 20 documents each, default measures.
func BenchmarkMetrics100(b *testing.B) {
	var q, r strings.Builder
	for i := 1; i <= 100; i++ {
		for d := 0; d < 30; d += 3 {
			fmt.Fprintf(&q, "q%d 0 d%d %d\n", i, (d*7+i)%30, 1+d%2)
		}
		for rank := 1; rank <= 20; rank++ {
			fmt.Fprintf(&r, "q%d Q0 d%d %d %.4f x\n", i, (i+7*rank)%30, rank, 1/float64(rank))
		}
	}
	body, _ := json.Marshal(map[string]any{"qrels": q.String(), "run": r.String()})
	h := NewMux(Options{})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/metrics", bytes.NewReader(body)))
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body.Bytes())
		}
	}
}
