package encoder

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Float is a precision gradients are computed in: float32, the arithmetic
// of the forward passes, or float64, in which they can be checked against
// finite differences.
type Float interface{ float32 | float64 }

// Gradient is the gradient of a retrieval score with respect to the input
// token embeddings of one sequence: the rows of the model's input table
// (a transformer's word embeddings, a static model's token table) that its
// ids select, one per position. The score is that of the sequence's
// embedding (after the model's pooling, head and normalisation) against a
// fixed vector; see Differentiable.
type Gradient struct {
	// IDs is the sequence, as the model reads it (special tokens and any
	// prompt included).
	IDs []int32
	// Dim is the width of one input embedding (the hidden size, or the
	// static table's dimensions).
	Dim int
	// Score is the score at IDs.
	Score float64
	// Grad holds len(IDs) rows of Dim values: row p is the gradient of
	// Score with respect to the input embedding at position p.
	Grad []float32
}

// Row returns the gradient with respect to the input embedding at
// position pos (not a copy).
func (g *Gradient) Row(pos int) []float32 {
	return g.Grad[pos*g.Dim : (pos+1)*g.Dim : (pos+1)*g.Dim]
}

// Differentiable is an Embedder whose scores can be differentiated with
// respect to its input token embeddings, as HotFlip needs: *bert.Embedder
// (the pure-Go transformer, backward pass in float32) and
// *static.Embedder (closed form).
type Differentiable interface {
	Embedder
	// ScoreGradient returns the score under sim of the embedding of ids
	// (one sequence, as EmbedIDs takes it) against target (Dim values),
	// and its gradient with respect to the input embeddings of ids. With
	// a query's vector as target it differentiates a passage's score; with
	// a document's vector, a query's.
	ScoreGradient(ids []int32, target []float32, sim Similarity) (*Gradient, error)
	// InputEmbeddings returns the table the input embeddings are rows of:
	// one row of dim values per token id, in id order (not a copy).
	InputEmbeddings() (table []float32, dim int)
}

// Flip is a candidate substitution at one position of a sequence.
type Flip struct {
	// ID is the substituted token id.
	ID int32
	// Gain is the first-order change of the score: (e_ID - e_cur) · g,
	// where e are rows of the input table, cur is the id at the position
	// and g the gradient there.
	Gain float32
}

// TopFlips returns the k token ids whose substitution at position pos of
// g's sequence most increases the score to first order (HotFlip's
// candidates), best first: the ids v with the largest (e_v - e_cur)·g_pos
// over table (the model's InputEmbeddings, rows of g.Dim values), the id at
// pos itself left out, ties broken by the smaller id. Ids for which skip
// (when not nil) returns true are left out too (special tokens, say). It
// returns fewer than k flips when the vocabulary has fewer candidates.
func TopFlips(g *Gradient, table []float32, pos, k int, skip func(id int32) bool) ([]Flip, error) {
	dim := g.Dim
	if dim <= 0 || len(table)%dim != 0 {
		return nil, fmt.Errorf("encoder: TopFlips: a table of %d values is not rows of the gradient's %d", len(table), dim)
	}
	if len(g.Grad) != len(g.IDs)*dim {
		return nil, fmt.Errorf("encoder: TopFlips: the gradient has %d values, %d positions of %d need %d", len(g.Grad), len(g.IDs), dim, len(g.IDs)*dim)
	}
	if pos < 0 || pos >= len(g.IDs) {
		return nil, fmt.Errorf("encoder: TopFlips: position %d is outside the sequence's %d", pos, len(g.IDs))
	}
	vocab := len(table) / dim
	cur := g.IDs[pos]
	if cur < 0 || int(cur) >= vocab {
		return nil, fmt.Errorf("encoder: TopFlips: the id %d at position %d is outside the table's %d rows", cur, pos, vocab)
	}
	if k <= 0 {
		return nil, nil
	}
	grad := g.Row(pos)
	base := dot32(table[int(cur)*dim:(int(cur)+1)*dim], grad)
	better := func(a, b Flip) int { // best first
		if c := cmp.Compare(b.Gain, a.Gain); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}
	// best holds the k best so far, best first; a candidate worse than
	// the last is dropped at once.
	best := make([]Flip, 0, k)
	for v := range vocab {
		id := int32(v)
		if id == cur || (skip != nil && skip(id)) {
			continue
		}
		f := Flip{ID: id, Gain: float32(dot32(table[v*dim:(v+1)*dim], grad) - base)}
		if len(best) == k && better(f, best[k-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(best, f, better)
		if len(best) < k {
			best = append(best, Flip{})
		}
		copy(best[i+1:], best[i:])
		best[i] = f
	}
	return best, nil
}

// dot32 returns a·b accumulated in float64.
func dot32(a, b []float32) float64 {
	b = b[:len(a)]
	var s float64
	for i, x := range a {
		s += float64(x) * float64(b[i])
	}
	return s
}

// SimilarityGradient returns the score under sim of emb against target
// and its gradient with respect to emb. Dot is target·emb; Cosine is
// target·emb / (|target| |emb|), 0 (with a zero gradient) when either is
// the zero vector. The mean cosine of emb to several unit vectors is the
// Cosine score against their mean t times |t|, so one target serves a
// cluster of queries. Sums are accumulated in float64.
func SimilarityGradient[F Float](sim Similarity, target, emb []F) (score F, dEmb []F, err error) {
	if len(target) != len(emb) {
		return 0, nil, fmt.Errorf("encoder: a target of %d values against an embedding of %d", len(target), len(emb))
	}
	dEmb = make([]F, len(emb))
	var te, tt, ee float64
	for i, t := range target {
		e := float64(emb[i])
		te += float64(t) * e
		tt += float64(t) * float64(t)
		ee += e * e
	}
	switch sim {
	case Dot:
		copy(dEmb, target)
		return F(te), dEmb, nil
	case Cosine:
		if tt == 0 || ee == 0 {
			return 0, dEmb, nil
		}
		nt, ne := math.Sqrt(tt), math.Sqrt(ee)
		s := te / (nt * ne)
		for i, t := range target {
			dEmb[i] = F(float64(t)/(nt*ne) - s*float64(emb[i])/ee)
		}
		return F(s), dEmb, nil
	}
	return 0, nil, fmt.Errorf("encoder: similarity %q is not supported (supported: cos, dot)", sim)
}
