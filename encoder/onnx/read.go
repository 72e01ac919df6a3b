package onnx

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/tensor"
)

// Info describes a BERT graph read by ReadWeights.
type Info struct {
	Opset    int64  // version of the default ONNX operator set
	Producer string // producer_name and producer_version
	// Sizes found from the weights.
	Vocab, Hidden, Layers, Intermediate, MaxPositions, TypeVocab int
	// Heads is the attention head count read from the graph's reshape
	// constants, or 0 when the graph computes it at run time.
	Heads int
	// Epsilon is the layer-norm epsilon used throughout the graph, or 0
	// when it could not be read.
	Epsilon float64
	// TokenTypeInput reports whether the graph takes token_type_ids.
	TokenTypeInput bool
	// Pooler reports whether pooler weights were found.
	Pooler bool
}

// CheckConfig reports an error when the graph's sizes differ from cfg (as
// read from the model's config.json).
func (in *Info) CheckConfig(cfg bert.Config) error {
	for _, c := range []struct {
		field     string
		graph, js int
	}{
		{"vocab_size", in.Vocab, cfg.VocabSize},
		{"hidden_size", in.Hidden, cfg.HiddenSize},
		{"num_hidden_layers", in.Layers, cfg.NumHiddenLayers},
		{"intermediate_size", in.Intermediate, cfg.IntermediateSize},
		{"max_position_embeddings", in.MaxPositions, cfg.MaxPositionEmbeddings},
		{"type_vocab_size", in.TypeVocab, cfg.TypeVocabSize},
	} {
		if c.graph != c.js {
			return fmt.Errorf("config field %q is %d but the ONNX weights have %d", c.field, c.js, c.graph)
		}
	}
	if in.Heads != 0 && in.Heads != cfg.NumAttentionHeads {
		return fmt.Errorf("config field \"num_attention_heads\" is %d but the ONNX graph splits attention into %d heads", cfg.NumAttentionHeads, in.Heads)
	}
	// The graph holds epsilon as a float32.
	if in.Epsilon != 0 && float32(in.Epsilon) != float32(cfg.LayerNormEps) {
		return fmt.Errorf("config field \"layer_norm_eps\" is %g but the ONNX graph uses %g", cfg.LayerNormEps, in.Epsilon)
	}
	return nil
}

// supportedOps is the operator set of the BERT encoder graphs dreval reads:
// its own exports and the usual Hugging Face (torch.onnx, optimum) exports
// without ONNX Runtime graph fusions.
var supportedOps = map[string]bool{
	"Add": true, "Cast": true, "Concat": true, "Constant": true, "ConstantOfShape": true,
	"Div": true, "Equal": true, "Erf": true, "Expand": true, "Gather": true, "Gelu": true,
	"Gemm": true, "Identity": true, "LayerNormalization": true, "MatMul": true, "Mul": true,
	"Pow": true, "Range": true, "ReduceMean": true, "Reshape": true, "Shape": true,
	"Slice": true, "Softmax": true, "Sqrt": true, "Squeeze": true, "Sub": true, "Tanh": true,
	"Transpose": true, "Unsqueeze": true, "Where": true,
}

// Opset range accepted by ReadWeights.
const (
	minReadOpset = 11
	maxReadOpset = 23
)

