package bert

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/modelfiles"
)

// ONNXInfo describes an encoder graph read by ReadONNX.
type ONNXInfo struct {
	Opset    int64  // version of the default ONNX operator set
	Producer string // producer_name and producer_version
	// Family is the encoder family the graph computes, told from its
	// weights' names (DistilBERT's, MPNet's relative-position bias) and
	// its position ids (counted from a padding index: RoBERTa).
	Family modelfiles.Family
	// Sizes found from the weights.
	Vocab, Hidden, Layers, Intermediate, MaxPositions, TypeVocab int
	// Buckets is the row count of MPNet's relative-position bias table
	// (0 for the other families).
	Buckets int
	// PaddingIdx is the padding index the graph's position ids count
	// from (RoBERTa, MPNet); ReadONNX sets -1 when they are 0, 1,
	// 2, ... (BERT, DistilBERT).
	PaddingIdx int
	// Heads is the attention head count read from the graph's reshape
	// constants (or MPNet's bias table), or 0 when the graph computes it
	// at run time.
	Heads int
	// Epsilon is the layer-norm epsilon used throughout the graph, or 0
	// when it could not be read.
	Epsilon float64
	// Activation is the feed-forward activation, as config.json names
	// it: gelu (erf), gelu_new (tanh approximation) or relu.
	Activation string
	// Inputs are the graph's inputs, in the graph's order: input_ids,
	// attention_mask and, where present, token_type_ids.
	Inputs []string
	// TokenTypeInput reports whether the graph takes token_type_ids.
	TokenTypeInput bool
	// Pooler reports whether pooler weights were found.
	Pooler bool
}

// MaxTokens returns the longest sequence the graph takes: MaxPositions
// less the position of the first token (PaddingIdx+1 for RoBERTa and
// MPNet).
func (in *ONNXInfo) MaxTokens() int { return in.Config().MaxTokens() }

// PadID returns the token id to pad input_ids with when sequences of
// different lengths share a batch: the padding index where positions
// count from one (RoBERTa, MPNet), so that padded slots take no
// position, else 0. Padded slots are masked out either way.
func (in *ONNXInfo) PadID() int64 { return int64(max(in.Config().PaddingIdx(), 0)) }

