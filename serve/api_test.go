package serve

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/perturb"
)

func TestOversizedBody(t *testing.T) {
	ts := newTestServer(t, Options{Encoder: fakeFactory(&fakeEncoder{dim: 4, vocab: 100}), Limits: Limits{MaxBodyBytes: 1000}})
	big := []byte(`{"qrels": "` + strings.Repeat("q 0 d 1\\n", 200) + `", "run": ""}`)
	for _, ep := range []string{"/api/metrics", "/api/perturb", "/api/encode"} {
		wantError(t, post(t, ts.URL+ep, big), http.StatusRequestEntityTooLarge, "exceeds the limit of 1000 bytes")
	}
	// Just under the limit is read (and then judged on its content).
	r := post(t, ts.URL+"/api/metrics", []byte(`{"qrels": "q 0 d 1\n", "run": "q Q0 d 1 1 x\n"}`))
	if r.status != http.StatusOK {
		t.Errorf("a small request: status %d: %s", r.status, r.body)
	}
}

func TestMalformedRequests(t *testing.T) {
	models := fstest.MapFS{"tiny/tokenizer.json": {Data: tinyTokenizer(t)}}
	ts := newTestServer(t, Options{Models: models, Encoder: fakeFactory(&fakeEncoder{dim: 4, vocab: 100, maxLen: 8})})
	tests := []struct {
		ep, body, want string
	}{
		{"/api/metrics", ``, "the request body is empty"},
		{"/api/metrics", `{`, "malformed JSON"},
		{"/api/metrics", `{"qrels": "q 0 d 1"`, "malformed JSON"},
		{"/api/metrics", `[1, 2]`, "want"},
		{"/api/metrics", `{"qrels": 3, "run": ""}`, `field "qrels"`},
		{"/api/metrics", `{"qrel": "", "run": ""}`, `unknown field "qrel"`},
		{"/api/metrics", `{"qrels": "", "run": ""} {}`, "data after the JSON object"},
		{"/api/metrics", `{"run": "q Q0 d 1 1 x"}`, `"qrels" is missing`},
		{"/api/metrics", `{"qrels": "q 0 d 1"}`, `"run" is missing`},
		{"/api/metrics", `{"qrels": "q 0 d 1", "run": "q Q0 d 1 1 x", "measures": ["nosuch"]}`, "measures"},
		{"/api/metrics", `{"qrels": "q 0 d 1", "run": "q Q0 d 1 1 x", "convention": "nope"}`, "convention"},
		{"/api/metrics", `{"qrels": "q 0 d 1", "run": "q Q0 d 1 1 x", "level": 0}`, "level 0"},
		{"/api/metrics", `{"qrels": "q 0 d x", "run": "q Q0 d 1 1 x"}`, "qrels"},
		{"/api/metrics", `{"qrels": "q 0 d 1", "run": "q Q0 d 1 notanumber x"}`, "run"},
		{"/api/perturb", `{"texts": "a string"}`, `field "texts"`},
		{"/api/perturb", `{"mode": "idshift"}`, `"texts" is missing`},
		{"/api/perturb", `{"texts": ["a"], "tokenizer": "tiny", "mode": "nosuch"}`, "mode"},
		{"/api/perturb", `{"texts": ["a"], "tokenizer": "tiny", "rate": 1.5}`, "outside [0, 1]"},
		{"/api/perturb", `{"texts": ["a"], "tokenizer": "tiny", "rate": -1}`, "outside [0, 1]"},
		{"/api/perturb", `{"texts": ["a"], "tokenizer": "tiny", "seed": -1}`, `field "seed"`},
		{"/api/perturb", `{"texts": ["a"], "tokenizer": "tiny", "query_ids": ["1", "2"]}`, "2 query_ids for 1 texts"},
		{"/api/perturb", `{"texts": ["a"], "tokenizer": "../tiny"}`, "not a model name"},
		{"/api/encode", `{"texts": ["a"]}`, `"model" is missing`},
		{"/api/encode", `{"model": "fake"}`, `"texts" or "ids" is required`},
		{"/api/encode", `{"model": "fake", "texts": ["a"], "ids": [[1]]}`, "not both"},
		{"/api/encode", `{"model": "fake", "ids": [[]]}`, "ids[0] is empty"},
		{"/api/encode", `{"model": "fake", "ids": [[1, 100]]}`, "ids[0][1] = 100 is outside the vocabulary"},
		{"/api/encode", `{"model": "fake", "ids": [[1, -1]]}`, "outside the vocabulary"},
		{"/api/encode", `{"model": "fake", "ids": [[1, 2, 3, 4, 5, 6, 7, 8, 9]]}`, "at most 8"},
		{"/api/encode", `{"model": "fake", "ids": [[1, 3000000000]]}`, `field "ids`},
		{"/api/encode", `{"model": "a/b", "texts": ["x"]}`, "not a model name"},
	}
	for _, tt := range tests {
		t.Run(tt.ep+" "+tt.body, func(t *testing.T) {
			wantError(t, post(t, ts.URL+tt.ep, []byte(tt.body)), http.StatusBadRequest, tt.want)
		})
	}
	wantError(t, do(t, nil, http.MethodGet, ts.URL+"/api/metrics", nil), http.StatusMethodNotAllowed, "use POST")
	wantError(t, do(t, nil, http.MethodPost, ts.URL+"/api/nosuch", []byte("{}")), http.StatusNotFound, "no API endpoint")
}

