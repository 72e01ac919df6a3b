package browser

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/retrieval"
)

// counted is a Peer that counts the requests it is sent, by type.
type counted struct {
	Peer
	mu sync.Mutex
	n  map[string]int
}

func (c *counted) count(req Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[req.MessageType()]++
}

func (c *counted) Call(req Message) <-chan Message { c.count(req); return c.Peer.Call(req) }
func (c *counted) Post(req Message)                { c.count(req); c.Peer.Post(req) }

func (c *counted) sent(typ string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[typ]
}

// TestHelpersSplitTheWork runs the lesson in a first worker with two
// helpers, every message between them crossing the wire: the helpers
// rank parts of the searches (each corpus sent once) and draw the paired
// tests' random numbers, and the numbers are those of a worker alone.
func TestHelpersSplitTheWork(t *testing.T) {
	s := &site{fsys: siteFS(t)}
	peers := []*counted{{Peer: helper(t, New(Ports{Files: s}))}, {Peer: helper(t, New(Ports{Files: s}))}}
	first := New(Ports{Files: s, Peers: func() []Peer { return []Peer{peers[0], peers[1]} }})
	alone := New(Ports{Files: s})
	var exports []string
	for _, a := range []*App{first, alone} {
		answer[*RunReply](t, a, lesson([]float64{0, 0.1, 0.2}, 0.1))
		var res results.Results
		if err := json.Unmarshal([]byte(answer[*ExportReply](t, a, &ExportRequest{}).JSON), &res); err != nil {
			t.Fatal(err)
		}
		exports = append(exports, numbers(t, res.Datasets[0].Models[0]))
	}
	if exports[0] != exports[1] {
		t.Errorf("with helpers:\n%s\nalone:\n%s", exports[0], exports[1])
	}
	for i, p := range peers {
		if p.sent("search") == 0 {
			t.Errorf("helper %d ranked no part of a search", i+1)
		}
	}
	if peers[1].sent("draws") != 1 || peers[0].sent("draws") != 0 {
		t.Errorf("draws asked of the helpers: %d, %d; want the last one, once", peers[0].sent("draws"), peers[1].sent("draws"))
	}
	if n := peers[0].sent("embed"); n != 0 {
		t.Errorf("the static model embeds alone (a table lookup), yet helper 1 got %d chunks", n)
	}
	// Each batch split between the three workers, as a run splits a
	// transformer's.
	b := answer[*BenchReply](t, first, &BenchRequest{Model: "static", N: 40, Tokens: 8, Batch: 4, All: true, Engine: "go"})
	if b.Workers != 3 || b.Sentences != 40 || b.PerSecond <= 0 || b.Engine != "static, 3 workers" {
		t.Errorf("bench %+v", b)
	}
	if peers[0].sent("embed") == 0 || peers[1].sent("embed") == 0 {
		t.Error("the bench's batches did not reach the helpers")
	}
	if msg := failure(t, first, &BenchRequest{Model: "static", N: 0, Tokens: 8}); !strings.Contains(msg, "want n >= 1") {
		t.Errorf("bench of no sentences: %q", msg)
	}
	if msg := failure(t, first, &BenchRequest{Model: "bm25", N: 1, Tokens: 8}); !strings.Contains(msg, "does not embed") {
		t.Errorf("bench of BM25: %q", msg)
	}
}

