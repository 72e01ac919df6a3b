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

// FuzzCorpusVectors reads a corpus vector description and matrix as the
// page does (JSON, then .npy) and checks them against a model and corpus:
// never a panic, and vectors accepted only when they describe that
// corpus, id by id, with the model's dimensions and finite values.
func FuzzCorpusVectors(f *testing.F) {
	c, err := dataset.Demo("test")
	if err != nil {
		f.Fatal(err)
	}
	corpus := c.Corpus[:6]
	m, _ := experimenttest.Model("fake", experimenttest.ForCollection(c))
	hash := experiment.CorpusHash(corpus)
	mat, _, err := experiment.CorpusVectors(context.Background(), m, corpus, experiment.CorpusOptions{CorpusHash: hash})
	if err != nil {
		f.Fatal(err)
	}
	js, err := json.Marshal(experiment.NewCorpusVectorsMeta(m, "demo", corpus, hash, mat))
	if err != nil {
		f.Fatal(err)
	}
	var npy bytes.Buffer
	if err := retrieval.WriteNPY(&npy, mat, retrieval.Float32); err != nil {
		f.Fatal(err)
	}
	f.Add(js, npy.Bytes())
	f.Add([]byte(`{"rows": 6, "dim": 64, "doc_ids": ["a"]}`), npy.Bytes())
	f.Add(js, []byte("\x93NUMPY"))
	f.Fuzz(func(t *testing.T, js, npy []byte) {
		var meta experiment.CorpusVectorsMeta
		if json.Unmarshal(js, &meta) != nil {
			return
		}
		if meta.Fits(m, corpus, hash) != "" {
			return
		}
		mat, err := retrieval.ReadNPY(bytes.NewReader(npy), "demo.npy")
		if err != nil {
			return
		}
		if meta.CheckMatrix(mat, "demo.npy") != nil {
			return
		}
		if mat.Rows != len(corpus) || mat.Dim != m.Document.Embedder.Dim() || len(meta.DocIDs) != len(corpus) {
			t.Fatalf("accepted %d x %d vectors (%d ids) for %d documents of %d values", mat.Rows, mat.Dim, len(meta.DocIDs), len(corpus), m.Document.Embedder.Dim())
		}
		for i, d := range corpus {
			if meta.DocIDs[i] != d.ID {
				t.Fatalf("accepted row %d as document %q, the corpus's %q", i, meta.DocIDs[i], d.ID)
			}
		}
		if mat.CheckFinite("demo.npy") != nil {
			t.Fatal("accepted values that are not finite")
		}
	})
}
