package static

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/tensor"
)

// DefaultSIFCoefficient is Model2Vec's default SIF coefficient a.
const DefaultSIFCoefficient = 1e-4

// Recipe describes what Distill computes, for a model's config.json.
const Recipe = "model2vec: mean of the last hidden state of [CLS] token [SEP] per vocabulary id; PCA (centred, sign: largest-magnitude loading positive); SIF weight a/(a+p), p Zipf over id rank"

// Forwarder runs a transformer: Forward returns each sequence's last hidden
// state, len(seqs[i]) rows of the hidden size, as bert.Model.Forward and
// ort.Embedder.Forward do.
type Forwarder interface {
	Forward(seqs [][]int32) ([][]float32, error)
}

// DistillOptions configure Distill.
type DistillOptions struct {
	// Vocab is the vocabulary size: ids 0 to Vocab-1 are distilled.
	Vocab int
	// Limit, when positive and below Vocab, distils only the first Limit
	// ids (a small table for tests).
	Limit int
	// Dims is the number of principal components kept (at most the hidden
	// size, and fewer than the number of ids).
	Dims int
	// Prefix and Suffix are put around each id, for BERT [CLS] and [SEP].
	Prefix, Suffix []int32
	// SIFCoefficient is the SIF a (0: DefaultSIFCoefficient; negative: no
	// weighting).
	SIFCoefficient float64
	// BatchSize is the number of ids per forward pass (0: 256).
	BatchSize int
	// Progress, when not nil, is called after each forward pass with the
	// number of ids done and their total.
	Progress encoder.Progress
}

// Distill computes a static token table from the transformer f after the
// Model2Vec recipe:
//
//  1. Every id t in [0, n) (n = Vocab, or Limit) is run as the sequence
//     Prefix t Suffix ("[CLS] t [SEP]" for BERT) and its vector is the mean
//     of all rows of the last hidden state, special tokens included
//     (Model2Vec's default mean pooling; no normalisation).
//  2. PCA: the n vectors are centred on their mean and projected on the
//     Dims eigenvectors of their covariance with the largest eigenvalues,
//     in decreasing order; each eigenvector's sign is chosen so that its
//     largest-magnitude entry (the first, on ties) is positive.
//  3. SIF weighting with a Zipf estimate of token frequency from the id
//     order, as Model2Vec does: row r is scaled by a/(a+p(r)) with
//     p(r) = (1/(r+2)) / sum over j in [0, n) of 1/(j+2).
//
// The result is a [n, Dims] table. The computation is sequential apart
// from f, so the same f gives the same bits every time.
func Distill(f Forwarder, o DistillOptions) (*tensor.Tensor, error) {
	n := o.Vocab
	if o.Limit > 0 && o.Limit < n {
		n = o.Limit
	}
	switch {
	case f == nil:
		return nil, errors.New("static: Distill needs a model")
	case o.Vocab < 1:
		return nil, fmt.Errorf("static: vocabulary size %d is not positive", o.Vocab)
	case o.Limit < 0:
		return nil, fmt.Errorf("static: limit %d is negative", o.Limit)
	case o.Dims < 1:
		return nil, fmt.Errorf("static: dims %d is not positive", o.Dims)
	case n <= o.Dims:
		return nil, fmt.Errorf("static: PCA to %d dims needs more than %d token vectors, have %d", o.Dims, o.Dims, n)
	}
	a := o.SIFCoefficient
	if a == 0 {
		a = DefaultSIFCoefficient
	}
	bs := o.BatchSize
	if bs <= 0 {
		bs = 256
	}

	// 1. Token vectors.
	seqLen := len(o.Prefix) + 1 + len(o.Suffix)
	var x *mat.Dense
	hidden := 0
	for start := 0; start < n; start += bs {
		end := min(start+bs, n)
		seqs := make([][]int32, end-start)
		for i := range seqs {
			s := make([]int32, 0, seqLen)
			s = append(s, o.Prefix...)
			s = append(s, int32(start+i))
			seqs[i] = append(s, o.Suffix...)
		}
		out, err := f.Forward(seqs)
		if err != nil {
			return nil, fmt.Errorf("static: forward pass on ids %d to %d: %w", start, end-1, err)
		}
		if len(out) != len(seqs) {
			return nil, fmt.Errorf("static: forward pass on ids %d to %d returned %d hidden states for %d sequences", start, end-1, len(out), len(seqs))
		}
		if x == nil {
			hidden = len(out[0]) / seqLen
			if hidden < 1 || len(out[0]) != hidden*seqLen {
				return nil, fmt.Errorf("static: the hidden state of a %d-token sequence has %d values, not a multiple of %d", seqLen, len(out[0]), seqLen)
			}
			if o.Dims > hidden {
				return nil, fmt.Errorf("static: dims %d exceeds the model's hidden size %d", o.Dims, hidden)
			}
			x = mat.NewDense(n, hidden, nil)
		}
		for i, h := range out {
			if len(h) != hidden*seqLen {
				return nil, fmt.Errorf("static: id %d: hidden state has %d values, expected %d", start+i, len(h), hidden*seqLen)
			}
			row := x.RawRowView(start + i)
			for t := 0; t < seqLen; t++ {
				for j, v := range h[t*hidden : (t+1)*hidden] {
					row[j] += float64(v)
				}
			}
			for j := range row {
				row[j] /= float64(seqLen)
				if math.IsNaN(row[j]) || math.IsInf(row[j], 0) {
					return nil, fmt.Errorf("static: id %d: hidden state holds a non-finite value", start+i)
				}
			}
		}
		if o.Progress != nil {
			o.Progress(end, n)
		}
	}

	// 2. PCA.
	mean := make([]float64, hidden)
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for j := range row {
			row[j] -= mean[j]
		}
	}
	cov := mat.NewSymDense(hidden, nil)
	cov.SymRankK(cov, 1/float64(n-1), x.T())
	var es mat.EigenSym
	if !es.Factorize(cov, true) {
		return nil, errors.New("static: PCA: the eigendecomposition of the covariance did not converge")
	}
	var vecs mat.Dense
	es.VectorsTo(&vecs) // columns, eigenvalues ascending
	comp := mat.NewDense(hidden, o.Dims, nil)
	for k := 0; k < o.Dims; k++ {
		col := hidden - 1 - k
		best, sign := 0.0, 1.0
		for j := 0; j < hidden; j++ {
			if v := vecs.At(j, col); math.Abs(v) > best {
				best, sign = math.Abs(v), math.Copysign(1, v)
			}
		}
		for j := 0; j < hidden; j++ {
			comp.Set(j, k, sign*vecs.At(j, col))
		}
	}
	var y mat.Dense
	y.Mul(x, comp)

	// 3. SIF weights from a Zipf estimate of frequency by id rank.
	z := 0.0
	for r := 0; r < n; r++ {
		z += 1 / float64(r+2)
	}
	t := tensor.New(n, o.Dims)
	for r := 0; r < n; r++ {
		w := 1.0
		if a > 0 {
			p := 1 / float64(r+2) / z
			w = a / (a + p)
		}
		dst := t.Data[r*o.Dims : (r+1)*o.Dims]
		for k, v := range y.RawRowView(r) {
			dst[k] = float32(w * v)
		}
	}
	return t, nil
}
