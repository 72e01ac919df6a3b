package experiment_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/retrieval"
)

// TestQueryVectorsRun checks that a run whose query embedder holds the
// clean queries' precomputed vectors gives the results of a run that
// encodes them, and encodes only the sequences that differ from the clean
// ones.
func TestQueryVectorsRun(t *testing.T) {
	c := demo(t)
	tok := experimenttest.ForCollection(c)
	queries := c.JudgedQueries()
	ref, _ := experimenttest.Model("fake", tok)
	mat, meta, err := experiment.EncodeQueryVectors(context.Background(), ref, "demo", queries)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Rows != len(queries) || mat.Rows != len(queries) || len(meta.TokenIDs) != len(queries) || meta.QueriesSHA256 != experiment.QueriesHash(queries) {
		t.Fatalf("meta: %d rows, %d token id lists, for %d queries", meta.Rows, len(meta.TokenIDs), len(queries))
	}
	v, why, err := experiment.CheckQueryVectors(ref, queries, meta, mat, "vectors")
	if err != nil || why != "" || v.Len() != countDistinct(meta.TokenIDs) {
		t.Fatalf("CheckQueryVectors: %v, %q, %d vectors", err, why, v.Len())
	}

	cfg, _ := fakeConfig(c)
	plain, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, emb := experimenttest.Model("fake", tok)
	seen := map[string]bool{}
	m.Query.Embedder = experiment.WithQueryVectors(&recordingEmbedder{Embedder: emb, seen: seen}, v)
	reg := experiment.NewRegistry()
	reg.Register("fake", func(context.Context, string, experiment.ModelOptions) (*experiment.Model, error) { return m, nil })
	cfg.Registry = reg
	got, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if comparable(t, got) != comparable(t, plain) {
		t.Error("the results with precomputed query vectors differ from those that encode every query")
	}
	for _, ids := range meta.TokenIDs {
		if seen[experiment.QueryKey(ids)] {
			t.Fatalf("clean query %v was encoded although its vector was given", ids)
		}
	}
	seqs, err := experiment.QuerySequences(cfg, c, m)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(seqs) - v.Len(); len(seen) != want || want <= 0 {
		t.Errorf("encoded %d query sequences, want %d (the %d searched, less the %d precomputed)", len(seen), want, len(seqs), v.Len())
	}
}

func countDistinct(seqs [][]int32) int {
	m := map[string]bool{}
	for _, s := range seqs {
		m[experiment.QueryKey(s)] = true
	}
	return len(m)
}

// recordingEmbedder records every query sequence it embeds.
type recordingEmbedder struct {
	encoder.Embedder
	seen map[string]bool
}

func (r *recordingEmbedder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	for _, s := range ids {
		r.seen[experiment.QueryKey(s)] = true
	}
	return r.Embedder.EmbedIDs(ids)
}

// TestWithQueryVectorsEmbedIDs checks the embedder itself: a known
// sequence gets its vector, any other (a perturbed one that differs in a
// single id) is embedded.
func TestWithQueryVectorsEmbedIDs(t *testing.T) {
	c := demo(t)
	tok := experimenttest.ForCollection(c)
	queries := c.JudgedQueries()[:3]
	m, _ := experimenttest.Model("fake", tok)
	mat, meta, err := experiment.EncodeQueryVectors(context.Background(), m, "demo", queries)
	if err != nil {
		t.Fatal(err)
	}
	// Marked vectors: a looked-up row is told from an embedded one.
	for i := range mat.Data {
		mat.Data[i] = 0
	}
	for i := 0; i < mat.Rows; i++ {
		mat.Row(i)[0] = 1
	}
	v, why, err := experiment.CheckQueryVectors(m, queries, meta, mat, "vectors")
	if err != nil || why != "" {
		t.Fatal(err, why)
	}
	changed := slices.Clone(meta.TokenIDs[1])
	changed[1]++
	inner := &recordingEmbedder{Embedder: m.Query.Embedder, seen: map[string]bool{}}
	out, err := experiment.WithQueryVectors(inner, v).EmbedIDs([][]int32{meta.TokenIDs[0], changed, meta.TokenIDs[2]})
	if err != nil {
		t.Fatal(err)
	}
	if !isMarked(out[0]) || !isMarked(out[2]) {
		t.Error("a clean sequence did not get its precomputed vector")
	}
	if isMarked(out[1]) || len(inner.seen) != 1 || !inner.seen[experiment.QueryKey(changed)] {
		t.Errorf("the changed sequence was not embedded (embedded %d sequences)", len(inner.seen))
	}
	if _, ok := v.Lookup(meta.TokenIDs[0][:len(meta.TokenIDs[0])-1]); ok {
		t.Error("a prefix of a known sequence was looked up")
	}
}