// CheckConfig reports an error when the graph's family or sizes differ
// from cfg (as read from the model's config.json).
func (in *ONNXInfo) CheckConfig(cfg modelfiles.Config) error {
	if f, g := cfg.Family(), in.Config().Family(); f != g {
		return fmt.Errorf("config.json describes a %s model (model_type %q) but the ONNX graph computes %s", f, cfg.ModelType, g)
	}
	checks := []struct {
		field     string
		graph, js int
	}{
		{"vocab_size", in.Vocab, cfg.VocabSize},
		{"hidden_size", in.Hidden, cfg.HiddenSize},
		{"num_hidden_layers", in.Layers, cfg.NumHiddenLayers},
		{"intermediate_size", in.Intermediate, cfg.IntermediateSize},
		{"max_position_embeddings", in.MaxPositions, cfg.MaxPositionEmbeddings},
	}
	if cfg.HasTokenTypes() {
		checks = append(checks, struct {
			field     string
			graph, js int
		}{"type_vocab_size", in.TypeVocab, cfg.TypeVocabSize})
	}
	if cfg.Family() == modelfiles.FamilyRoBERTa {
		checks = append(checks, struct {
			field     string
			graph, js int
		}{"pad_token_id", in.PaddingIdx, cfg.PadTokenID})
	}
	if cfg.Family() == modelfiles.FamilyMPNet {
		checks = append(checks, struct {
			field     string
			graph, js int
		}{"relative_attention_num_buckets", in.Buckets, cfg.RelativeAttentionNumBuckets})
	}
	for _, c := range checks {
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
	if act := normalActivation(cfg.HiddenAct); in.Activation != "" && act != in.Activation {
		return fmt.Errorf("config field \"hidden_act\" is %q but the ONNX graph computes %s", cfg.HiddenAct, in.Activation)
	}
	return nil
}

// normalActivation names the two spellings of the tanh-approximated GELU
// alike.
func normalActivation(act string) string {
	if act == "gelu_pytorch_tanh" {
		return "gelu_new"
	}
	return act
}

// supportedOps is the operator set of the encoder graphs dreval reads:
// its own exports and the usual Hugging Face (torch.onnx, optimum) BERT
// exports without ONNX Runtime graph fusions.
var supportedOps = map[string]bool{
	"Add": true, "Cast": true, "Concat": true, "Constant": true, "ConstantOfShape": true, "CumSum": true,
	"Div": true, "Equal": true, "Erf": true, "Expand": true, "Gather": true, "Gelu": true,
	"Gemm": true, "Identity": true, "LayerNormalization": true, "MatMul": true, "Mul": true, "Not": true,
	"Pow": true, "Range": true, "ReduceMean": true, "Relu": true, "Reshape": true, "Shape": true,
	"Slice": true, "Softmax": true, "Sqrt": true, "Squeeze": true, "Sub": true, "Tanh": true,
	"Transpose": true, "Unsqueeze": true, "Where": true,
}

// Opset range accepted by ReadONNX.
const (
	minReadOpset = 11
	maxReadOpset = 23
)

// ReadONNXFile reads the encoder weights of the ONNX model at path; see
// ReadONNX.
func ReadONNXFile(path string) (tensor.Set, *ONNXInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	set, info, err := ReadONNX(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return set, info, nil
}

// ReadONNX decodes an .onnx file, checks that its graph is an encoder
// of one of the families dreval supports, and returns the weights under
// their Hugging Face names (without prefix, see Layout), as float32
// in Hugging Face layout (Linear weights [out, in]), so that package bert
// builds the same model as from safetensors.
//
// Supported graphs take input_ids and attention_mask (and optionally
// token_type_ids) as int64 [batch, sequence], return last_hidden_state as
// float [batch, sequence, hidden] (and optionally pooler_output), use only
// the operators of a plain export, with one feed-forward activation per
// layer (exact GELU, its tanh approximation, or ReLU), and hold their
// weights as FLOAT or FLOAT16 initializers. That is what ExportONNX writes for
// every family, and the usual Hugging Face (torch.onnx, optimum) export of
// BERT. Position ids are either 0, 1, 2, ... or counted from a padding
// index through CumSum (RoBERTa and MPNet, as ExportONNX writes them); MPNet's
// relative-position buckets must be ExportONNX's precomputed table. Anything
// else is refused with an error naming the node, input or tensor at
// fault.
func ReadONNX(data []byte) (tensor.Set, *ONNXInfo, error) {
	m, err := onnx.Decode(data)
	if err != nil {
		return nil, nil, err
	}
	set, info, err := readModel(m)
	if err != nil {
		// A graph the reader refuses may still be an encoder ONNX Runtime
		// runs (quantized, float16, fused, another exporter's): say so.
		if g, ierr := onnx.InspectModel(m); ierr == nil {
			return nil, nil, &NotPureGoError{Graph: g, Err: err}
		}
		return nil, nil, err
	}
	return set, info, nil
}

// NotPureGoError is ReadONNX' error for a graph the pure-Go engine
// cannot run but that Inspect describes as an encoder graph, which an
// ONNX Runtime engine can run: a quantized or float16 graph, one with ONNX
// Runtime's fused operators, or another exporter's layout. Err is what
// the pure-Go reader refused; Graph what Inspect read.
type NotPureGoError struct {
	Graph *onnx.GraphInfo
	Err   error
}

func (e *NotPureGoError) Error() string {
	return fmt.Sprintf("the pure-Go engine cannot run this %s graph (%v); use the ort engine (-engine ort), which runs it with ONNX Runtime", e.Graph.Describe(), e.Err)
}

func (e *NotPureGoError) Unwrap() error { return e.Err }

// readModel is ReadONNX of a decoded model.
func readModel(m *onnx.Model) (tensor.Set, *ONNXInfo, error) {
	r := &reader{m: m, g: m.Graph, info: &ONNXInfo{PaddingIdx: -1}}
	if err := r.checkStructure(); err != nil {
		return nil, nil, err
	}
	r.collectConstants()
	if err := r.mapWeights(); err != nil {
		return nil, nil, err
	}
	if err := r.readPositions(); err != nil {
		return nil, nil, err
	}
	if err := r.checkWeights(); err != nil {
		return nil, nil, err
	}
	if err := r.checkRelativeBuckets(); err != nil {
		return nil, nil, err
	}
	if err := r.checkActivations(); err != nil {
		return nil, nil, err
	}
	r.readHyperparameters()
	return r.set, r.info, nil
}

type reader struct {
	m    *onnx.Model
	g    *onnx.Graph
	info *ONNXInfo

	inits     map[string]*onnx.Tensor
	consts    map[string]*onnx.Tensor // initializers and Constant nodes' values
	producer  map[string]*onnx.Node   // value -> the node computing it
	consumers map[string][]*onnx.Node
	set       tensor.Set
	source    map[string]string // HF name -> initializer it came from
}

// collectConstants fills r.consts and r.producer.
func (r *reader) collectConstants() {
	r.consts = map[string]*onnx.Tensor{}
	for name, t := range r.inits {
		r.consts[name] = t
	}
	r.producer = map[string]*onnx.Node{}
	for _, n := range r.g.Nodes {
		for _, out := range n.Outputs {
			r.producer[out] = n
		}
		if n.OpType == "Constant" && len(n.Outputs) == 1 {
			if a := n.Attr("value"); a != nil && a.T != nil {
				r.consts[n.Outputs[0]] = a.T
			}
		}
	}
}

// scalarInt returns the value of the constant name when it is a single
// integer.
func (r *reader) scalarInt(name string) (int64, bool) {
	t := r.consts[name]
	if t == nil {
		return 0, false
	}
	v, err := t.Int64()
	if err != nil || len(v) != 1 {
		return 0, false
	}
	return v[0], true
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
	if g.HasSparse() {
		return fmt.Errorf("the graph has sparse initializers, which are not supported")
	}

	r.inits = map[string]*onnx.Tensor{}
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
		case onnx.InputIDs, onnx.AttentionMask, onnx.TokenTypeIDs:
		default:
			return fmt.Errorf("graph input %q is not supported (an encoder takes %s, %s and optionally %s)", in.Name, onnx.InputIDs, onnx.AttentionMask, onnx.TokenTypeIDs)
		}
		if inputs[in.Name] {
			return fmt.Errorf("graph input %q is listed twice", in.Name)
		}
		r.info.Inputs = append(r.info.Inputs, in.Name)
		if in.ElemType != onnx.Int64 {
			return fmt.Errorf("graph input %q has element type %s, expected INT64", in.Name, onnx.DataTypeName(in.ElemType))
		}
		if in.Dims != nil && len(in.Dims) != 2 {
			return fmt.Errorf("graph input %q has rank %d, expected 2 ([batch, sequence])", in.Name, len(in.Dims))
		}
		inputs[in.Name] = true
		defined[in.Name] = true
	}
	for _, need := range []string{onnx.InputIDs, onnx.AttentionMask} {
		if !inputs[need] {
			return fmt.Errorf("the graph has no %q input", need)
		}
	}
	r.info.TokenTypeInput = inputs[onnx.TokenTypeIDs]

	r.consumers = map[string][]*onnx.Node{}
	for _, n := range g.Nodes {
		if n.Domain != "" && n.Domain != "ai.onnx" {
			return fmt.Errorf("%s: operator domain %q is not supported (export without ONNX Runtime graph optimizations, which fuse the encoder into com.microsoft operators)", n, n.Domain)
		}
		if !supportedOps[n.OpType] {
			return fmt.Errorf("%s: operator %q is not supported in an encoder graph (supported: %s)", n, n.OpType, strings.Join(slices.Sorted(maps.Keys(supportedOps)), ", "))
		}
		if err := checkAttributes(n); err != nil {
			return err
		}
		if n.OpType == "Cast" && n.AttrInt("to", 0) == onnx.Float16 {
			return fmt.Errorf("%s casts to FLOAT16: the graph computes in float16, and the pure-Go engine computes in float32 only", n)
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
	for _, in := range []string{onnx.AttentionMask, onnx.TokenTypeIDs} {
		if inputs[in] && len(r.consumers[in]) == 0 {
			return fmt.Errorf("graph input %q is not used by any node", in)
		}
	}

	seen := map[string]bool{}
	for i, out := range g.Outputs {
		switch out.Name {
		case onnx.LastHiddenState:
			if i != 0 {
				return fmt.Errorf("graph output %q must be the first output", onnx.LastHiddenState)
			}
			if out.Dims != nil && len(out.Dims) != 3 {
				return fmt.Errorf("graph output %q has rank %d, expected 3 ([batch, sequence, hidden])", out.Name, len(out.Dims))
			}
		case onnx.PoolerOutput:
			if out.Dims != nil && len(out.Dims) != 2 {
				return fmt.Errorf("graph output %q has rank %d, expected 2 ([batch, hidden])", out.Name, len(out.Dims))
			}
		default:
			return fmt.Errorf("graph output %q is not supported (expected %s, optionally %s)", out.Name, onnx.LastHiddenState, onnx.PoolerOutput)
		}
		if out.ElemType != onnx.Float {
			return fmt.Errorf("graph output %q has element type %s, expected FLOAT", out.Name, onnx.DataTypeName(out.ElemType))
		}
		if !defined[out.Name] {
			return fmt.Errorf("graph output %q is not computed by any node", out.Name)
		}
		seen[out.Name] = true
	}
	if !seen[onnx.LastHiddenState] {
		return fmt.Errorf("the graph has no %q output", onnx.LastHiddenState)
	}
	return nil
}

// checkAttributes refuses attribute values that change what a supported
// operator computes in ways the pure-Go encoder does not follow.
func checkAttributes(n *onnx.Node) error {
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
		if a := n.Attr("approximate"); a != nil && a.S != "none" && a.S != "tanh" {
			return fmt.Errorf("%s: GELU approximation %q is not supported (supported: none, tanh)", n, a.S)
		}
	case "CumSum":
		if n.AttrInt("exclusive", 0) != 0 || n.AttrInt("reverse", 0) != 0 {
			return fmt.Errorf("%s: exclusive or reverse cumulative sums are not supported", n)
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
				return fmt.Errorf("%s multiplies the constant %q from the left, which is not a linear layer", n, n.Inputs[0])
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
		if used[t.Name] || (t.DataType != onnx.Float && t.DataType != onnx.Float16) {
			continue
		}
		name, ok := canonicalName(t.Name)
		if !ok {
			n, err := t.Numel()
			if err != nil {
				return err
			}
			if len(t.Dims) >= 2 || n > 16 {
				return fmt.Errorf("initializer %q (shape %v) is not an encoder weight that dreval recognises", t.Name, t.Dims)
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
func (r *reader) biasAfter(n *onnx.Node) string {
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
func (r *reader) linearName(n *onnx.Node, w *onnx.Tensor, bias string) (string, error) {
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
	return "", fmt.Errorf("%s: cannot tell which layer its weight %q (shape %v) belongs to: neither it nor its bias %q has a Hugging Face name of an encoder weight", n, w.Name, w.Dims, bias)
}

// addWeight decodes t into the set as name, transposing a 2-D [in, out]
// MatMul operand into [out, in] when transpose is set.
func (r *reader) addWeight(name string, t *onnx.Tensor, transpose bool) error {
	if prev, dup := r.source[name]; dup {
		if prev == t.Name {
			return nil // shared by two nodes
		}
		return fmt.Errorf("initializers %q and %q both hold weight %q", prev, t.Name, name)
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

// checkWeights tells the family from the weights' names and the position
// ids, infers the sizes, and checks that every tensor of that family's
// backbone is present, with consistent shapes, and nothing else.
func (r *reader) checkWeights() error {
	we, ok := r.set[wordEmbeddings]
	if !ok || len(we.Shape) != 2 {
		return fmt.Errorf("the graph has no word embedding table %q ([vocab, hidden])", wordEmbeddings)
	}
	family := modelfiles.FamilyBERT
	if r.info.PaddingIdx >= 0 {
		family = modelfiles.FamilyRoBERTa
	}
	for name := range r.set {
		if _, l, ok := layerIndex(name); ok && l.LayerPrefix == LayoutOf(modelfiles.FamilyDistilBERT).LayerPrefix {
			family = modelfiles.FamilyDistilBERT
		}
	}
	mpnet := LayoutOf(modelfiles.FamilyMPNet)
	if _, ok := r.set[mpnet.RelativeAttentionBias]; ok {
		family = modelfiles.FamilyMPNet
	}
	switch {
	case family == modelfiles.FamilyDistilBERT && r.info.PaddingIdx >= 0:
		return fmt.Errorf("the graph has DistilBERT's weights but counts position ids from padding index %d; DistilBERT's are 0, 1, 2, ...", r.info.PaddingIdx)
	case family == modelfiles.FamilyMPNet && r.info.PaddingIdx != 1:
		return fmt.Errorf("the graph has MPNet's weights but its position ids are not counted from padding index 1 as MPNet's are (found %d; -1: 0, 1, 2, ...)", r.info.PaddingIdx)
	}
	cfg := modelfiles.Config{ModelType: string(family), VocabSize: we.Shape[0], HiddenSize: we.Shape[1], PadTokenID: max(r.info.PaddingIdx, 0)}
	l := LayoutOf(cfg.Family())
	if t, ok := r.set[l.PositionEmbeddings]; ok && len(t.Shape) == 2 {
		cfg.MaxPositionEmbeddings = t.Shape[0]
	}
	if t, ok := r.set[l.TokenTypeEmbeddings]; ok && l.TokenTypeEmbeddings != "" && len(t.Shape) == 2 {
		cfg.TypeVocabSize = t.Shape[0]
	}
	if t, ok := r.set[l.RelativeAttentionBias]; ok && l.RelativeAttentionBias != "" && len(t.Shape) == 2 {
		cfg.RelativeAttentionNumBuckets, cfg.NumAttentionHeads = t.Shape[0], t.Shape[1]
	}
	for name := range r.set {
		if i, _, ok := layerIndex(name); ok && i+1 > cfg.NumHiddenLayers {
			cfg.NumHiddenLayers = i + 1
		}
	}
	if cfg.NumHiddenLayers == 0 {
		return fmt.Errorf("the graph has no encoder layers (no \"%sN.*\" weights)", l.LayerPrefix)
	}
	if t, ok := r.set[l.Layer(0)+l.Intermediate+".weight"]; ok && len(t.Shape) == 2 {
		cfg.IntermediateSize = t.Shape[0]
	}
	_, pooler := r.set[l.Pooler+".weight"]
	pooler = pooler && l.Pooler != ""
	want := TensorShapes(cfg, pooler)
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if _, err := r.set.Get(name, want[name]...); err != nil {
			return fmt.Errorf("%s weights with hidden size %d and %d layers: %w", family, cfg.HiddenSize, cfg.NumHiddenLayers, err)
		}
	}
	for _, name := range r.set.Names() {
		if _, ok := want[name]; !ok {
			return fmt.Errorf("weight %q (from initializer %q) does not belong to a %s encoder with %d layers", name, r.source[name], family, cfg.NumHiddenLayers)
		}
	}
	for _, out := range r.g.Outputs {
		if out.Name == onnx.LastHiddenState && len(out.Dims) == 3 && out.Dims[2].Value != 0 && out.Dims[2].Value != int64(cfg.HiddenSize) {
			return fmt.Errorf("graph output %q has last dimension %d, expected the hidden size %d", out.Name, out.Dims[2].Value, cfg.HiddenSize)
		}
	}
	if cfg.MaxTokens() <= 0 {
		return fmt.Errorf("the graph's position ids start at %d, past its %d positions", cfg.PositionOffset(), cfg.MaxPositionEmbeddings)
	}
	in := r.info
	in.Family = family
	in.Vocab, in.Hidden, in.Layers = cfg.VocabSize, cfg.HiddenSize, cfg.NumHiddenLayers
	in.Intermediate, in.MaxPositions, in.TypeVocab = cfg.IntermediateSize, cfg.MaxPositionEmbeddings, cfg.TypeVocabSize
	in.Buckets, in.Heads = cfg.RelativeAttentionNumBuckets, cfg.NumAttentionHeads
	in.Pooler = pooler
	return nil
}

// readPositions tells how the graph computes its position ids: 0, 1,
// 2, ... unless it has a CumSum, which counts the tokens that are not
// padding; the padding index is then the constant input_ids is compared
// with (Equal), which ONNXInfo.PaddingIdx records.
func (r *reader) readPositions() error {
	var cumsums []*onnx.Node
	for _, n := range r.g.Nodes {
		if n.OpType == "CumSum" {
			cumsums = append(cumsums, n)
		}
	}
	if len(cumsums) == 0 {
		return nil
	}
	if len(cumsums) > 1 {
		return fmt.Errorf("the graph has %d CumSum nodes; position ids counted from a padding index need one", len(cumsums))
	}
	if len(cumsums[0].Inputs) != 2 {
		return fmt.Errorf("%s has %d inputs, expected 2", cumsums[0], len(cumsums[0].Inputs))
	}
	if ax, ok := r.scalarInt(cumsums[0].Inputs[1]); !ok || (ax != 1 && ax != -1) {
		return fmt.Errorf("%s: the cumulative sum must run over the sequence axis (1)", cumsums[0])
	}
	pad, found := int64(0), false
	for _, n := range r.consumers[onnx.InputIDs] {
		if n.OpType != "Equal" || len(n.Inputs) != 2 {
			continue
		}
		other := n.Inputs[1]
		if other == onnx.InputIDs {
			other = n.Inputs[0]
		}
		v, ok := r.scalarInt(other)
		if !ok {
			continue
		}
		if found && v != pad {
			return fmt.Errorf("the graph compares input_ids with two padding indexes, %d and %d", pad, v)
		}
		pad, found = v, true
	}
	if !found {
		return fmt.Errorf("%s: the graph counts position ids with a cumulative sum but compares input_ids with no constant padding index (Equal)", cumsums[0])
	}
	if pad < 0 || pad > 1<<20 {
		return fmt.Errorf("the graph's padding index %d is out of range", pad)
	}
	r.info.PaddingIdx = int(pad)
	return nil
}

// checkRelativeBuckets checks that an MPNet graph takes its relative-
// position buckets from a precomputed table as ExportONNX writes it: the
// bias table is gathered with indices gathered from an int64 table T by
// (key - query) + C, where T[C+d] is RelativePositionBucket(d) for
// every distance d a sequence of the graph's length can have.
func (r *reader) checkRelativeBuckets() error {
	if r.info.Family != modelfiles.FamilyMPNet {
		return nil
	}
	name := r.source[LayoutOf(modelfiles.FamilyMPNet).RelativeAttentionBias]
	var gathers []*onnx.Node
	for _, n := range r.consumers[name] {
		if n.OpType == "Gather" && len(n.Inputs) == 2 && n.Inputs[0] == name {
			gathers = append(gathers, n)
		}
	}
	refuse := func(why string) error {
		return fmt.Errorf("MPNet graph: the relative-position buckets are not computed as dreval's export does (%s); export the model with \"dreval model export-onnx\"", why)
	}
	if len(gathers) != 1 {
		return refuse(fmt.Sprintf("%d Gather nodes read %q", len(gathers), name))
	}
	idx := r.producer[gathers[0].Inputs[1]]
	if idx == nil || idx.OpType != "Gather" || len(idx.Inputs) != 2 {
		return refuse("the bias is not gathered by bucket")
	}
	table := r.inits[idx.Inputs[0]]
	if table == nil {
		return refuse("no bucket table")
	}
	buckets, err := table.Int64()
	if err != nil || len(table.Dims) != 1 {
		return refuse("the bucket table is not a list of integers")
	}
	add := r.producer[idx.Inputs[1]]
	if add == nil || add.OpType != "Add" || len(add.Inputs) != 2 {
		return refuse("the bucket index is not a distance plus an offset")
	}
	off, ok := r.scalarInt(add.Inputs[1])
	if !ok {
		return refuse("the bucket index is not a distance plus a constant offset")
	}
	if sub := r.producer[add.Inputs[0]]; sub == nil || sub.OpType != "Sub" {
		return refuse("the distance is not a difference of positions")
	}
	n := int64(r.info.MaxTokens())
	if int64(len(buckets)) != 2*off+1 || off+1 < n {
		return refuse(fmt.Sprintf("a table of %d buckets with offset %d does not cover the distances of %d tokens", len(buckets), off, n))
	}
	for i, b := range buckets {
		if want := RelativePositionBucket(i - int(off)); b != int64(want) {
			return refuse(fmt.Sprintf("distance %d has bucket %d, MPNet's is %d", i-int(off), b, want))
		}
	}
	return nil
}

// checkActivations checks that the feed-forward activation is one the
// encoder supports, once per layer: the exact, erf-based GELU (Erf, or
// Gelu without approximation), the tanh approximation (Tanh, or Gelu with
// approximate = tanh) or ReLU; Tanh is otherwise allowed only in the
// pooler.
func (r *reader) checkActivations() error {
	erf, tanh, relu, geluTanh := 0, 0, 0, 0
	for _, n := range r.g.Nodes {
		switch n.OpType {
		case "Erf":
			erf++
		case "Gelu":
			if a := n.Attr("approximate"); a != nil && a.S == "tanh" {
				geluTanh++
			} else {
				erf++
			}
		case "Tanh":
			tanh++
		case "Relu":
			relu++
		}
	}
	L := r.info.Layers
	if r.info.Pooler {
		tanh--
	}
	switch {
	case erf == L && tanh == 0 && relu == 0 && geluTanh == 0:
		r.info.Activation = "gelu"
	case tanh+geluTanh == L && erf == 0 && relu == 0:
		r.info.Activation = "gelu_new"
	case relu == L && erf == 0 && tanh == 0 && geluTanh == 0:
		r.info.Activation = "relu"
	default:
		return fmt.Errorf("the graph has %d Erf/Gelu, %d Tanh and %d Relu nodes (pooler aside) for %d layers; one activation per layer is supported: exact GELU, tanh-approximated GELU or ReLU", erf+geluTanh, max(tanh, 0), relu, L)
	}
	return nil
}

// readHyperparameters fills ONNXInfo.Heads and ONNXInfo.Epsilon from constants in
// the graph, where it can.
func (r *reader) readHyperparameters() {
	h := r.info.Hidden
	heads := map[int]bool{}
	if r.info.Heads > 0 { // MPNet's bias table
		heads[r.info.Heads] = true
	}
	var eps []float64
	for _, n := range r.g.Nodes {
		switch n.OpType {
		case "Reshape":
			if len(n.Inputs) < 2 || r.consts[n.Inputs[1]] == nil {
				continue
			}
			v, err := r.consts[n.Inputs[1]].Int64()
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
			p := r.producer[n.Inputs[0]]
			if p == nil || p.OpType != "Add" {
				continue
			}
			for _, in := range p.Inputs {
				if c := r.consts[in]; c != nil {
					if v, err := c.Float32(); err == nil && len(v) == 1 {
						eps = append(eps, float64(v[0]))
					}
				}
			}
		}
	}
	r.info.Heads = 0
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

// Config returns the configuration the graph implies: its family (as a
// model_type: bert, roberta, distilbert or mpnet), sizes, padding index,
// activation (gelu when unknown), head count and layer-norm epsilon.
// Heads and LayerNormEps
// are 0 where the graph does not say them, which Config.Validate refuses:
// config.json must then supply them.
func (in *ONNXInfo) Config() modelfiles.Config {
	c := modelfiles.Config{
		ModelType:                   string(in.Family),
		VocabSize:                   in.Vocab,
		HiddenSize:                  in.Hidden,
		NumHiddenLayers:             in.Layers,
		NumAttentionHeads:           in.Heads,
		IntermediateSize:            in.Intermediate,
		HiddenAct:                   in.Activation,
		MaxPositionEmbeddings:       in.MaxPositions,
		TypeVocabSize:               in.TypeVocab,
		LayerNormEps:                in.Epsilon,
		RelativeAttentionNumBuckets: in.Buckets,
	}
	if in.PaddingIdx >= 0 {
		c.PadTokenID = in.PaddingIdx
	}
	if c.HiddenAct == "" {
		c.HiddenAct = "gelu"
	}
	return c
}