func TestTooManyTexts(t *testing.T) {
	models := fstest.MapFS{"tiny/tokenizer.json": {Data: tinyTokenizer(t)}}
	ts := newTestServer(t, Options{Models: models, Encoder: fakeFactory(&fakeEncoder{dim: 4, vocab: 100}), Limits: Limits{MaxTexts: 3}})
	four := []string{"a", "b", "c", "d"}
	wantError(t, post(t, ts.URL+"/api/encode", map[string]any{"model": "fake", "texts": four}), http.StatusBadRequest, "4 sequences: the limit is 3")
	wantError(t, post(t, ts.URL+"/api/encode", map[string]any{"model": "fake", "ids": [][]int32{{1}, {1}, {1}, {1}}}), http.StatusBadRequest, "the limit is 3")
	wantError(t, post(t, ts.URL+"/api/perturb", map[string]any{"tokenizer": "tiny", "texts": four}), http.StatusBadRequest, "4 texts: the limit is 3")
	if r := post(t, ts.URL+"/api/encode", map[string]any{"model": "fake", "texts": four[:3]}); r.status != http.StatusOK {
		t.Errorf("3 texts: status %d: %s", r.status, r.body)
	}
}

func TestUnknownModel(t *testing.T) {
	models := fstest.MapFS{"tiny/tokenizer.json": {Data: tinyTokenizer(t)}}
	ts := newTestServer(t, Options{Models: models, Encoder: fakeFactory(&fakeEncoder{dim: 4, vocab: 100})})
	wantError(t, post(t, ts.URL+"/api/encode", map[string]any{"model": "nosuch", "texts": []string{"a"}}), http.StatusNotFound, `model "nosuch" is not installed`)
	wantError(t, post(t, ts.URL+"/api/perturb", map[string]any{"tokenizer": "nosuch", "texts": []string{"a"}}), http.StatusNotFound, `no model "nosuch"`)
	// Without an encoder (the Worker) /api/encode says so.
	ts2 := newTestServer(t, Options{})
	wantError(t, post(t, ts2.URL+"/api/encode", map[string]any{"model": "minilm", "texts": []string{"a"}}), http.StatusNotImplemented, "does not encode")
	wantError(t, post(t, ts2.URL+"/api/perturb", map[string]any{"texts": []string{"a"}}), http.StatusNotFound, "no models")
}

// decodeEncodeReply returns the vectors of an /api/encode reply, JSON or
// binary.
func decodeEncodeReply(t testing.TB, r response) [][]float32 {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if r.header.Get("Content-Type") == "application/octet-stream" {
		var rows, dim int
		fmt.Sscan(r.header.Get(HeaderRows), &rows)
		fmt.Sscan(r.header.Get(HeaderDim), &dim)
		if len(r.body) != 4*rows*dim {
			t.Fatalf("binary reply of %d bytes for %d x %d", len(r.body), rows, dim)
		}
		out := make([][]float32, rows)
		for i := range out {
			out[i] = make([]float32, dim)
			for j := range out[i] {
				out[i][j] = math.Float32frombits(binary.LittleEndian.Uint32(r.body[4*(i*dim+j):]))
			}
		}
		return out
	}
	var er encodeResponse
	if err := json.Unmarshal(r.body, &er); err != nil {
		t.Fatalf("reply %s: %v", r.body, err)
	}
	if len(er.Embeddings) > 0 && len(er.Embeddings[0]) != er.Dim {
		t.Fatalf("dim %d but vectors of %d", er.Dim, len(er.Embeddings[0]))
	}
	return er.Embeddings
}