// TestEmbedRequest: a helper embeds a chunk as this worker would; ids
// that do not unpack are refused.
func TestEmbedRequest(t *testing.T) {
	a, _ := newApp(t, 0)
	seqs := [][]int32{{2, 10, 11, 3}, {2, 3}, {2, 40, 41, 42, 43, 3}}
	data, lens := packIDs(seqs)
	r := answer[*EmbedReply](t, a, &EmbedRequest{Model: "static", Engine: "go", Side: "query", Data: data, Lens: lens})
	m, err := a.openLocal(t.Context(), "static", "go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Query.Embedder.EmbedIDs(seqs)
	if err != nil {
		t.Fatal(err)
	}
	if r.Dim != 16 || len(r.Data) != 3*16*4 {
		t.Fatalf("reply of %d bytes, dim %d", len(r.Data), r.Dim)
	}
	var flat []float32
	for _, v := range want {
		flat = append(flat, v...)
	}
	if !slices.Equal(matrixMust(t, r.Data, 16).Data, flat) {
		t.Error("the helper's vectors are not the model's")
	}
	if msg := failure(t, a, &EmbedRequest{Model: "static", Engine: "go", Data: data[:5], Lens: lens}); msg != "malformed id buffers" {
		t.Errorf("malformed ids: %q", msg)
	}
	if msg := failure(t, a, &EmbedRequest{Model: "static", Engine: "go", Data: data[:8], Lens: lens}); msg != "id buffer shorter than its lengths" {
		t.Errorf("short ids: %q", msg)
	}
}

func matrixMust(t *testing.T, b []byte, dim int) *retrieval.Matrix {
	t.Helper()
	m, err := matrixOf(b, dim)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPortPeer: replies find their calls whatever their order; a reply
// to no call is dropped; one that does not decode is an error for its
// call; a posted request carries no id.
func TestPortPeer(t *testing.T) {
	var sent []map[string]any
	p := NewPortPeer(func(tree map[string]any) { sent = append(sent, tree) })
	first := p.Call(&DrawsRequest{N: 1, Seed: "1"})
	second := p.Call(&SearchRequest{Dim: 2})
	p.Post(&PrepareRequest{Model: "minilm"})
	if len(sent) != 3 || sent[0]["id"] != 1 || sent[1]["id"] != 2 || sent[2]["id"] != nil || sent[1]["type"] != "search" {
		t.Fatalf("sent %v", sent)
	}
	p.Receive(map[string]any{"type": "hits", "id": 2.0, "data": []byte{0, 0, 0, 0}})
	p.Receive(map[string]any{"type": "hits", "id": 9.0})
	p.Receive(map[string]any{"type": "nonsense", "id": 1.0})
	if r, ok := (<-second).(*SearchReply); !ok || len(r.Data) != 4 {
		t.Errorf("the second call's reply: %#v", r)
	}
	if r, ok := (<-first).(*ErrorReply); !ok || !strings.Contains(r.Message, `unknown message type "nonsense"`) {
		t.Errorf("the first call's reply: %#v", r)
	}
}

// TestSearchParts: the hits of query rows ranked in parts, packed and
// unpacked as the workers pass them, are TopK's of all rows at once.
func TestSearchParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	corpus, queries := retrieval.NewMatrix(50, 16), retrieval.NewMatrix(9, 16)
	for _, m := range []*retrieval.Matrix{corpus, queries} {
		for i := range m.Data {
			m.Data[i] = float32(rng.NormFloat64())
		}
	}
	copy(corpus.Row(7), corpus.Row(3)) // a tie, broken by document id
	ids := make([]string, corpus.Rows)
	for i := range ids {
		ids[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	opt := retrieval.Options{K: 5, DocIDs: ids}
	want, err := retrieval.TopK(corpus, queries, opt)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]retrieval.Hit
	for _, part := range [][2]int{{0, 4}, {4, 9}} {
		c, err := matrixOf(floatBytes(corpus.Data), 16)
		if err != nil {
			t.Fatal(err)
		}
		q, err := matrixOf(floatBytes(queries.Data[part[0]*16:part[1]*16]), 16)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := retrieval.TopK(c, q, opt)
		if err != nil {
			t.Fatal(err)
		}
		back, err := unpackHits(packHits(hits), part[1]-part[0], corpus.Rows)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, back...)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hits in parts %v, all at once %v", got, want)
	}
	b := packHits(want)
	for _, bad := range [][]byte{b[:len(b)-1], append(b, 0), nil} {
		if _, err := unpackHits(bad, len(want), corpus.Rows); err == nil {
			t.Errorf("unpackHits took %d malformed bytes", len(bad))
		}
	}
	if _, err := unpackHits(b, len(want), 3); err == nil {
		t.Error("unpackHits took document rows past the corpus")
	}
	if _, err := matrixOf(make([]byte, 10), 16); err == nil {
		t.Error("matrixOf took 10 bytes as rows of 16 values")
	}
}

// TestSearchCorporaHeld: the first worker numbers a corpus once and a
// new one anew; a helper ranks against a corpus it holds when a request
// names it without carrying it, the same hits as with it, and refuses
// one it no longer holds.
func TestSearchCorporaHeld(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	corpus, other, queries := retrieval.NewMatrix(40, 8), retrieval.NewMatrix(40, 8), retrieval.NewMatrix(6, 8)
	for _, m := range []*retrieval.Matrix{corpus, other, queries} {
		for i := range m.Data {
			m.Data[i] = float32(rng.NormFloat64())
		}
	}
	ids := make([]string, corpus.Rows)
	for i := range ids {
		ids[i] = "d" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	var first searchCorpora
	a1 := first.id(corpus, ids)
	if a2 := first.id(corpus, ids); a2 != a1 {
		t.Errorf("the same corpus numbered %d, then %d", a1, a2)
	}
	b := first.id(other, ids)
	if b == a1 {
		t.Errorf("another corpus got the same number %d", b)
	}
	if c := first.id(corpus, slices.Clone(ids)); c == a1 || c == b {
		t.Errorf("the corpus with other id strings got number %d again", c)
	}

	helper := New(Ports{})
	req := func(id int, with *retrieval.Matrix) *SearchRequest {
		q := &SearchRequest{Dim: 8, K: 5, CorpusID: id, Queries: floatBytes(queries.Data)}
		if with != nil {
			q.Corpus, q.DocIDs = floatBytes(with.Data), ids
		}
		return q
	}
	want, err := retrieval.TopK(corpus, queries, retrieval.Options{K: 5, DocIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []*SearchRequest{req(1, corpus), req(1, nil)} {
		r := answer[*SearchReply](t, helper, q)
		got, err := unpackHits(r.Data, queries.Rows, corpus.Rows)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("hits %v, want %v", got, want)
		}
	}
	if msg := failure(t, helper, req(2, nil)); !strings.Contains(msg, "corpus 2 is not held") {
		t.Errorf("a corpus never sent: %v", msg)
	}
	for id := 2; id <= 1+keepCorpora; id++ {
		answer[*SearchReply](t, helper, req(id, other))
	}
	if msg := failure(t, helper, req(1, nil)); msg == "" {
		t.Errorf("corpus 1 still held after %d newer ones", keepCorpora)
	}
}

// TestDrawsMessage: the tables a helper worker answers a DrawsRequest
// with read back (uint64s, int32s) as metrics.DrawTables's, and
// metrics.KeepDrawTables takes them; a bad seed is an error.
func TestDrawsMessage(t *testing.T) {
	opts := metrics.CompareOptions{Permutations: 300, Resamples: 200, Seed: 1<<63 + 12345}
	const n = 70
	req := &DrawsRequest{N: n, Permutations: opts.Permutations, Resamples: opts.Resamples, Seed: strconv.FormatUint(opts.Seed, 10)}
	// As a helper gets it and the first worker gets its answer.
	back, err := DecodeRequest(asJS(Encode(req)).(map[string]any))
	if err != nil {
		t.Fatal(err)
	}
	out, err := drawTables(back.(*DrawsRequest))
	if err != nil {
		t.Fatal(err)
	}
	m, err := DecodeReply(asJS(Encode(out)).(map[string]any))
	if err != nil {
		t.Fatal(err)
	}
	r := m.(*DrawsReply)
	signs, err := valuesOf[uint64](r.Signs)
	if err != nil {
		t.Fatal(err)
	}
	picks, err := valuesOf[int32](r.Picks)
	if err != nil {
		t.Fatal(err)
	}
	ws, wp := metrics.DrawTables(n, opts)
	if !slices.Equal(signs, ws) || !slices.Equal(picks, wp) {
		t.Fatalf("the answer's tables (%d words, %d picks) are not DrawTables's (%d, %d)", len(signs), len(picks), len(ws), len(wp))
	}
	if err := metrics.KeepDrawTables(n, opts, signs, picks); err != nil {
		t.Fatal(err)
	}
	if _, err := valuesOf[uint64](make([]byte, 12)); err == nil {
		t.Error("12 bytes read as uint64s")
	}
	if _, err := valuesOf[int32](make([]byte, 6)); err == nil {
		t.Error("6 bytes read as int32s")
	}
	if v, err := valuesOf[int32](nil); err != nil || len(v) != 0 {
		t.Errorf("no bytes: %v, %v", v, err)
	}
	if _, err := drawTables(&DrawsRequest{N: n, Seed: "-1"}); err == nil {
		t.Error("a seed of -1 was taken")
	}
}
