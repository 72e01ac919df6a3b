package static

import (
	"fmt"
	"math"
	"slices"

	"github.com/dreval/dreval/encoder"
)

var _ encoder.Differentiable = (*Embedder)(nil)

// ScoreGradient returns the score under sim of the embedding of ids
// against target, and its gradient with respect to the rows of the token
// table that ids select, one per position, in closed form: with v the mean
// of the n rows whose ids are not skipped, y = v/|v| the embedding and g
// the gradient of the score with respect to y (encoder.SimilarityGradient),
// the gradient with respect to each of those rows is (g - y(y·g)) / (n|v|);
// it is 0 for a skipped id, whose row takes no part, and everywhere when
// every id is skipped (the zero vector scores 0 whatever its rows). The
// embedding is computed as EmbedIDs computes it, so the score is that of
// EmbedIDs' vector. It implements encoder.Differentiable.
//
// The gradient is exact for the rows in place; a substitution that turns
// a skipped id into another (or back) changes n, which a first-order
// estimate such as encoder.TopFlips does not see.
func (e *Embedder) ScoreGradient(ids []int32, target []float32, sim encoder.Similarity) (*encoder.Gradient, error) {
	score, grad, err := scoreGradient(e, ids, nil, target, sim, true)
	if err != nil {
		return nil, err
	}
	return &encoder.Gradient{IDs: slices.Clone(ids), Dim: e.dims, Score: float64(score), Grad: grad}, nil
}

// InputEmbeddings returns the token table and its width. It implements
// encoder.Differentiable.
func (e *Embedder) InputEmbeddings() ([]float32, int) { return e.table, e.dims }

// scoreGradient is ScoreGradient in precision F with the rows at the
// positions of ids given as inputs (nil: the table's rows of ids), and
// the gradient only when grad is true.
func scoreGradient[F encoder.Float](e *Embedder, ids []int32, inputs, target []F, sim encoder.Similarity, grad bool) (F, []F, error) {
	if len(ids) == 0 {
		return 0, nil, fmt.Errorf("static: the sequence has no ids (an empty text still has [CLS] and [SEP])")
	}
	d := e.dims
	for p, id := range ids {
		if id < 0 || int(id) >= e.vocab {
			return 0, nil, fmt.Errorf("static: position %d: token id %d is outside the vocabulary [0, %d)", p, id, e.vocab)
		}
	}
	if inputs != nil && len(inputs) != len(ids)*d {
		return 0, nil, fmt.Errorf("static: %d input embedding values for %d tokens of %d", len(inputs), len(ids), d)
	}
	row := func(p int) []F {
		if inputs != nil {
			return inputs[p*d : (p+1)*d]
		}
		r := make([]F, d)
		for j, v := range e.Row(ids[p]) {
			r[j] = F(v)
		}
		return r
	}
	// The embedding, with EmbedIDs' arithmetic.
	y := make([]F, d)
	n := 0
	for p, id := range ids {
		if e.skip[id] {
			continue
		}
		for j, v := range row(p) {
			y[j] += v
		}
		n++
	}
	var norm float64
	if n > 0 {
		inv := 1 / F(n)
		for j := range y {
			y[j] *= inv
		}
		var ss float64
		for _, v := range y {
			ss += float64(float64(v) * float64(v)) // rounded: no fused multiply-add
		}
		if ss > 0 {
			norm = math.Sqrt(ss)
			inv := F(1 / norm)
			for j := range y {
				y[j] *= inv
			}
		}
	}
	score, g, err := encoder.SimilarityGradient(sim, target, y)
	if err != nil || !grad {
		return score, nil, err
	}
	out := make([]F, len(ids)*d)
	if norm == 0 {
		return score, out, nil
	}
	var yg float64
	for j, v := range y {
		yg += float64(v) * float64(g[j])
	}
	dv := make([]F, d)
	for j, v := range y {
		dv[j] = F((float64(g[j]) - float64(v)*yg) / (float64(n) * norm))
	}
	for p, id := range ids {
		if !e.skip[id] {
			copy(out[p*d:(p+1)*d], dv)
		}
	}
	return score, out, nil
}
