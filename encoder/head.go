package encoder

import (
	"fmt"
	"math"
	"strings"
)

// Head turns the last hidden states of one sequence into its embedding,
// as the modules after a model's transformer do: pooling, then each step
// (a dense layer, a layer norm) in order, then L2 normalisation when the
// model normalises. Both engines (the pure-Go forward pass and ONNX
// Runtime) run the same Head on the hidden states, so a model embeds the
// same way whichever computes its transformer.
type Head struct {
	// Pooling makes one vector of the token vectors.
	Pooling Pooling
	// ExcludePrompt leaves a prompt's tokens out of the pooling
	// (sentence-transformers' include_prompt false); Skip is then the
	// number of leading tokens the prompt takes (see Encoder.WithPrompt),
	// 0 pooling every token.
	ExcludePrompt bool
	Skip          int
	// Steps run on the pooled vector, in order.
	Steps []Step
	// Normalize scales the result to unit L2 norm.
	Normalize bool
}

// Step is one layer after the pooling: it maps In() values to Out().
type Step interface {
	In() int
	Out() int
	// Apply writes the step's output for x (In values) to dst (Out
	// values).
	Apply(dst, x []float32)
	// String describes the step ("dense 768->768 tanh").
	String() string
}

// Check checks that the steps chain from hidden size dim: each step takes
// what the one before gives. name names the model in errors.
func (h *Head) Check(dim int, name string) error {
	if h.Pooling == "" {
		return fmt.Errorf("%s: the head has no pooling", name)
	}
	if _, err := ParsePooling(string(h.Pooling)); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	w := h.Pooling.Width(dim)
	for i, s := range h.Steps {
		if s.In() != w {
			return fmt.Errorf("%s: head step %d (%s) takes %d values, but the step before gives %d", name, i+1, s, s.In(), w)
		}
		w = s.Out()
	}
	return nil
}

// Dim returns the embedding's length for hidden states of dim values.
func (h *Head) Dim(dim int) int {
	w := h.Pooling.Width(dim)
	if n := len(h.Steps); n > 0 {
		w = h.Steps[n-1].Out()
	}
	return w
}

// Apply writes the embedding of hidden (the token vectors, rows of dim
// values) to dst (Dim(dim) values).
func (h *Head) Apply(dst, hidden []float32, dim int) {
	if len(h.Steps) == 0 {
		h.Pooling.Pool(dst, hidden, dim, h.Skip)
	} else {
		x := make([]float32, h.Pooling.Width(dim))
		h.Pooling.Pool(x, hidden, dim, h.Skip)
		for i, s := range h.Steps {
			out := dst
			if i < len(h.Steps)-1 {
				out = make([]float32, s.Out())
			}
			s.Apply(out, x)
			x = out
		}
	}
	if h.Normalize {
		Normalize(dst)
	}
}

// String describes the head: "mean, normalized", "cls, dense 768->768,
// layernorm 768".
func (h *Head) String() string {
	parts := []string{string(h.Pooling)}
	if h.Skip > 0 {
		parts[0] += fmt.Sprintf(" (first %d tokens skipped)", h.Skip)
	}
	for _, s := range h.Steps {
		parts = append(parts, s.String())
	}
	if h.Normalize {
		parts = append(parts, "normalized")
	}
	return strings.Join(parts, ", ")
}

// Dense is a linear layer with an activation: y = act(W x + b), W of Out
// rows and In columns (PyTorch's nn.Linear layout).
type Dense struct {
	W          []float32 // Out x In, row-major
	B          []float32 // Out values, or nil for no bias
	InN, OutN  int
	Activation Activation
}

// Activation names a Dense layer's activation function.
type Activation string

// The activations of sentence-transformers' Dense module.
const (
	Identity Activation = "identity"
	Tanh     Activation = "tanh"
	ReLU     Activation = "relu"
	Sigmoid  Activation = "sigmoid"
	GELU     Activation = "gelu"
)