// TestEncodeBurst sends 200 parallel encode requests of distinct texts:
// every reply must be the vectors of its own texts, and no more encodes
// run at once than the limit.
func TestEncodeBurst(t *testing.T) {
	fake := &fakeEncoder{dim: 8, vocab: 5000, delay: 2 * time.Millisecond}
	const limit = 3
	ts := newTestServer(t, Options{Encoder: fakeFactory(fake), Limits: Limits{MaxConcurrentEncodes: limit, QueueWait: time.Minute}})
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			texts := []string{fmt.Sprintf("request %d first", i), fmt.Sprintf("request %d second text", i)}
			var hdr []string
			if i%2 == 1 {
				hdr = []string{"Accept", "application/octet-stream"}
			}
			r := post(t, ts.URL+"/api/encode", map[string]any{"model": "fake", "texts": texts}, hdr...)
			got := decodeEncodeReply(t, r)
			ids, _ := fake.Tokenize(texts)
			for k, seq := range ids {
				if k >= len(got) || !reflect.DeepEqual(got[k], fakeVector(seq, fake.dim)) {
					errs <- fmt.Sprintf("request %d: vector %d is not its text's", i, k)
					return
				}
			}
			if len(got) != len(texts) {
				errs <- fmt.Sprintf("request %d: %d vectors for %d texts", i, len(got), len(texts))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if c := fake.calls.Load(); c != n {
		t.Errorf("%d embed calls for %d requests", c, n)
	}
	if p := fake.peak.Load(); p > limit {
		t.Errorf("%d encodes ran at once; the limit is %d", p, limit)
	} else if p < limit {
		t.Errorf("at most %d encodes ran at once: the burst never filled the %d slots, so the limit was not exercised", p, limit)
	}
}

func TestEncodeBusy(t *testing.T) {
	fake := &fakeEncoder{dim: 4, vocab: 100, block: make(chan struct{})}
	ts := newTestServer(t, Options{Encoder: fakeFactory(fake), Limits: Limits{MaxConcurrentEncodes: 1, QueueWait: 50 * time.Millisecond}})
	first := make(chan response, 1)
	go func() {
		first <- post(t, ts.URL+"/api/encode", map[string]any{"model": "fake", "texts": []string{"a"}})
	}()
	for fake.running.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	r := post(t, ts.URL+"/api/encode", map[string]any{"model": "fake", "texts": []string{"b"}})
	wantError(t, r, http.StatusServiceUnavailable, "busy")
	if ra := r.header.Get("Retry-After"); ra == "" {
		t.Error("a busy reply has no Retry-After header")
	}
	close(fake.block)
	if r := <-first; r.status != http.StatusOK {
		t.Errorf("the first request: status %d: %s", r.status, r.body)
	}
}

func TestTimeoutAndPanic(t *testing.T) {
	slow := &fakeEncoder{dim: 4, vocab: 100, delay: 300 * time.Millisecond}
	ts := newTestServer(t, Options{Encoder: fakeFactory(slow), Limits: Limits{Timeout: 50 * time.Millisecond}})
	wantError(t, post(t, ts.URL+"/api/encode", map[string]any{"model": "fake", "texts": []string{"a"}}), http.StatusServiceUnavailable, "longer than the limit")

	bad := &fakeEncoder{dim: 4, vocab: 100, panicOn: "boom"}
	ts2 := newTestServer(t, Options{Encoder: fakeFactory(bad)})
	wantError(t, post(t, ts2.URL+"/api/encode", map[string]any{"model": "fake", "texts": []string{"one"}}), http.StatusInternalServerError, "internal error: boom")
	if r := post(t, ts2.URL+"/api/encode", map[string]any{"model": "fake", "texts": []string{"two words"}}); r.status != http.StatusOK {
		t.Errorf("after a panic: status %d: %s", r.status, r.body)
	}
}

// trecCase is one "dreval metrics" setting over the trec_eval test files.
type trecCase struct {
	qrels, run string
	req        map[string]any
	conv       string
	measures   []string
	complete   bool
	level      int
	perQuery   bool
}

// TestMetricsMatchesEvaluate checks /api/metrics answers exactly what
// metrics.Evaluate and metrics.WriteJSON ("dreval metrics -format json")
// give for trec_eval's own test files.
func TestMetricsMatchesEvaluate(t *testing.T) {
	dir := sharedtest.Path(t, "testdata/trec_eval")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ts := newTestServer(t, Options{})
	cases := []trecCase{
		{qrels: "qrels.test", run: "results.test", conv: "trec"},
		{qrels: "qrels.test", run: "results.test", conv: "trec", measures: []string{"all_trec"}, perQuery: true},
		{qrels: "qrels.test", run: "results.trunc", conv: "trec", measures: []string{"map", "ndcg_cut.10", "P.5,10", "recip_rank"}, complete: true},
		{qrels: "qrels.rel_level", run: "results.test", conv: "trec", measures: []string{"official"}, level: 2},
		{qrels: "qrels.test", run: "results.test", conv: "st", perQuery: true},
		{qrels: "qrels.test", run: "results.test", conv: "beir"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %s %s %v c=%v l=%d q=%v", c.qrels, c.run, c.conv, c.measures, c.complete, c.level, c.perQuery), func(t *testing.T) {
			qrelsText, runText := read(c.qrels), read(c.run)
			conv, err := metrics.ParseConvention(c.conv)
			if err != nil {
				t.Fatal(err)
			}
			ms := metrics.DefaultMeasures(conv)
			if c.measures != nil {
				if ms, err = metrics.ParseMeasures(c.measures, conv); err != nil {
					t.Fatal(err)
				}
			}
			q, err := metrics.ReadQrels(strings.NewReader(qrelsText), c.qrels)
			if err != nil {
				t.Fatal(err)
			}
			run, err := metrics.ReadRun(strings.NewReader(runText), c.run)
			if err != nil {
				t.Fatal(err)
			}
			level := max(c.level, 1)
			res, err := metrics.Evaluate(q, run, ms, metrics.Options{Convention: conv, RelLevel: level, Complete: c.complete})
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := metrics.WriteJSON(&want, res, c.perQuery); err != nil {
				t.Fatal(err)
			}
			req := map[string]any{"qrels": qrelsText, "run": runText, "convention": c.conv, "complete": c.complete, "per_query": c.perQuery}
			if c.measures != nil {
				req["measures"] = c.measures
			}
			if c.level != 0 {
				req["level"] = c.level
			}
			r := post(t, ts.URL+"/api/metrics", req)
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if !bytes.Equal(r.body, want.Bytes()) {
				t.Errorf("/api/metrics differs from metrics.Evaluate:\n got %.300s\nwant %.300s", r.body, want.Bytes())
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

// TestMetricsBEIRQrels: BEIR qrels with a byte order mark and their
// header, or without the header, give /api/metrics exactly the answer of
// the same judgments in TREC's four columns.
func TestMetricsBEIRQrels(t *testing.T) {
	const (
		trec = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d2 1\nq3 0 d9 1\n"
		run  = "q1 Q0 d3 1 0.9 r\nq1 Q0 d1 2 0.8 r\nq1 Q0 d2 3 0.7 r\nq2 Q0 d1 1 0.9 r\nq2 Q0 d2 2 0.5 r\n"
	)
	ts := newTestServer(t, Options{})
	ask := func(qrels, format string) response {
		req := map[string]any{"qrels": qrels, "run": run, "measures": []string{"all_trec"}, "per_query": true, "complete": true}
		if format != "" {
			req["qrels_format"] = format
		}
		return post(t, ts.URL+"/api/metrics", req)
	}
	want := ask(trec, "")
	if want.status != http.StatusOK {
		t.Fatalf("TREC qrels: status %d: %s", want.status, want.body)
	}
	for _, c := range []struct{ name, qrels, format string }{
		{"BOM and header", "\ufeffquery-id\tcorpus-id\tscore\r\nq1\td1\t2\r\nq1\td2\t0\r\nq1\td3\t1\r\nq2\td2\t1\r\nq3\td9\t1\r\n", ""},
		{"BOM and header, format beir", "\ufeffquery-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq1\td3\t1\nq2\td2\t1\nq3\td9\t1\n", "beir"},
		{"no header", "q1\td1\t2\nq1\td2\t0\nq1\td3\t1\nq2\td2\t1\nq3\td9\t1\n", "auto"},
	} {
		r := ask(c.qrels, c.format)
		if r.status != http.StatusOK || !bytes.Equal(r.body, want.body) {
			t.Errorf("%s: status %d\n got %.300s\nwant %.300s", c.name, r.status, r.body, want.body)
		}
	}
}

// TestPerturbMatchesPackage checks /api/perturb gives package perturb's
// results for the tokenizer it names.
func TestPerturbMatchesPackage(t *testing.T) {
	raw := tinyTokenizer(t)
	tok, err := tokenizer.FromJSON(bytes.NewReader(raw), "tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, Options{Models: fstest.MapFS{"tiny/tokenizer.json": {Data: raw}}})
	texts := []string{"the quick brown fox", "", "hello, world!"}
	for _, mode := range []perturb.Mode{perturb.IDShift, perturb.IDRandom, perturb.Typo, perturb.WordDrop} {
		c := perturb.Config{Mode: mode, Rate: 0.4, Seed: 7}
		r := post(t, ts.URL+"/api/perturb", map[string]any{"texts": texts, "mode": mode, "rate": 0.4, "seed": 7, "tokenizer": "tiny"})
		if r.status != http.StatusOK {
			t.Fatalf("%s: status %d: %s", mode, r.status, r.body)
		}
		var got perturbResponse
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatal(err)
		}
		p := &perturb.Perturber{Config: c, Vocab: tok, Encode: func(s string) []int32 { return tok.Encode(s).IDs }}
		for i, text := range texts {
			want, err := p.Apply(fmt.Sprint(i+1), text)
			if err != nil {
				t.Fatal(err)
			}
			if want.IDs == nil {
				want.IDs = []int32{}
			}
			if want.PerturbedIDs == nil {
				want.PerturbedIDs = []int32{}
			}
			if i >= len(got.Results) || !reflect.DeepEqual(got.Results[i], want) {
				t.Errorf("%s text %d:\n got %+v\nwant %+v", mode, i, got.Results, want)
			}
		}
		if got.TokenizerFingerprint != tok.Fingerprint() {
			t.Errorf("fingerprint %s, want %s", got.TokenizerFingerprint, tok.Fingerprint())
		}
	}
}

func TestDemoComputedOnce(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{}
	fail := true
	o := Options{Demo: func(_ context.Context, model string) (*DemoData, error) {
		mu.Lock()
		defer mu.Unlock()
		calls[model]++
		if model != "m" {
			return nil, fmt.Errorf("no model %q: %w", model, ErrUnknownModel)
		}
		if fail {
			fail = false
			return nil, fmt.Errorf("transient failure")
		}
		time.Sleep(20 * time.Millisecond)
		return &DemoData{NPY: []byte("NPY"), Meta: []byte(`{"rows":1}`)}, nil
	}}
	ts := newTestServer(t, o)
	wantError(t, do(t, nil, http.MethodGet, ts.URL+"/data/demo/m.npy", nil), http.StatusInternalServerError, "transient failure")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ext, want, ct := ".npy", "NPY", "application/octet-stream"
			if i%2 == 1 {
				ext, want, ct = ".json", `{"rows":1}`, "application/json"
			}
			r := do(t, nil, http.MethodGet, ts.URL+"/data/demo/m"+ext, nil)
			if r.status != http.StatusOK || string(r.body) != want || r.header.Get("Content-Type") != ct {
				t.Errorf("GET m%s: %d %q %q", ext, r.status, r.header.Get("Content-Type"), r.body)
			}
		}()
	}
	wg.Wait()
	if calls["m"] != 2 {
		t.Errorf("Demo called %d times for m, want 2 (one failure, then once)", calls["m"])
	}
	wantError(t, do(t, nil, http.MethodGet, ts.URL+"/data/demo/x.npy", nil), http.StatusNotFound, `no model "x"`)
	wantError(t, do(t, nil, http.MethodGet, ts.URL+"/data/demo/m.txt", nil), http.StatusNotFound, "no such file")
}

// TestDemoQueryFiles: the demo queries' precomputed vectors are served as
// MODEL.queries.npy and .json beside the corpus's, and a model without
// them answers 404 saying so.
func TestDemoQueryFiles(t *testing.T) {
	o := Options{Demo: func(_ context.Context, model string) (*DemoData, error) {
		d := &DemoData{NPY: []byte("NPY"), Meta: []byte(`{"rows":1}`)}
		if model == "q" {
			d.QueryNPY, d.QueryMeta = []byte("QNPY"), []byte(`{"rows":2}`)
		}
		return d, nil
	}}
	ts := newTestServer(t, o)
	for _, tc := range []struct{ path, want, ct string }{
		{"/data/demo/q.npy", "NPY", "application/octet-stream"},
		{"/data/demo/q.json", `{"rows":1}`, "application/json"},
		{"/data/demo/q.queries.npy", "QNPY", "application/octet-stream"},
		{"/data/demo/q.queries.json", `{"rows":2}`, "application/json"},
	} {
		r := do(t, nil, http.MethodGet, ts.URL+tc.path, nil)
		if r.status != http.StatusOK || string(r.body) != tc.want || r.header.Get("Content-Type") != tc.ct {
			t.Errorf("GET %s: %d %q %q, want %q %q", tc.path, r.status, r.header.Get("Content-Type"), r.body, tc.ct, tc.want)
		}
	}
	wantError(t, do(t, nil, http.MethodGet, ts.URL+"/data/demo/m.queries.npy", nil), http.StatusNotFound, "no precomputed demo query vectors of m")
	wantError(t, do(t, nil, http.MethodGet, ts.URL+"/data/demo/q.other.npy", nil), http.StatusNotFound, "no such file")
}

// namedEncoder is a fakeEncoder that names its engine.
type namedEncoder struct {
	*fakeEncoder
	engine string
}

func (n namedEncoder) Engine() string { return n.engine }

func TestEncodeEngine(t *testing.T) {
	named := newTestServer(t, Options{Encoder: fakeFactory(namedEncoder{&fakeEncoder{dim: 4, vocab: 100}, "go"})})
	unnamed := newTestServer(t, Options{Encoder: fakeFactory(&fakeEncoder{dim: 4, vocab: 100})})
	for _, tc := range []struct {
		name   string
		url    string
		engine string
		status int
		errSub string
	}{
		{"same engine", named.URL, "go", http.StatusOK, ""},
		{"no engine asked", named.URL, "", http.StatusOK, ""},
		{"other engine", named.URL, "ort", http.StatusConflict, `with engine "go", not engine "ort"`},
		{"unnamed encoder", unnamed.URL, "go", http.StatusConflict, "an engine it does not name"},
		{"no engine asked, unnamed", unnamed.URL, "", http.StatusOK, ""},
		{"bad engine name", named.URL, "a b", http.StatusBadRequest, `engine "a b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"model": "fake", "ids": [][]int32{{1, 5, 2}}}
			if tc.engine != "" {
				body["engine"] = tc.engine
			}
			r := post(t, tc.url+"/api/encode", body)
			if tc.status != http.StatusOK {
				wantError(t, r, tc.status, tc.errSub)
				return
			}
			if vecs := decodeEncodeReply(t, r); len(vecs) != 1 || len(vecs[0]) != 4 {
				t.Errorf("got %d vectors, want 1 of 4 values", len(vecs))
			}
		})
	}
	// An empty request is how a client probes: 200 with the dimension.
	r := post(t, named.URL+"/api/encode", map[string]any{"model": "fake", "engine": "go", "ids": [][]int32{}})
	var er encodeResponse
	if r.status != http.StatusOK || json.Unmarshal(r.body, &er) != nil || er.Dim != 4 || len(er.Embeddings) != 0 {
		t.Errorf("probe: status %d, body %s", r.status, r.body)
	}
}
