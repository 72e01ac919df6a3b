package experiment

import (
	"fmt"

	"github.com/dreval/dreval/encoder/tokenizer"
)

// TextEncoder is a dense model seen as a text encoder: texts to token ids
// (special tokens added, truncated to the model's maximum length) and ids
// to vectors. It has the method set of serve.Encoder (and its
// EngineNamer), which "dreval serve" answers /api/encode with.
type TextEncoder struct {
	m   *Model
	tok HFTokenizer
}

// NewTextEncoder returns m as a TextEncoder; m must be a dense model with
// a Hugging Face tokenizer.
func NewTextEncoder(m *Model) (*TextEncoder, error) {
	if m.Kind != Dense || m.Embedder == nil {
		return nil, fmt.Errorf("model %q is not a dense model", m.Name)
	}
	tok, ok := m.Tokenizer.(HFTokenizer)
	if !ok {
		return nil, fmt.Errorf("model %q: its tokenizer (%T) is not a Hugging Face tokenizer", m.Name, m.Tokenizer)
	}
	return &TextEncoder{m: m, tok: tok}, nil
}

// Tokenize returns the ids of each text and how many texts were
// truncated.
func (e *TextEncoder) Tokenize(texts []string) ([][]int32, int) {
	ids := make([][]int32, len(texts))
	truncated := 0
	for i, t := range texts {
		enc := e.tok.EncodeWith(t, tokenizer.Options{AddSpecial: true, MaxLength: e.tok.MaxLength})
		ids[i] = enc.IDs
		if enc.Truncated > 0 {
			truncated++
		}
	}
	return ids, truncated
}

// EmbedIDs returns one vector per sequence of ids.
func (e *TextEncoder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	return e.m.Embedder.EmbedIDs(ids)
}

// Dim is the vectors' dimension.
func (e *TextEncoder) Dim() int { return e.m.Embedder.Dim() }

// VocabSize is the number of token ids the model accepts.
func (e *TextEncoder) VocabSize() int { return e.tok.VocabSize() }

// MaxLength is the most ids a sequence has.
func (e *TextEncoder) MaxLength() int { return e.tok.MaxLength }

// Engine names the engine computing the vectors ("go", "ort",
// "static").
func (e *TextEncoder) Engine() string { return e.m.Engine }
