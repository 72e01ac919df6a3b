package encoder

import (
	"fmt"
	"math"
	"slices"
)

// HeadForward runs h on hidden (n token vectors of dim values) in
// precision F, as Apply does (for float32 with Apply's arithmetic, so the
// same bits), and returns the embedding with the head's backward pass:
// backward maps the gradient of any scalar with respect to the embedding
// (Dim(dim) values) to its gradient with respect to hidden (n rows of dim
// values), through the normalisation, the steps in reverse and the
// pooling. backward may be called more than once.
//
// Every pooling mode is differentiated: cls and lasttoken pass the
// gradient to their token, the means spread it over the pooled tokens with
// their weights, max to the first token holding each dimension's maximum
// (max is not differentiable where two tokens tie). Steps must be *Dense
// or *LayerNorm; another Step is an error.
func HeadForward[F Float](h *Head, hidden []F, dim int) (emb []F, backward func(dEmb []F) []F, err error) {
	if dim <= 0 || len(hidden) == 0 || len(hidden)%dim != 0 {
		return nil, nil, fmt.Errorf("encoder: the head needs token vectors of %d values, got %d values", dim, len(hidden))
	}
	if err := h.Check(dim, "encoder"); err != nil {
		return nil, nil, err
	}
	for i, s := range h.Steps {
		switch s.(type) {
		case *Dense, *LayerNorm:
		default:
			return nil, nil, fmt.Errorf("encoder: head step %d (%s) has no backward pass (only dense and layernorm steps have)", i+1, s)
		}
	}
	n := len(hidden) / dim
	skip := min(max(h.Skip, 0), n)

	// ins[i] is step i's input; pres[i] a dense step's values before its
	// activation.
	x := make([]F, h.Pooling.Width(dim))
	pool(h.Pooling, x, hidden, dim, skip)
	ins := make([][]F, len(h.Steps))
	pres := make([][]F, len(h.Steps))
	for i, s := range h.Steps {
		ins[i] = x
		out := make([]F, s.Out())
		switch s := s.(type) {
		case *Dense:
			pres[i] = make([]F, s.OutN)
			denseApply(s, out, x, pres[i])
		case *LayerNorm:
			layerNormApply(s, out, x)
		}
		x = out
	}
	emb = x
	var norm float64
	if h.Normalize {
		emb = slices.Clone(x)
		norm = normalize(emb)
	}

	backward = func(dEmb []F) []F {
		d := slices.Clone(dEmb)
		if h.Normalize {
			// y = x/|x|: dx = (dy - y (y·dy)) / |x|; zero for x = 0,
			// which Normalize leaves as it is.
			if norm == 0 {
				clear(d)
			} else {
				var yd float64
				for i, y := range emb {
					yd += float64(y) * float64(d[i])
				}
				for i, y := range emb {
					d[i] = F((float64(d[i]) - float64(y)*yd) / norm)
				}
			}
		}
		for i := len(h.Steps) - 1; i >= 0; i-- {
			switch s := h.Steps[i].(type) {
			case *Dense:
				d = denseBackward(s, d, pres[i])
			case *LayerNorm:
				d = layerNormBackward(s, d, ins[i])
			}
		}
		return poolBackward(h.Pooling, d, hidden, dim, skip)
	}
	return emb, backward, nil
}

// denseBackward returns the gradient with respect to a dense step's input
// of dy, the gradient with respect to its output; pre are the values
// before its activation.
func denseBackward[F Float](d *Dense, dy, pre []F) []F {
	dx := make([]float64, d.InN)
	for o := 0; o < d.OutN; o++ {
		g := float64(dy[o]) * activationGrad(d.Activation, float64(pre[o]))
		if g == 0 {
			continue
		}
		for i, w := range d.W[o*d.InN : (o+1)*d.InN] {
			dx[i] += g * float64(w)
		}
	}
	out := make([]F, d.InN)
	for i, v := range dx {
		out[i] = F(v)
	}
	return out
}

// activationGrad returns the derivative of a at v.
func activationGrad(a Activation, v float64) float64 {
	switch a {
	case Tanh:
		t := math.Tanh(v)
		return 1 - t*t
	case ReLU:
		if v > 0 {
			return 1
		}
		return 0
	case Sigmoid:
		s := 1 / (1 + math.Exp(-v))
		return s * (1 - s)
	case GELU:
		// x·Φ(x): Φ(x) + x·φ(x).
		return 0.5*(1+math.Erf(v/math.Sqrt2)) + v*math.Exp(-v*v/2)/math.Sqrt(2*math.Pi)
	}
	return 1
}

// layerNormBackward returns the gradient with respect to a layer norm's
// input x of dy, the gradient with respect to its output.
func layerNormBackward[F Float](l *LayerNorm, dy, x []F) []F {
	mean, inv := lnStats(x, l.Eps)
	n := float64(len(x))
	// dx = inv·(g - mean(g) - x̂·mean(g·x̂)), g = γ·dy, x̂ the normalised x.
	var sg, sgx float64
	for i, v := range x {
		g := float64(l.Gamma[i]) * float64(dy[i])
		sg += g
		sgx += g * (float64(v) - mean) * inv
	}
	sg /= n
	sgx /= n
	dx := make([]F, len(x))
	for i, v := range x {
		g := float64(l.Gamma[i]) * float64(dy[i])
		dx[i] = F(inv * (g - sg - (float64(v)-mean)*inv*sgx))
	}
	return dx
}

// poolBackward returns the gradient with respect to hidden (n rows of dim
// values) of d, the gradient with respect to the pooled vector of p.
func poolBackward[F Float](p Pooling, d, hidden []F, dim, skip int) []F {
	n := len(hidden) / dim
	dh := make([]F, len(hidden))
	add := func(t int, g []F, scale F) {
		row := dh[t*dim : (t+1)*dim]
		for c, v := range g {
			row[c] += v * scale
		}
	}
	for i, m := range p.Modes() {
		g := d[i*dim : (i+1)*dim]
		switch m {
		case CLS:
			add(0, g, 1)
		case LastToken:
			if skip < n {
				add(n-1, g, 1)
			}
		case Max:
			for c := range dim {
				best, arg := F(-1e9), -1
				for t := skip; t < n; t++ {
					if v := hidden[t*dim+c]; v > best {
						best, arg = v, t
					}
				}
				if arg >= 0 {
					dh[arg*dim+c] += g[c]
				}
			}
		case Mean:
			inv := 1 / max(F(n-skip), 1e-9)
			for t := skip; t < n; t++ {
				add(t, g, inv)
			}
		case MeanSqrtLen, WeightedMean:
			var weights F
			for t := skip; t < n; t++ {
				if m == WeightedMean {
					weights += F(t + 1)
				} else {
					weights++
				}
			}
			div := max(weights, 1e-9)
			if m == MeanSqrtLen {
				div = F(math.Sqrt(float64(div)))
			}
			for t := skip; t < n; t++ {
				w := F(1)
				if m == WeightedMean {
					w = F(t + 1)
				}
				add(t, g, w/div)
			}
		}
	}
	return dh
}
