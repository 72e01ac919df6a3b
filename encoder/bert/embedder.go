package bert

import (
	"errors"
	"fmt"
	"slices"

	"github.com/dreval/dreval/encoder"
)

// Embedder embeds with the pure-Go forward pass (Model), then runs the
// model's head (pooling, dense layers, normalisation). It implements
// encoder.Embedder, encoder.VocabSizer and encoder.HeadEmbedder.
type Embedder struct {
	Model *Model
	Head  *encoder.Head
	// BatchSize and BatchTokens bound a forward pass: at most BatchSize
	// sequences and BatchTokens tokens (0: 32 and 8192).
	BatchSize, BatchTokens int
	// Progress, when not nil, is called after each batch.
	Progress encoder.Progress
}

// EmbedIDs embeds each id sequence: sequences are sorted by length and run
// in batches (see encoder.Batches), then through the Head. The result does not
// depend on how sequences are grouped into batches. An empty sequence or an
// id outside the vocabulary is an error.
func (b *Embedder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	for i, s := range ids {
		if len(s) == 0 {
			return nil, fmt.Errorf("encoder: sequence %d has no ids (an empty text still has [CLS] and [SEP])", i)
		}
	}
	bs, bt := b.BatchSize, b.BatchTokens
	if bs <= 0 {
		bs = 32
	}
	if bt <= 0 {
		bt = 8192
	}
	dim := b.Dim()
	flat := make([]float32, len(ids)*dim)
	out := make([][]float32, len(ids))
	for i := range out {
		out[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	done := 0
	for _, batch := range encoder.Batches(ids, bs, bt) {
		seqs := make([][]int32, len(batch))
		for j, i := range batch {
			seqs[j] = ids[i]
		}
		hidden, err := b.Model.Forward(seqs)
		if err != nil {
			var be *SeqError
			if errors.As(err, &be) {
				return nil, fmt.Errorf("encoder: sequence %d: %w", batch[be.Seq], be.Err)
			}
			return nil, fmt.Errorf("encoder: %w", err)
		}
		hd := b.Model.Config().HiddenSize
		for j, i := range batch {
			b.Head.Apply(out[i], hidden[j], hd)
		}
		done += len(batch)
		if b.Progress != nil {
			b.Progress(done, len(ids))
		}
	}
	return out, nil
}

// HeadOf returns the embedder's head.
func (b *Embedder) HeadOf() *encoder.Head { return b.Head }

// WithHead implements encoder.HeadEmbedder.
func (b *Embedder) WithHead(h *encoder.Head) encoder.Embedder {
	c := *b
	c.Head = h
	return &c
}

// Dim returns the embedding's length: the Head's for the model's hidden
// size.
func (b *Embedder) Dim() int { return b.Head.Dim(b.Model.Config().HiddenSize) }

// VocabSize returns the model's vocabulary size.
func (b *Embedder) VocabSize() int { return b.Model.Config().VocabSize }

var _ encoder.Differentiable = (*Embedder)(nil)

// ScoreGradient returns the score under sim of the embedding of ids (one
// sequence, through the model and its Head) against target, and its
// gradient with respect to the input embeddings of ids (the rows of
// Model.WordEmbeddings they select), computed in float32 by Record and
// Tape.Backward on the forward pass's kernels. It implements
// encoder.Differentiable.
func (b *Embedder) ScoreGradient(ids []int32, target []float32, sim encoder.Similarity) (*encoder.Gradient, error) {
	score, grad, err := ScoreGradientAt(b, ids, nil, target, sim)
	if err != nil {
		return nil, err
	}
	return &encoder.Gradient{IDs: slices.Clone(ids), Dim: b.Model.Config().HiddenSize, Score: float64(score), Grad: grad}, nil
}

// InputEmbeddings returns the model's word-embedding table and its width,
// the hidden size. It implements encoder.Differentiable.
func (b *Embedder) InputEmbeddings() ([]float32, int) {
	return b.Model.WordEmbeddings(), b.Model.Config().HiddenSize
}

// ScoreAt returns the score under sim against target of the embedding of
// ids with input embeddings inputs (as Record takes them; nil for the
// word embeddings of ids), computed in precision F through the model and
// the Head: in float64, the function whose finite differences check
// ScoreGradientAt.
func ScoreAt[F encoder.Float](b *Embedder, ids []int32, inputs, target []F, sim encoder.Similarity) (F, error) {
	score, _, err := scoreAt(b, ids, inputs, target, sim, false)
	return score, err
}

// ScoreGradientAt returns ScoreAt's score and its gradient with respect
// to inputs (len(ids) rows of HiddenSize values), computed in precision F:
// the backward passes of the score (encoder.SimilarityGradient), the Head
// (encoder.HeadForward) and the transformer (Tape.Backward).
func ScoreGradientAt[F encoder.Float](b *Embedder, ids []int32, inputs, target []F, sim encoder.Similarity) (F, []F, error) {
	return scoreAt(b, ids, inputs, target, sim, true)
}

func scoreAt[F encoder.Float](b *Embedder, ids []int32, inputs, target []F, sim encoder.Similarity, grad bool) (F, []F, error) {
	tp, err := Record(b.Model, ids, inputs)
	if err != nil {
		return 0, nil, err
	}
	defer tp.release()
	emb, headBack, err := encoder.HeadForward(b.Head, tp.Hidden, b.Model.Config().HiddenSize)
	if err != nil {
		return 0, nil, err
	}
	score, dEmb, err := encoder.SimilarityGradient(sim, target, emb)
	if err != nil || !grad {
		return score, nil, err
	}
	dIn, err := tp.Backward(headBack(dEmb))
	return score, dIn, err
}