func isMarked(v []float32) bool {
	if v[0] != 1 {
		return false
	}
	for _, x := range v[1:] {
		if x != 0 {
			return false
		}
	}
	return true
}

// TestCheckQueryVectorsRefuses checks that vectors made by another
// model, engine or tokenizer, or for other queries, are refused with a
// reason, and that a file contradicting itself is an error.
func TestCheckQueryVectorsRefuses(t *testing.T) {
	c := demo(t)
	tok := experimenttest.ForCollection(c)
	queries := c.JudgedQueries()
	m, _ := experimenttest.Model("fake", tok)
	mat, meta, err := experiment.EncodeQueryVectors(context.Background(), m, "demo", queries)
	if err != nil {
		t.Fatal(err)
	}
	swapped, err := tok.Swapped([][2]int32{{meta.TokenIDs[0][1], meta.TokenIDs[1][1]}})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := experimenttest.Model("other", tok)
	tampered := *m
	tampered.Query.Tokenizer = swapped
	sameFP := *m
	sameFP.Query.Tokenizer = &fixedFingerprint{Tokenizer: swapped, fp: tok.Fingerprint()}
	otherEngine := *m
	otherEngine.Query.Fingerprint, otherEngine.Query.Engine = "ort-fp", "ort"
	edited := slices.Clone(queries)
	edited[2].Text += " more"
	reordered := slices.Clone(queries)
	reordered[0], reordered[1] = reordered[1], reordered[0]

	for _, tc := range []struct {
		name    string
		m       *experiment.Model
		queries []dataset.Query
		edit    func(*experiment.QueryVectorsMeta, *retrieval.Matrix)
		why     string // the reason's words; "" for an error
		err     string
	}{
		{name: "tampered tokenizer", m: &tampered, queries: queries, why: "another tokenizer"},
		{name: "tokenizer with the same fingerprint, other ids", m: &sameFP, queries: queries, why: "other token ids"},
		{name: "another model's vectors", m: other, queries: queries, why: "another query tower"},
		{name: "another engine", m: &otherEngine, queries: queries, why: "computed by engine fake"},
		{name: "edited query", m: m, queries: edited, why: "another version of the queries"},
		{name: "reordered queries", m: m, queries: reordered, why: "another version of the queries"},
		{name: "ids out of order", m: m, queries: queries, why: "row 0 is query",
			edit: func(meta *experiment.QueryVectorsMeta, _ *retrieval.Matrix) {
				meta.QueryIDs[0], meta.QueryIDs[1] = meta.QueryIDs[1], meta.QueryIDs[0]
			}},
		{name: "token ids edited", m: m, queries: queries, why: "other token ids",
			edit: func(meta *experiment.QueryVectorsMeta, _ *retrieval.Matrix) { meta.TokenIDs[3][1]++ }},
		{name: "rows", m: m, queries: queries, err: "rows, dim",
			edit: func(meta *experiment.QueryVectorsMeta, _ *retrieval.Matrix) { meta.Rows++ }},
		{name: "missing token ids", m: m, queries: queries, err: "field token_ids",
			edit: func(meta *experiment.QueryVectorsMeta, _ *retrieval.Matrix) { meta.TokenIDs = meta.TokenIDs[1:] }},
		{name: "NaN", m: m, queries: queries, err: "finite",
			edit: func(_ *experiment.QueryVectorsMeta, mat *retrieval.Matrix) { mat.Row(4)[2] = float32(math.NaN()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := meta
			mt.QueryIDs = slices.Clone(meta.QueryIDs)
			mt.TokenIDs = nil
			for _, s := range meta.TokenIDs {
				mt.TokenIDs = append(mt.TokenIDs, slices.Clone(s))
			}
			mm := &retrieval.Matrix{Rows: mat.Rows, Dim: mat.Dim, Data: slices.Clone(mat.Data)}
			if tc.edit != nil {
				tc.edit(&mt, mm)
			}
			v, why, err := experiment.CheckQueryVectors(tc.m, tc.queries, mt, mm, "demo.queries.npy")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "demo.queries.npy") {
					t.Fatalf("got error %v, want one naming the file and %q", err, tc.err)
				}
				return
			}
			if err != nil || v != nil || !strings.Contains(why, tc.why) {
				t.Fatalf("got %d vectors, reason %q, error %v; want the reason %q", v.Len(), why, err, tc.why)
			}
		})
	}
}