// activationNames maps sentence-transformers' activation_function values
// (PyTorch class paths) to activations.
var activationNames = map[string]Activation{
	"torch.nn.modules.linear.Identity":    Identity,
	"torch.nn.modules.activation.Tanh":    Tanh,
	"torch.nn.modules.activation.ReLU":    ReLU,
	"torch.nn.modules.activation.Sigmoid": Sigmoid,
	"torch.nn.modules.activation.GELU":    GELU,
	"identity":                            Identity, "tanh": Tanh, "relu": ReLU, "sigmoid": Sigmoid, "gelu": GELU,
}

// ParseActivation returns the activation a config names (a PyTorch class
// path such as torch.nn.modules.activation.Tanh, or a short name).
func ParseActivation(s string) (Activation, error) {
	if a, ok := activationNames[s]; ok {
		return a, nil
	}
	return "", fmt.Errorf("activation function %q is not supported (supported: torch.nn.modules.linear.Identity, torch.nn.modules.activation.Tanh, ReLU, Sigmoid, GELU)", s)
}

func (d *Dense) In() int  { return d.InN }
func (d *Dense) Out() int { return d.OutN }

// Apply implements Step.
func (d *Dense) Apply(dst, x []float32) { denseApply(d, dst, x, nil) }

// denseApply is Apply in precision F (for float32 its arithmetic),
// writing the values before the activation to pre when it is not nil.
func denseApply[F Float](d *Dense, dst, x, pre []F) {
	for o := 0; o < d.OutN; o++ {
		row := d.W[o*d.InN : (o+1)*d.InN]
		var s F
		for i, w := range row {
			s += F(F(w) * x[i]) // rounded: no fused multiply-add
		}
		if d.B != nil {
			s += F(d.B[o])
		}
		if pre != nil {
			pre[o] = s
		}
		dst[o] = activate(d.Activation, s)
	}
}

// activate returns a(v), computed in float64.
func activate[F Float](a Activation, v F) F {
	switch a {
	case Tanh:
		return F(math.Tanh(float64(v)))
	case ReLU:
		return max(v, 0)
	case Sigmoid:
		return F(1 / (1 + math.Exp(-float64(v))))
	case GELU:
		return F(0.5 * float64(v) * (1 + math.Erf(float64(v)/math.Sqrt2)))
	}
	return v
}

func (d *Dense) String() string {
	s := fmt.Sprintf("dense %d->%d", d.InN, d.OutN)
	if d.Activation != Identity && d.Activation != "" {
		s += " " + string(d.Activation)
	}
	return s
}

// LayerNorm normalises a vector to zero mean and unit variance, then
// scales and shifts it: PyTorch's nn.LayerNorm over the last dimension.
type LayerNorm struct {
	Gamma, Beta []float32
	Eps         float64
}

func (l *LayerNorm) In() int  { return len(l.Gamma) }
func (l *LayerNorm) Out() int { return len(l.Gamma) }

// Apply implements Step.
func (l *LayerNorm) Apply(dst, x []float32) { layerNormApply(l, dst, x) }

// layerNormApply is Apply in precision F; for float32 its arithmetic.
func layerNormApply[F Float](l *LayerNorm, dst, x []F) {
	mean, inv := lnStats(x, l.Eps)
	for i, v := range x {
		dst[i] = F(F((float64(v)-mean)*inv)*F(l.Gamma[i])) + F(l.Beta[i]) // rounded: no fused multiply-add
	}
}

// lnStats returns the mean of x and 1/sqrt(variance + eps), computed in
// float64.
func lnStats[F Float](x []F, eps float64) (mean, inv float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += float64(v)
	}
	mean /= n
	var variance float64
	for _, v := range x {
		d := float64(v) - mean
		variance += d * d
	}
	variance /= n
	return mean, 1 / math.Sqrt(variance+eps)
}

func (l *LayerNorm) String() string { return fmt.Sprintf("layernorm %d", len(l.Gamma)) }
