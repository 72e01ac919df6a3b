package experiment_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
)

// TestTextEncoder checks the adapter "dreval serve" answers /api/encode
// with: the ids are the model's own (special tokens, truncation), the
// vectors its embedder's, and sparse models are refused.
func TestTextEncoder(t *testing.T) {
	dir := sharedtest.ModelDir(t, "minilm")
	m, err := experiment.OpenDense("minilm", dir, experiment.ModelOptions{Engine: "go"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	e, err := experiment.NewTextEncoder(m)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 400)
	ids, truncated := e.Tokenize([]string{"Hello world", long})
	if truncated != 1 {
		t.Errorf("truncated = %d, want 1 (the long text)", truncated)
	}
	if want := m.Tokenizer.EncodeIDs("Hello world"); !slices.Equal(ids[0], want) {
		t.Errorf("ids %v, want the model's %v", ids[0], want)
	}
	// The directory's length: max_seq_length of sentence_bert_config.json
	// when the installed model has one (256 for all-MiniLM-L6-v2), else
	// the tokenizer's truncation (128).
	settings, err := encoder.ReadSettings(dir, encoder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := settings.MaxLength; len(ids[1]) != e.MaxLength() || e.MaxLength() != want {
		t.Errorf("long text: %d ids, MaxLength %d; want %d both", len(ids[1]), e.MaxLength(), want)
	}
	vecs, err := e.EmbedIDs(ids[:1])
	if err != nil {
		t.Fatal(err)
	}
	direct, err := m.Embedder.EmbedIDs(ids[:1])
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
	if _, err := experiment.NewTextEncoder(bm25); err == nil || !strings.Contains(err.Error(), "not a dense model") {
		t.Errorf("bm25: err %v, want \"not a dense model\"", err)
	}
}