// fixedFingerprint is a tokenizer that claims another's fingerprint.
type fixedFingerprint struct {
	experiment.Tokenizer
	fp string
}

func (f *fixedFingerprint) Fingerprint() string { return f.fp }

// FuzzCheckQueryVectors reads a query vector description and matrix as
// the page does (JSON, then .npy) and checks them: never a panic, and
// vectors accepted only for the queries' own ids and token ids.
func FuzzCheckQueryVectors(f *testing.F) {
	c, err := dataset.Demo("test")
	if err != nil {
		f.Fatal(err)
	}
	queries := c.Queries[:5]
	m, _ := experimenttest.Model("fake", experimenttest.ForCollection(c))
	mat, meta, err := experiment.EncodeQueryVectors(context.Background(), m, "demo", queries)
	if err != nil {
		f.Fatal(err)
	}
	js, err := json.Marshal(meta)
	if err != nil {
		f.Fatal(err)
	}
	var npy bytes.Buffer
	if err := retrieval.WriteNPY(&npy, mat, retrieval.Float32); err != nil {
		f.Fatal(err)
	}
	f.Add(js, npy.Bytes())
	f.Add([]byte(`{"rows": 5, "dim": 64, "query_ids": ["a"], "token_ids": [[1, 2]]}`), npy.Bytes())
	f.Add(js, []byte("\x93NUMPY"))
	f.Fuzz(func(t *testing.T, js, npy []byte) {
		var meta experiment.QueryVectorsMeta
		if json.Unmarshal(js, &meta) != nil {
			return
		}
		mat, err := retrieval.ReadNPY(bytes.NewReader(npy), "q.npy")
		if err != nil {
			return
		}
		v, why, err := experiment.CheckQueryVectors(m, queries, meta, mat, "q.npy")
		if err != nil || why != "" {
			if v != nil {
				t.Fatalf("vectors returned with a refusal (%q, %v)", why, err)
			}
			return
		}
		for i, q := range queries {
			if meta.QueryIDs[i] != q.ID || !slices.Equal(meta.TokenIDs[i], m.Query.Tokenizer.EncodeIDs(q.Text)) {
				t.Fatalf("accepted row %d for query %q: %q %v", i, q.ID, meta.QueryIDs[i], meta.TokenIDs[i])
			}
			if vec, ok := v.Lookup(meta.TokenIDs[i]); !ok || len(vec) != m.Query.Embedder.Dim() {
				t.Fatalf("row %d: no vector of %d values", i, m.Query.Embedder.Dim())
			}
		}
	})
}
