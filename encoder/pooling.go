package encoder

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Pooling names how a sequence's token vectors become one vector: one of
// the modes below, or several joined by "+" ("cls+mean"), whose vectors
// are concatenated in sentence-transformers' order (cls, max, mean,
// mean_sqrt_len_tokens, weightedmean, lasttoken).
type Pooling string

// The pooling modes, as sentence-transformers' Pooling module defines
// them. Token vectors are those of every token the model read, [CLS] and
// [SEP] included (there is no padding in a sequence here).
const (
	// CLS takes the vector of the first token.
	CLS Pooling = "cls"
	// Max takes the largest value of every dimension over the tokens.
	Max Pooling = "max"
	// Mean averages the token vectors.
	Mean Pooling = "mean"
	// MeanSqrtLen sums the token vectors and divides by the square root
	// of their number.
	MeanSqrtLen Pooling = "mean_sqrt_len_tokens"
	// WeightedMean averages the token vectors weighted by position (the
	// first token weighs 1, the last n).
	WeightedMean Pooling = "weightedmean"
	// LastToken takes the vector of the last token.
	LastToken Pooling = "lasttoken"
)

// poolingOrder is the order sentence-transformers concatenates modes in.
var poolingOrder = []Pooling{CLS, Max, Mean, MeanSqrtLen, WeightedMean, LastToken}

// ParsePooling returns the Pooling called s: a mode, or modes joined by
// "+", each at most once.
func ParsePooling(s string) (Pooling, error) {
	var modes []Pooling
	for _, part := range strings.Split(s, "+") {
		m := Pooling(strings.TrimSpace(part))
		if !slices.Contains(poolingOrder, m) {
			names := make([]string, len(poolingOrder))
			for i, p := range poolingOrder {
				names[i] = string(p)
			}
			return "", fmt.Errorf("pooling %q is not known (known: %s, or several joined by +)", s, strings.Join(names, ", "))
		}
		if slices.Contains(modes, m) {
			return "", fmt.Errorf("pooling %q names %s twice", s, m)
		}
		modes = append(modes, m)
	}
	return JoinPooling(modes), nil
}

// JoinPooling returns the pooling of modes: each once, in
// sentence-transformers' order, joined by "+".
func JoinPooling(modes []Pooling) Pooling {
	var parts []string
	for _, m := range poolingOrder {
		if slices.Contains(modes, m) {
			parts = append(parts, string(m))
		}
	}
	return Pooling(strings.Join(parts, "+"))
}

// Modes returns p's modes in the order their vectors are concatenated.
func (p Pooling) Modes() []Pooling {
	var out []Pooling
	for _, part := range strings.Split(string(p), "+") {
		out = append(out, Pooling(part))
	}
	return out
}

// Width returns the pooled vector's length for token vectors of dim
// values: dim for each mode.
func (p Pooling) Width(dim int) int { return len(p.Modes()) * dim }

// Pool writes the pooled vector of hidden (the token vectors, n rows of
// dim values) to dst (Width(dim) values), leaving the first skip tokens
// out (a prompt that is not pooled; 0 pools every token). When skip
// leaves no token, the vector is computed over no token as
// sentence-transformers does: zeros for the means, the last position for
// lasttoken, -1e9 for max.
func (p Pooling) Pool(dst, hidden []float32, dim, skip int) { pool(p, dst, hidden, dim, skip) }

// pool is Pool in precision F; for float32 it is Pool's arithmetic.
func pool[F Float](p Pooling, dst, hidden []F, dim, skip int) {
	n := len(hidden) / dim
	skip = min(max(skip, 0), n)
	for i, m := range p.Modes() {
		out := dst[i*dim : (i+1)*dim]
		switch m {
		case CLS:
			copy(out, hidden[:dim]) // the first token, a prompt or not
		case Max:
			for c := range out {
				out[c] = -1e9
			}
			for t := skip; t < n; t++ {
				for c, v := range hidden[t*dim : (t+1)*dim] {
					out[c] = max(out[c], v)
				}
			}
		case Mean:
			// Summed in token order and scaled by 1/n in float32: the
			// arithmetic every stored embedding of dreval was made with.
			clear(out)
			for t := skip; t < n; t++ {
				for c, v := range hidden[t*dim : (t+1)*dim] {
					out[c] += v
				}
			}
			inv := 1 / max(F(n-skip), 1e-9)
			for c := range out {
				out[c] *= inv
			}
		case MeanSqrtLen, WeightedMean:
			clear(out)
			var weights F
			for t := skip; t < n; t++ {
				w := F(1)
				if m == WeightedMean {
					w = F(t + 1)
				}
				weights += w
				for c, v := range hidden[t*dim : (t+1)*dim] {
					out[c] += F(w * v) // rounded: no fused multiply-add
				}
			}
			div := max(weights, 1e-9)
			if m == MeanSqrtLen {
				div = F(math.Sqrt(float64(div)))
			}
			for c := range out {
				out[c] /= div
			}
		case LastToken:
			if skip < n {
				copy(out, hidden[(n-1)*dim:n*dim])
			} else {
				clear(out)
			}
		}
	}
}
