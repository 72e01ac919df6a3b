package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dreval/dreval/encoder/tokenizer"
)

// fakeEncoder embeds deterministically and fast: vector i of a sequence
// is a function of its ids. It counts the calls running at once.
type fakeEncoder struct {
	dim, vocab, maxLen int
	delay              time.Duration
	perSeq             time.Duration // more delay per sequence of a call
	block              chan struct{} // when not nil, EmbedIDs waits for it to close
	panicOn            string

	running, peak atomic.Int32
	calls         atomic.Int32
}

func (f *fakeEncoder) Tokenize(texts []string) ([][]int32, int) {
	ids := make([][]int32, len(texts))
	for i, t := range texts {
		seq := []int32{1}
		for _, w := range strings.Fields(t) {
			h := fnv.New32a()
			h.Write([]byte(w))
			seq = append(seq, int32(3+h.Sum32()%uint32(f.vocab-3)))
		}
		ids[i] = append(seq, 2)
	}
	return ids, 0
}

func (f *fakeEncoder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	f.calls.Add(1)
	if f.block != nil {
		<-f.block
	}
	if d := f.delay + time.Duration(len(ids))*f.perSeq; d > 0 {
		time.Sleep(d)
	}
	out := make([][]float32, len(ids))
	for i, seq := range ids {
		if f.panicOn != "" && len(seq) == 3 {
			panic(f.panicOn)
		}
		out[i] = fakeVector(seq, f.dim)
	}
	return out, nil
}

func fakeVector(seq []int32, dim int) []float32 {
	v := make([]float32, dim)
	for j := range v {
		var s float64
		for k, id := range seq {
			s += math.Sin(float64(int(id)*(j+1) + k))
		}
		v[j] = float32(s)
	}
	return v
}

func (f *fakeEncoder) Dim() int       { return f.dim }
func (f *fakeEncoder) VocabSize() int { return f.vocab }
func (f *fakeEncoder) MaxLength() int { return f.maxLen }

// fakeFactory serves f as model "fake" and knows no other.
func fakeFactory(f Encoder) func(context.Context, string, string) (Encoder, error) {
	return func(_ context.Context, name, side string) (Encoder, error) {
		if side != SideQuery && side != SideDocument {
			return nil, fmt.Errorf("side %q reached the factory", side)
		}
		if name != "fake" {
			return nil, fmt.Errorf("model %q is not installed: %w", name, ErrUnknownModel)
		}
		return f, nil
	}
}

// newTestServer starts NewMux(o) on loopback; it stops with the test.
func newTestServer(t *testing.T, o Options) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(NewMux(o))
	t.Cleanup(ts.Close)
	return ts
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func do(t testing.TB, c *http.Client, method, url string, body []byte, header ...string) response {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return response{resp.StatusCode, resp.Header, b}
}

func post(t testing.TB, url string, v any, header ...string) response {
	t.Helper()
	b, ok := v.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	return do(t, nil, http.MethodPost, url, b, header...)
}

// wantError checks r is a JSON error with status and a message
// containing substr.
func wantError(t testing.TB, r response, status int, substr string) {
	t.Helper()
	if r.status != status {
		t.Errorf("status %d, want %d; body %s", r.status, status, r.body)
		return
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("error Content-Type %q, want application/json", ct)
	}
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error == "" {
		t.Errorf("error body %q is not {\"error\": \"...\"}: %v", r.body, err)
		return
	}
	if !strings.Contains(e.Error, substr) {
		t.Errorf("error %q does not mention %q", e.Error, substr)
	}
}

var (
	tinyOnce sync.Once
	tinyJSON []byte
)

// tinyTokenizer returns the tokenizer package's small test tokenizer.json.
func tinyTokenizer(t testing.TB) []byte {
	t.Helper()
	tinyOnce.Do(func() {
		tinyJSON, _ = os.ReadFile("../encoder/tokenizer/testdata/tiny.json")
	})
	if tinyJSON == nil {
		t.Fatal("reading ../encoder/tokenizer/testdata/tiny.json failed")
	}
	if _, err := tokenizer.FromJSON(bytes.NewReader(tinyJSON), "tiny.json"); err != nil {
		t.Fatalf("tiny.json: %v", err)
	}
	return tinyJSON
}
