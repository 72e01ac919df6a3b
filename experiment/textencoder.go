package experiment

import (
	"fmt"

	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/encoder/tokenizer"
)

// TextEncoder is one side of a dense model seen as a text encoder: texts
// to token ids (the side's prompt and lower-casing applied, special tokens
// added, truncated to the side's maximum length) and ids to vectors. It
// has the method set of serve.Encoder (and its EngineNamer), which
// "dreval serve" answers /api/encode with.
type TextEncoder struct {
	tower Tower
	tok   EncoderTokenizer
}

// NewTextEncoder returns side ("query" or "document"; "" is "document")
// of m as a TextEncoder; m must be a dense model whose side tokenizes as
// an encoder (EncoderTokenizer).
func NewTextEncoder(m *Model, side string) (*TextEncoder, error) {
	if m.Kind != Dense {
		return nil, fmt.Errorf("model %q is not a dense model", m.Name)
	}
	var t Tower
	switch side {
	case engine.Query:
		t = m.Query
	case engine.Document, "":
		t = m.Document
	default:
		return nil, fmt.Errorf("side %q: want %s or %s", side, engine.Query, engine.Document)
	}
	tok, ok := t.Tokenizer.(EncoderTokenizer)
	if !ok || t.Embedder == nil {
		return nil, fmt.Errorf("model %q: its %s side (%T) is not an encoder's", m.Name, side, t.Tokenizer)
	}
	return &TextEncoder{tower: t, tok: tok}, nil
}

// Tokenize returns the ids of each text and how many texts were
// truncated.
func (e *TextEncoder) Tokenize(texts []string) ([][]int32, int) { return e.tok.Tokenize(texts) }

// EmbedIDs returns one vector per sequence of ids.
func (e *TextEncoder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	return e.tower.Embedder.EmbedIDs(ids)
}

// Dim is the vectors' dimension.
func (e *TextEncoder) Dim() int { return e.tower.Embedder.Dim() }

// VocabSize is the number of token ids the model accepts.
func (e *TextEncoder) VocabSize() int { return e.tok.VocabSize() }

// MaxLength is the most ids a sequence has.
func (e *TextEncoder) MaxLength() int { return e.tok.MaxLength() }

// Engine names the engine computing the vectors ("go", "ort",
// "static").
func (e *TextEncoder) Engine() string { return e.tower.Engine }

// Fingerprint identifies the side's model files, settings and engine
// (the tower's fingerprint, as stored with corpus vectors).
func (e *TextEncoder) Fingerprint() string { return e.tower.Fingerprint }

// Tokenizer returns the side's tokenizer.
func (e *TextEncoder) Tokenizer() *tokenizer.Tokenizer { return e.tok.Tokenizer() }
