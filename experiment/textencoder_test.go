package experiment_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

// TestTextEncoder checks the adapter "dreval serve" answers /api/encode
// with: the ids are the model's own (special tokens, truncation), the
// vectors its embedder's, and sparse models are refused.
func TestTextEncoder(t *testing.T) {
	dir := sharedtest.ModelDir(t, "minilm")
	m, err := experiment.OpenDense("minilm", modelfiles.OSDir(dir), experiment.ModelOptions{Engine: "go"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	e, err := experiment.NewTextEncoder(m, "query")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 400)
	ids, truncated := e.Tokenize([]string{"Hello world", long})
	if truncated != 1 {
		t.Errorf("truncated = %d, want 1 (the long text)", truncated)
	}
	if want := m.Query.Tokenizer.EncodeIDs("Hello world"); !slices.Equal(ids[0], want) {
		t.Errorf("ids %v, want the model's %v", ids[0], want)
	}
	if len(ids[1]) != e.MaxLength() || e.MaxLength() != 256 {
		t.Errorf("long text: %d ids, MaxLength %d; want 256 both (sentence_bert_config.json)", len(ids[1]), e.MaxLength())
	}
	vecs, err := e.EmbedIDs(ids[:1])
	if err != nil {
		t.Fatal(err)
	}
	direct, err := m.Query.Embedder.EmbedIDs(ids[:1])
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs[0]) != e.Dim() || e.Dim() != 384 || vecs[0][0] != direct[0][0] {
		t.Errorf("vector of %d values (Dim %d), first %v; want 384 and the embedder's %v", len(vecs[0]), e.Dim(), vecs[0][0], direct[0][0])
	}
	if e.VocabSize() != 30522 || e.Engine() != "go" {
		t.Errorf("VocabSize %d, Engine %q; want 30522, go", e.VocabSize(), e.Engine())
	}
	bm25, err := experiment.DefaultRegistry().Open(context.Background(), "bm25", experiment.ModelOptions{ModelsDir: sharedtest.ModelsDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := experiment.NewTextEncoder(bm25, "query"); err == nil || !strings.Contains(err.Error(), "not a dense model") {
		t.Errorf("bm25: err %v, want \"not a dense model\"", err)
	}
}