// ReadFile reads the BERT weights of the ONNX model at path; see
// ReadWeights.
func ReadFile(path string) (tensor.Set, *Info, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	set, info, err := ReadWeights(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return set, info, nil
}

// ReadWeights decodes an .onnx file, checks that its graph is a BERT
// encoder dreval supports, and returns the weights under their Hugging Face
// names, as float32 in Hugging Face layout (Linear weights [out, in]), so
// that package bert builds the same model as from safetensors.
//
// Supported graphs take input_ids and attention_mask (and optionally
// token_type_ids) as int64 [batch, sequence], return last_hidden_state as
// float [batch, sequence, hidden] (and optionally pooler_output), use only
// the operators in a plain BERT export, with erf-based GELU, and hold their
// weights as FLOAT or FLOAT16 initializers. Anything else is refused with
// an error naming the node, input or tensor at fault.
func ReadWeights(data []byte) (tensor.Set, *Info, error) {
	m, err := Decode(data)
	if err != nil {
		return nil, nil, err
	}
	r := &reader{m: m, g: m.Graph, info: &Info{}}
	if err := r.checkStructure(); err != nil {
		return nil, nil, err
	}
	if err := r.mapWeights(); err != nil {
		return nil, nil, err
	}
	if err := r.checkWeights(); err != nil {
		return nil, nil, err
	}
	if err := r.checkActivations(); err != nil {
		return nil, nil, err
	}
	r.readHyperparameters()
	return r.set, r.info, nil
}

type reader struct {
	m    *Model
	g    *Graph
	info *Info

	inits     map[string]*Tensor
	consumers map[string][]*Node
	set       tensor.Set
	source    map[string]string // HF name -> initializer it came from
}

// checkStructure checks the opset, inputs, outputs and operators.
func (r *reader) checkStructure() error {
	g := r.g
	opset, ok := r.m.Opsets[""]
	if !ok {
		return fmt.Errorf("the model imports no version of the default ONNX operator set")
	}
	if opset < minReadOpset || opset > maxReadOpset {
		return fmt.Errorf("ONNX opset %d is not supported (supported: %d to %d)", opset, minReadOpset, maxReadOpset)
	}
	r.info.Opset = opset
	r.info.Producer = strings.TrimSpace(r.m.ProducerName + " " + r.m.ProducerVersion)
	if g.sparse {
		return fmt.Errorf("the graph has sparse initializers, which are not supported")
	}

	r.inits = map[string]*Tensor{}
	for _, t := range g.Initializers {
		if t.Name == "" {
			return fmt.Errorf("the graph has an initializer without a name")
		}
		if _, dup := r.inits[t.Name]; dup {
			return fmt.Errorf("initializer %q is defined twice", t.Name)
		}
		r.inits[t.Name] = t
	}

	defined := map[string]bool{"": true}
	for name := range r.inits {
		defined[name] = true
	}
	inputs := map[string]bool{}
	for _, in := range g.Inputs {
		if r.inits[in.Name] != nil {
			continue // IR < 4 lists initializers among the inputs
		}
		switch in.Name {
		case InputIDs, AttentionMask, TokenTypeIDs:
		default:
			return fmt.Errorf("graph input %q is not supported (a BERT encoder takes %s, %s and optionally %s)", in.Name, InputIDs, AttentionMask, TokenTypeIDs)
		}
		if in.ElemType != Int64 {
			return fmt.Errorf("graph input %q has element type %s, expected INT64", in.Name, DataTypeName(in.ElemType))
		}
		if in.Dims != nil && len(in.Dims) != 2 {
			return fmt.Errorf("graph input %q has rank %d, expected 2 ([batch, sequence])", in.Name, len(in.Dims))
		}
		inputs[in.Name] = true
		defined[in.Name] = true
	}
	for _, need := range []string{InputIDs, AttentionMask} {
		if !inputs[need] {
			return fmt.Errorf("the graph has no %q input", need)
		}
	}
	r.info.TokenTypeInput = inputs[TokenTypeIDs]

	r.consumers = map[string][]*Node{}
	for _, n := range g.Nodes {
		if n.Domain != "" && n.Domain != "ai.onnx" {
			return fmt.Errorf("%s: operator domain %q is not supported (export without ONNX Runtime graph optimizations, which fuse BERT into com.microsoft operators)", n, n.Domain)
		}
		if !supportedOps[n.OpType] {
			return fmt.Errorf("%s: operator %q is not supported in a BERT encoder graph (supported: %s)", n, n.OpType, strings.Join(sortedNames(supportedOps), ", "))
		}
		if err := checkAttributes(n); err != nil {
			return err
		}
		for _, in := range n.Inputs {
			if !defined[in] {
				return fmt.Errorf("%s reads %q, which no graph input, initializer or earlier node defines", n, in)
			}
			r.consumers[in] = append(r.consumers[in], n)
		}
		for _, out := range n.Outputs {
			if out == "" {
				continue
			}
			if defined[out] {
				return fmt.Errorf("%s writes %q, which is already defined", n, out)
			}
			defined[out] = true
		}
	}
	for _, in := range []string{AttentionMask, TokenTypeIDs} {
		if inputs[in] && len(r.consumers[in]) == 0 {
			return fmt.Errorf("graph input %q is not used by any node", in)
		}
	}

	seen := map[string]bool{}
	for i, out := range g.Outputs {
		switch out.Name {
		case LastHiddenState:
			if i != 0 {
				return fmt.Errorf("graph output %q must be the first output", LastHiddenState)
			}
			if out.Dims != nil && len(out.Dims) != 3 {
				return fmt.Errorf("graph output %q has rank %d, expected 3 ([batch, sequence, hidden])", out.Name, len(out.Dims))
			}
		case PoolerOutput:
			if out.Dims != nil && len(out.Dims) != 2 {
				return fmt.Errorf("graph output %q has rank %d, expected 2 ([batch, hidden])", out.Name, len(out.Dims))
			}
		default:
			return fmt.Errorf("graph output %q is not supported (expected %s, optionally %s)", out.Name, LastHiddenState, PoolerOutput)
		}
		if out.ElemType != Float {
			return fmt.Errorf("graph output %q has element type %s, expected FLOAT", out.Name, DataTypeName(out.ElemType))
		}
		if !defined[out.Name] {
			return fmt.Errorf("graph output %q is not computed by any node", out.Name)
		}
		seen[out.Name] = true
	}
	if !seen[LastHiddenState] {
		return fmt.Errorf("the graph has no %q output", LastHiddenState)
	}
	return nil
}

// checkAttributes refuses attribute values that change what a supported
// operator computes in ways the pure-Go encoder does not follow.
func checkAttributes(n *Node) error {
	switch n.OpType {
	case "Softmax":
		if ax := n.AttrInt("axis", -1); ax != -1 && ax != 3 {
			return fmt.Errorf("%s: softmax over axis %d is not supported (expected the last axis)", n, ax)
		}
	case "LayerNormalization":
		if ax := n.AttrInt("axis", -1); ax != -1 && ax != 2 {
			return fmt.Errorf("%s: layer norm over axis %d is not supported (expected the last axis)", n, ax)
		}
	case "Gelu":
		if a := n.Attr("approximate"); a != nil && a.S != "none" {
			return fmt.Errorf("%s: GELU approximation %q is not supported (BERT uses the exact, erf-based GELU)", n, a.S)
		}
	case "Gemm":
		for _, a := range []string{"alpha", "beta"} {
			if at := n.Attr(a); at != nil && at.F != 1 {
				return fmt.Errorf("%s: attribute %s = %g is not supported (expected 1)", n, a, at.F)
			}
		}
		if n.AttrInt("transA", 0) != 0 {
			return fmt.Errorf("%s: transA = 1 is not supported", n)
		}
	}
	return nil
}

// mapWeights fills r.set with the graph's weights under Hugging Face names.
func (r *reader) mapWeights() error {
	r.set = tensor.Set{}
	r.source = map[string]string{}
	used := map[string]bool{}

	// Linear layers: MatMul(x, W[in, out]) followed by Add with the bias,
	// or Gemm(x, W, bias) with W [in, out] (transB = 0) or [out, in].
	for _, n := range r.g.Nodes {
		switch n.OpType {
		case "MatMul":
			if len(n.Inputs) != 2 || len(n.Outputs) != 1 {
				return fmt.Errorf("%s has %d inputs and %d outputs, expected 2 and 1", n, len(n.Inputs), len(n.Outputs))
			}
			if r.inits[n.Inputs[0]] != nil {
				return fmt.Errorf("%s multiplies the constant %q from the left, which is not a BERT linear layer", n, n.Inputs[0])
			}
			w := r.inits[n.Inputs[1]]
			if w == nil {
				continue // activation x activation (attention scores)
			}
			name, err := r.linearName(n, w, r.biasAfter(n))
			if err != nil {
				return err
			}
			if err := r.addWeight(name, w, true); err != nil {
				return err
			}
			used[w.Name] = true
		case "Gemm":
			if len(n.Inputs) < 2 || r.inits[n.Inputs[1]] == nil {
				return fmt.Errorf("%s: expected a constant weight as its second input", n)
			}
			w := r.inits[n.Inputs[1]]
			bias := ""
			if len(n.Inputs) > 2 {
				bias = n.Inputs[2]
			}
			name, err := r.linearName(n, w, bias)
			if err != nil {
				return err
			}
			if err := r.addWeight(name, w, n.AttrInt("transB", 0) == 0); err != nil {
				return err
			}
			used[w.Name] = true
		}
	}

	// Everything else under its own (Hugging Face) name, as stored.
	for _, t := range r.g.Initializers {
		if used[t.Name] || (t.DataType != Float && t.DataType != Float16) {
			continue
		}
		name, ok := canonicalName(t.Name)
		if !ok {
			n, err := t.Numel()
			if err != nil {
				return err
			}
			if len(t.Dims) >= 2 || n > 16 {
				return fmt.Errorf("initializer %q (shape %v) is not a BERT weight that dreval recognises", t.Name, t.Dims)
			}
			continue // a small constant: epsilon, sqrt(d), 1, 0.5 ...
		}
		if isLinearWeight(name) {
			// Stored [out, in] and transposed inside the graph.
			if !r.onlyTransposed(t.Name) {
				return fmt.Errorf("initializer %q is a linear weight used other than by MatMul, Gemm or Transpose", t.Name)
			}
		}
		if err := r.addWeight(name, t, false); err != nil {
			return err
		}
	}
	return nil
}

// onlyTransposed reports whether value is only read by Transpose nodes with
// perm [1, 0] (a Linear weight kept in [out, in] layout).
func (r *reader) onlyTransposed(value string) bool {
	cs := r.consumers[value]
	for _, c := range cs {
		if c.OpType != "Transpose" {
			return false
		}
		if p := c.Attr("perm"); p != nil && (len(p.Ints) != 2 || p.Ints[0] != 1 || p.Ints[1] != 0) {
			return false
		}
	}
	return len(cs) > 0
}

// biasAfter returns the constant added to n's output by an Add node, if any.
func (r *reader) biasAfter(n *Node) string {
	for _, c := range r.consumers[n.Outputs[0]] {
		if c.OpType != "Add" || len(c.Inputs) != 2 {
			continue
		}
		other := c.Inputs[0]
		if other == n.Outputs[0] {
			other = c.Inputs[1]
		}
		if t := r.inits[other]; t != nil && len(t.Dims) == 1 {
			return other
		}
	}
	return ""
}

// linearName names the Linear layer weight w used by n: after its bias
// ("X.bias" -> "X.weight"), else after w's own name.
func (r *reader) linearName(n *Node, w *Tensor, bias string) (string, error) {
	if bias != "" {
		if b, ok := canonicalName(bias); ok && strings.HasSuffix(b, ".bias") {
			name := strings.TrimSuffix(b, ".bias") + ".weight"
			if isLinearWeight(name) {
				return name, nil
			}
		}
	}
	if name, ok := canonicalName(strings.TrimSuffix(w.Name, "_transposed")); ok && isLinearWeight(name) {
		return name, nil
	}
	return "", fmt.Errorf("%s: cannot tell which BERT layer its weight %q (shape %v) belongs to: neither it nor its bias %q has a Hugging Face BERT name", n, w.Name, w.Dims, bias)
}

// addWeight decodes t into the set as name, transposing a 2-D [in, out]
// MatMul operand into [out, in] when transpose is set.
func (r *reader) addWeight(name string, t *Tensor, transpose bool) error {
	if prev, dup := r.source[name]; dup {
		if prev == t.Name {
			return nil // shared by two nodes
		}
		return fmt.Errorf("initializers %q and %q both hold BERT weight %q", prev, t.Name, name)
	}
	data, err := t.Float32()
	if err != nil {
		return err
	}
	shape := t.Shape()
	if transpose {
		if len(shape) != 2 {
			return fmt.Errorf("weight %q (initializer %q) has shape %v, expected a matrix", name, t.Name, shape)
		}
		in, out := shape[0], shape[1]
		tr := make([]float32, len(data))
		for i := 0; i < in; i++ {
			for o := 0; o < out; o++ {
				tr[o*in+i] = data[i*out+o]
			}
		}
		data, shape = tr, []int{out, in}
	}
	r.set[name] = &tensor.Tensor{Shape: shape, Data: data}
	r.source[name] = t.Name
	return nil
}

// checkWeights infers the sizes and checks that every tensor of a BERT
// encoder is present, with consistent shapes, and nothing else.
func (r *reader) checkWeights() error {
	we, ok := r.set[wordEmbeddings]
	if !ok || len(we.Shape) != 2 {
		return fmt.Errorf("the graph has no word embedding table %q ([vocab, hidden])", wordEmbeddings)
	}
	sz := shapes{vocab: we.Shape[0], hidden: we.Shape[1]}
	if t, ok := r.set[positionEmbeddings]; ok && len(t.Shape) == 2 {
		sz.positions = t.Shape[0]
	}
	if t, ok := r.set[tokenTypeEmbeddings]; ok && len(t.Shape) == 2 {
		sz.types = t.Shape[0]
	}
	for name := range r.set {
		if i, ok := layerIndex(name); ok && i+1 > sz.layers {
			sz.layers = i + 1
		}
	}
	if sz.layers == 0 {
		return fmt.Errorf("the graph has no encoder layers (no \"encoder.layer.N.*\" weights)")
	}
	if t, ok := r.set[layerName(0, "intermediate.dense.weight")]; ok && len(t.Shape) == 2 {
		sz.intermediate = t.Shape[0]
	}
	_, sz.pooler = r.set[poolerDense+".weight"]
	want := sz.expected()
	for _, name := range sortedNames(want) {
		if _, err := r.set.Get(name, want[name]...); err != nil {
			return fmt.Errorf("BERT weights with hidden size %d and %d layers: %w", sz.hidden, sz.layers, err)
		}
	}
	for _, name := range r.set.Names() {
		if _, ok := want[name]; !ok {
			return fmt.Errorf("weight %q (from initializer %q) does not belong to a BERT encoder with %d layers", name, r.source[name], sz.layers)
		}
	}
	for _, out := range r.g.Outputs {
		if out.Name == LastHiddenState && len(out.Dims) == 3 && out.Dims[2].Value != 0 && out.Dims[2].Value != int64(sz.hidden) {
			return fmt.Errorf("graph output %q has last dimension %d, expected the hidden size %d", out.Name, out.Dims[2].Value, sz.hidden)
		}
	}
	r.info.Vocab, r.info.Hidden, r.info.Layers = sz.vocab, sz.hidden, sz.layers
	r.info.Intermediate, r.info.MaxPositions, r.info.TypeVocab = sz.intermediate, sz.positions, sz.types
	r.info.Pooler = sz.pooler
	return nil
}

// checkActivations checks that the feed-forward activation is the exact,
// erf-based GELU: one Erf (or Gelu) per layer, and no Tanh outside the
// pooler (tanh-approximated GELU differs from what BERT computes).
func (r *reader) checkActivations() error {
	gelu, tanh := 0, 0
	for _, n := range r.g.Nodes {
		switch n.OpType {
		case "Erf", "Gelu":
			gelu++
		case "Tanh":
			tanh++
		}
	}
	if gelu != r.info.Layers {
		return fmt.Errorf("the graph has %d Erf/Gelu nodes for %d layers; only BERT's exact GELU (one per layer) is supported", gelu, r.info.Layers)
	}
	allowed := 0
	if r.info.Pooler {
		allowed = 1
	}
	if tanh > allowed {
		return fmt.Errorf("the graph has %d Tanh nodes; tanh-approximated activations are not supported", tanh)
	}
	return nil
}

// readHyperparameters fills Info.Heads and Info.Epsilon from constants in
// the graph, where it can.
func (r *reader) readHyperparameters() {
	consts := map[string]*Tensor{}
	for name, t := range r.inits {
		consts[name] = t
	}
	for _, n := range r.g.Nodes {
		if n.OpType == "Constant" && len(n.Outputs) == 1 {
			if a := n.Attr("value"); a != nil && a.T != nil {
				consts[n.Outputs[0]] = a.T
			}
		}
	}
	h := r.info.Hidden
	heads := map[int]bool{}
	var eps []float64
	for _, n := range r.g.Nodes {
		switch n.OpType {
		case "Reshape":
			if len(n.Inputs) < 2 || consts[n.Inputs[1]] == nil {
				continue
			}
			v, err := consts[n.Inputs[1]].Int64()
			if err == nil && len(v) == 4 && v[2] > 0 && v[3] > 0 && v[2]*v[3] == int64(h) {
				heads[int(v[2])] = true
			}
		case "LayerNormalization":
			e := 1e-5
			if a := n.Attr("epsilon"); a != nil {
				e = float64(a.F)
			}
			eps = append(eps, e)
		case "Sqrt":
			// Decomposed layer norm: Sqrt(Add(variance, epsilon)).
			if len(n.Inputs) != 1 {
				continue
			}
			for _, p := range r.g.Nodes {
				if p.OpType != "Add" || len(p.Outputs) != 1 || p.Outputs[0] != n.Inputs[0] {
					continue
				}
				for _, in := range p.Inputs {
					if c := consts[in]; c != nil {
						if v, err := c.Float32(); err == nil && len(v) == 1 {
							eps = append(eps, float64(v[0]))
						}
					}
				}
			}
		}
	}
	if len(heads) == 1 {
		for k := range heads {
			r.info.Heads = k
		}
	}
	if len(eps) > 0 {
		sort.Float64s(eps)
		if eps[0] == eps[len(eps)-1] {
			r.info.Epsilon = eps[0]
		}
	}
}
