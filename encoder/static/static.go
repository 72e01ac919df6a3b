// Package static embeds token ids with a static token table: a sequence's
// embedding is the mean of its tokens' rows, L2-normalised. Such a table is
// distilled from a transformer (see Distill) after the Model2Vec recipe;
// encoding is a table lookup, fast enough for large corpora under js/wasm.
//
// A static model directory holds config.json (model_type "static"),
// tokenizer.json and model.safetensors with one tensor, "embeddings", of
// shape [vocabulary size, dims]. Load opens it as an *encoder.Encoder, so
// token ids can be perturbed between tokenization and embedding as with a
// BERT model.
//
// The special tokens the tokenizer's template adds ([CLS] and [SEP] for
// BERT) and the padding token carry no meaning in a static model: EmbedIDs
// leaves them out of the mean. A sequence with no other token (an empty
// text) gets the zero vector, which scores 0 against every document.
package static

import (
	"errors"
	"fmt"
	"slices"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/tensor"
)

// TensorName is the name of the token table in model.safetensors.
const TensorName = "embeddings"

// Embedder embeds id sequences as the normalised mean of token table rows.
// It implements encoder.Embedder and encoder.VocabSizer. Its methods may be
// called from several goroutines.
type Embedder struct {
	table []float32 // vocab rows of dims values
	vocab int
	dims  int
	skip  []bool // by id: left out of the mean
}

// New returns an Embedder over table, a [vocabulary size, dims] tensor,
// leaving the ids in skip out of every mean. The table is used, not copied.
func New(table *tensor.Tensor, skip []int32) (*Embedder, error) {
	if table == nil || len(table.Shape) != 2 || table.Shape[0] < 1 || table.Shape[1] < 1 {
		var shape []int
		if table != nil {
			shape = table.Shape
		}
		return nil, fmt.Errorf("static: the token table must have shape [vocabulary size, dims], got %v", shape)
	}
	vocab, dims := table.Shape[0], table.Shape[1]
	if len(table.Data) != vocab*dims {
		return nil, fmt.Errorf("static: the token table holds %d values, its shape %v needs %d", len(table.Data), table.Shape, vocab*dims)
	}
	e := &Embedder{table: table.Data, vocab: vocab, dims: dims, skip: make([]bool, vocab)}
	for _, id := range skip {
		if id < 0 || int(id) >= vocab {
			return nil, fmt.Errorf("static: skipped token id %d is outside the vocabulary [0, %d)", id, vocab)
		}
		e.skip[id] = true
	}
	return e, nil
}

// Dim returns the embedding dimension.
func (e *Embedder) Dim() int { return e.dims }

// VocabSize returns the number of rows of the token table.
func (e *Embedder) VocabSize() int { return e.vocab }

// Row returns the token table row of id (not a copy).
func (e *Embedder) Row(id int32) []float32 {
	return e.table[int(id)*e.dims : (int(id)+1)*e.dims : (int(id)+1)*e.dims]
}

// Skipped returns the ids left out of the mean, in increasing order.
func (e *Embedder) Skipped() []int32 {
	var ids []int32
	for id, s := range e.skip {
		if s {
			ids = append(ids, int32(id))
		}
	}
	return ids
}

// EmbedIDs returns, for each sequence, the mean of the rows of its ids
// (skipped ids left out), L2-normalised; the zero vector when every id is
// skipped. Rows are summed in sequence order in float32, so the result is
// the same on every platform. An empty sequence or an id outside the
// vocabulary is an error naming the sequence and position.
func (e *Embedder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	if e.table == nil {
		return nil, errors.New("static: the embedder was not created by New or Load")
	}
	for s, seq := range ids {
		if len(seq) == 0 {
			return nil, fmt.Errorf("static: sequence %d has no ids (an empty text still has [CLS] and [SEP])", s)
		}
		for p, id := range seq {
			if id < 0 || int(id) >= e.vocab {
				return nil, fmt.Errorf("static: sequence %d position %d: token id %d is outside the vocabulary [0, %d)", s, p, id, e.vocab)
			}
		}
	}
	flat := make([]float32, len(ids)*e.dims)
	out := make([][]float32, len(ids))
	for i, seq := range ids {
		dst := flat[i*e.dims : (i+1)*e.dims : (i+1)*e.dims]
		n := 0
		for _, id := range seq {
			if e.skip[id] {
				continue
			}
			for j, v := range e.Row(id) {
				dst[j] += v
			}
			n++
		}
		if n > 0 {
			inv := 1 / float32(n)
			for j := range dst {
				dst[j] *= inv
			}
			encoder.Normalize(dst)
		}
		out[i] = dst
	}
	return out, nil
}

// sortedUnique returns ids sorted with duplicates removed.
func sortedUnique(ids []int32) []int32 {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	return slices.Compact(ids)
}
