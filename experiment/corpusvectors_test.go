package experiment_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/retrieval"
)

// TestCorpusVectorsMeta checks the description of precomputed corpus
// vectors against the model and corpus of a run: the vectors of the same
// document tower and corpus fit, and every way they can be another's is
// named (Fits) or, where the file contradicts itself, an error naming it
// (CheckMatrix).
func TestCorpusVectorsMeta(t *testing.T) {
	c := demo(t)
	tok := experimenttest.ForCollection(c)
	m, _ := experimenttest.Model("fake", tok)
	hash := experiment.CorpusHash(c.Corpus)
	mat, _, err := experiment.CorpusVectors(context.Background(), m, c.Corpus, experiment.CorpusOptions{CorpusHash: hash})
	if err != nil {
		t.Fatal(err)
	}
	meta := experiment.NewCorpusVectorsMeta(m, "demo", c.Corpus, hash, mat)
	if meta.Rows != len(c.Corpus) || len(meta.DocIDs) != len(c.Corpus) || meta.DocIDs[7] != c.Corpus[7].ID || meta.CorpusSHA256 != hash {
		t.Fatalf("meta: %d rows, %d ids, for %d documents", meta.Rows, len(meta.DocIDs), len(c.Corpus))
	}
	if why := meta.Fits(m, c.Corpus, hash); why != "" {
		t.Fatalf("the model's own vectors do not fit: %s", why)
	}
	if err := meta.CheckMatrix(mat, "demo.npy"); err != nil {
		t.Fatal(err)
	}

	swapped, err := tok.Swapped([][2]int32{{5, 6}})
	if err != nil {
		t.Fatal(err)
	}
	tampered := *m
	tampered.Document.Tokenizer = swapped
	other, _ := experimenttest.Model("other", tok)
	otherEngine := *m
	otherEngine.Document.Fingerprint, otherEngine.Document.Engine = "ort-fp", "ort"
	edited := slices.Clone(c.Corpus)
	edited[3].Text += " more"
	for _, tc := range []struct {
		name   string
		m      *experiment.Model
		corpus []dataset.Doc
		edit   func(*experiment.CorpusVectorsMeta)
		why    string
	}{
		{name: "tampered tokenizer", m: &tampered, corpus: c.Corpus, why: "another tokenizer"},
		{name: "another model's vectors", m: other, corpus: c.Corpus, why: "other model files or settings"},
		{name: "another engine", m: &otherEngine, corpus: c.Corpus, why: "computed by engine fake"},
		{name: "edited corpus", m: m, corpus: edited, why: "another version of the corpus"},
		{name: "fewer documents", m: m, corpus: c.Corpus[1:], why: "another version of the corpus"},
		{name: "ids out of order", m: m, corpus: c.Corpus, why: "row 0 is document",
			edit: func(meta *experiment.CorpusVectorsMeta) {
				meta.DocIDs[0], meta.DocIDs[1] = meta.DocIDs[1], meta.DocIDs[0]
			}},
		{name: "dimensions", m: m, corpus: c.Corpus, why: "vectors of",
			edit: func(meta *experiment.CorpusVectorsMeta) { meta.Dim++ }},
		{name: "no document tower", m: &experiment.Model{Name: "bm25", Kind: experiment.Lexical}, corpus: c.Corpus, why: "no document tower"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := meta
			mt.DocIDs = slices.Clone(meta.DocIDs)
			if tc.edit != nil {
				tc.edit(&mt)
			}
			h := experiment.CorpusHash(tc.corpus)
			if why := mt.Fits(tc.m, tc.corpus, h); !strings.Contains(why, tc.why) || why == "" {
				t.Fatalf("reason %q, want one saying %q", why, tc.why)
			}
		})
	}

	for _, tc := range []struct {
		name string
		edit func(*experiment.CorpusVectorsMeta, *retrieval.Matrix) *retrieval.Matrix
		err  string
	}{
		{"rows", func(meta *experiment.CorpusVectorsMeta, mat *retrieval.Matrix) *retrieval.Matrix {
			meta.Rows++
			return mat
		}, "rows, dim"},
		{"NaN", func(_ *experiment.CorpusVectorsMeta, mat *retrieval.Matrix) *retrieval.Matrix {
			mat.Row(4)[2] = float32(math.NaN())
			return mat
		}, "finite"},
		{"no matrix", func(*experiment.CorpusVectorsMeta, *retrieval.Matrix) *retrieval.Matrix { return nil }, "no matrix"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := meta
			mm := tc.edit(&mt, &retrieval.Matrix{Rows: mat.Rows, Dim: mat.Dim, Data: slices.Clone(mat.Data)})
			err := mt.CheckMatrix(mm, "demo.npy")
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "demo.npy") {
				t.Fatalf("got error %v, want one naming the file and %q", err, tc.err)
			}
		})
	}
}
