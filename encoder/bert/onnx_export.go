package bert

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/modelfiles"
)

// Opset bounds for ExportONNX. From opset 17 on, layer norms are written as
// LayerNormalization nodes; before it, as ReduceMean/Sub/Pow/Sqrt/Div.
const (
	MinExportOpset     = 14
	MaxExportOpset     = 21
	DefaultExportOpset = 14
)

// ONNXOptions controls ExportONNX.
type ONNXOptions struct {
	// Opset is the ONNX operator set version, MinExportOpset to
	// MaxExportOpset; 0 means DefaultExportOpset.
	Opset int
	// ProducerVersion is recorded in the file (for example dreval's
	// version).
	ProducerVersion string
	// Prefix is where the backbone's tensors are in the set ("" finds
	// it with DetectPrefix, which suffices unless the set holds
	// several backbones, such as both of DPR's towers).
	Prefix string
	// Sentence, when set, makes the graph pool inside itself as
	// sentence-transformers exports (optimum, Transformers.js) do: its
	// outputs are then token_embeddings (the last hidden state, when
	// Sentence.Tokens) and sentence_embedding, instead of
	// last_hidden_state and pooler_output.
	Sentence *SentenceOutput
}

// SentenceOutput is the pooling a graph computes for its
// sentence_embedding output (ONNXOptions.Sentence), as
// sentence-transformers' Pooling and Normalize modules do.
type SentenceOutput struct {
	// Pooling is "mean" (the mean of the attended tokens' vectors) or
	// "cls" (the first token's).
	Pooling string
	// Normalize scales the embedding to unit L2 norm (x / max(|x|,
	// 1e-12)).
	Normalize bool
	// Tokens keeps the per-token output, as token_embeddings.
	Tokens bool
}

// ExportONNX builds the standard encoder graph of cfg's family from Hugging
// Face named weights (as read from safetensors) and cfg. The backbone is
// taken from set under opt.Prefix (see Backbone); tensors outside it
// (task heads, projections, other towers, buffers) are not part of the
// graph, which computes what Model.Forward does:
//   - inputs input_ids and attention_mask, plus token_type_ids for BERT
//     (int64 [batch, sequence]); RoBERTa adds its one token type
//     embedding without an input, DistilBERT and MPNet have none;
//   - position ids 0, 1, 2, ... for BERT and DistilBERT; for RoBERTa and
//     MPNet counted from padding_idx over the tokens that are not
//     padding (Equal, Not, Cast, CumSum, Mul, Add), as Hugging Face's
//     create_position_ids_from_input_ids does;
//   - MPNet's relative-position bias: the bucket of every distance a
//     sequence of up to cfg.MaxTokens() tokens can have, precomputed as an
//     int64 table (RelativePositionBucket), gathered per (query, key)
//     and then from relative_attention_bias, added to the scores;
//   - the feed-forward activation as configured: exact GELU (Erf), the
//     tanh approximation (gelu_new, gelu_pytorch_tanh) or Relu;
//   - the output last_hidden_state (float [batch, sequence, hidden]), plus
//     pooler_output (float [batch, hidden]) when the checkpoint has pooler
//     weights.
//
// Batch and sequence sizes are dynamic; all weights are float32
// initializers under their Hugging Face names without the prefix. Linear
// weights are stored transposed ([in, out]) as MatMul operands;
// ReadONNX transposes them back.
func ExportONNX(set tensor.Set, cfg modelfiles.Config, opt ONNXOptions) (*onnx.Model, error) {
	if err := cfg.Validate("config"); err != nil {
		return nil, err
	}
	opset := opt.Opset
	if opset == 0 {
		opset = DefaultExportOpset
	}
	if opset < MinExportOpset || opset > MaxExportOpset {
		return nil, fmt.Errorf("opset %d is not supported for export (use %d to %d)", opset, MinExportOpset, MaxExportOpset)
	}
	prefix := opt.Prefix
	if prefix == "" {
		var err error
		if prefix, err = DetectPrefix(cfg, set); err != nil {
			return nil, err
		}
	}
	bb, _, err := Backbone(cfg, set, prefix)
	if err != nil {
		return nil, err
	}
	l := LayoutOf(cfg.Family())
	family := cfg.Family()
	_, hasPooler := bb[l.Pooler+".weight"]
	hasPooler = hasPooler && l.Pooler != ""

	b := &builder{opset: opset, set: bb, eps: float32(cfg.LayerNormEps)}
	g := b.g()
	g.Name = string(family)
	inputs := []string{onnx.InputIDs, onnx.AttentionMask}
	if cfg.TakesTokenTypeIDs() {
		inputs = append(inputs, onnx.TokenTypeIDs)
	}
	for _, in := range inputs {
		g.Inputs = append(g.Inputs, &onnx.ValueInfo{Name: in, ElemType: onnx.Int64, Dims: []onnx.Dim{{Param: "batch"}, {Param: "sequence"}}})
	}
	h := cfg.HiddenSize
	heads := cfg.NumAttentionHeads
	headDim := h / heads

	// Shared constants.
	b.constI64("const_zero", nil, 0)
	b.constI64("const_one_i64", nil, 1)
	b.constF32("const_one", 1)
	b.constF32("const_half", 0.5)
	b.constF32("const_sqrt2", float32(math.Sqrt2))
	b.constF32("const_mask_min", -math.MaxFloat32)
	b.constF32("const_sqrt_head_dim", float32(math.Sqrt(float64(headDim))))
	b.constF32("const_eps", float32(cfg.LayerNormEps))
	b.constI64("const_mask_axes", []int64{2}, 1, 2)
	b.constI64("const_split_heads", []int64{4}, 0, 0, int64(heads), int64(headDim))
	b.constI64("const_merge_heads", []int64{3}, 0, 0, int64(h))
	if opset < 17 {
		b.constF32("const_two", 2)
	}

	// Embeddings: word + position (+ token type), then LayerNorm.
	words := b.node("embeddings/word/Gather", "Gather", []string{b.init(l.WordEmbeddings), onnx.InputIDs}, intAttr("axis", 0))
	// arange returns 0, 1, ..., sequence-1 (computed once).
	var arangeOut string
	arange := func(name string) string {
		if arangeOut == "" {
			shape := b.node("embeddings/Shape", "Shape", []string{onnx.InputIDs})
			seqLen := b.node("embeddings/seq_len/Gather", "Gather", []string{shape, "const_one_i64"}, intAttr("axis", 0))
			arangeOut = b.node(name, "Range", []string{"const_zero", seqLen, "const_one_i64"})
		}
		return arangeOut
	}
	var positions string
	if pad := cfg.PaddingIdx(); pad >= 0 {
		b.constI64("const_padding_idx", nil, int64(pad))
		eq := b.node("embeddings/position_ids/Equal", "Equal", []string{onnx.InputIDs, "const_padding_idx"})
		ne := b.node("embeddings/position_ids/Not", "Not", []string{eq})
		m := b.node("embeddings/position_ids/Cast", "Cast", []string{ne}, intAttr("to", onnx.Int64))
		cs := b.node("embeddings/position_ids/CumSum", "CumSum", []string{m, "const_one_i64"})
		cs = b.node("embeddings/position_ids/Mul", "Mul", []string{cs, m})
		positions = b.node("embeddings/position_ids/Add", "Add", []string{cs, "const_padding_idx"})
	} else {
		positions = arange("embeddings/position_ids/Range")
	}
	pos := b.node("embeddings/position/Gather", "Gather", []string{b.init(l.PositionEmbeddings), positions}, intAttr("axis", 0))
	x := b.node("embeddings/Add", "Add", []string{words, pos})
	switch {
	case cfg.TakesTokenTypeIDs():
		types := b.node("embeddings/token_type/Gather", "Gather", []string{b.init(l.TokenTypeEmbeddings), onnx.TokenTypeIDs}, intAttr("axis", 0))
		x = b.node("embeddings/Add_1", "Add", []string{x, types})
	case l.TokenTypeEmbeddings != "":
		// Token type 0 for every token: row 0 of the table, broadcast.
		types := b.node("embeddings/token_type/Gather", "Gather", []string{b.init(l.TokenTypeEmbeddings), "const_zero"}, intAttr("axis", 0))
		x = b.node("embeddings/Add_1", "Add", []string{x, types})
	}
	x = b.layerNorm("embeddings/LayerNorm", x, l.EmbeddingsLayerNorm)

	// Attention mask bias, [batch, 1, 1, sequence]: 0 where attended,
	// the lowest float where masked.
	mask := b.node("mask/Cast", "Cast", []string{onnx.AttentionMask}, intAttr("to", onnx.Float))
	mask = b.node("mask/Unsqueeze", "Unsqueeze", []string{mask, "const_mask_axes"})
	mask = b.node("mask/Sub", "Sub", []string{"const_one", mask})
	mask = b.node("mask/Mul", "Mul", []string{mask, "const_mask_min"})

	// MPNet's relative-position bias, [heads, sequence, sequence].
	relBias := ""
	if l.RelativeAttentionBias != "" {
		r := arange("relative_position/Range")
		n := cfg.MaxTokens()
		table := make([]int64, 2*n-1)
		for i := range table {
			table[i] = int64(RelativePositionBucket(i - (n - 1)))
		}
		b.constI64(relativeBucketsTable, []int64{int64(len(table))}, table...)
		b.constI64("const_relative_offset", nil, int64(n-1))
		b.constI64("const_axes_0", []int64{1}, 0)
		b.constI64("const_axes_1", []int64{1}, 1)
		query := b.node("relative_position/query/Unsqueeze", "Unsqueeze", []string{r, "const_axes_1"})
		key := b.node("relative_position/key/Unsqueeze", "Unsqueeze", []string{r, "const_axes_0"})
		rel := b.node("relative_position/Sub", "Sub", []string{key, query}) // key - query
		rel = b.node("relative_position/Add", "Add", []string{rel, "const_relative_offset"})
		bucket := b.node("relative_position/bucket/Gather", "Gather", []string{relativeBucketsTable, rel}, intAttr("axis", 0))
		bias := b.node("relative_position/bias/Gather", "Gather", []string{b.init(l.RelativeAttentionBias), bucket}, intAttr("axis", 0))
		relBias = b.node("relative_position/bias/Transpose", "Transpose", []string{bias}, intsAttr("perm", 2, 0, 1))
	}
	if cfg.HiddenAct == "gelu_new" || cfg.HiddenAct == "gelu_pytorch_tanh" {
		b.constF32("const_gelu_kappa", 0.044715)
		b.constF32("const_gelu_beta", float32(math.Sqrt(2/math.Pi)))
	}

	for i := 0; i < cfg.NumHiddenLayers; i++ {
		p := "layer" + strconv.Itoa(i) + "/"
		m := l.Layer(i)
		q := b.linear(p+"query", x, m+l.Query)
		k := b.linear(p+"key", x, m+l.Key)
		v := b.linear(p+"value", x, m+l.Value)
		q = b.node(p+"query/Reshape", "Reshape", []string{q, "const_split_heads"})
		q = b.node(p+"query/Transpose", "Transpose", []string{q}, intsAttr("perm", 0, 2, 1, 3))
		k = b.node(p+"key/Reshape", "Reshape", []string{k, "const_split_heads"})
		k = b.node(p+"key/Transpose", "Transpose", []string{k}, intsAttr("perm", 0, 2, 3, 1))
		v = b.node(p+"value/Reshape", "Reshape", []string{v, "const_split_heads"})
		v = b.node(p+"value/Transpose", "Transpose", []string{v}, intsAttr("perm", 0, 2, 1, 3))
		s := b.node(p+"scores/MatMul", "MatMul", []string{q, k})
		s = b.node(p+"scores/Div", "Div", []string{s, "const_sqrt_head_dim"})
		if relBias != "" {
			s = b.node(p+"scores/relative_position/Add", "Add", []string{s, relBias})
		}
		s = b.node(p+"scores/Add", "Add", []string{s, mask})
		s = b.node(p+"scores/Softmax", "Softmax", []string{s}, intAttr("axis", -1))
		c := b.node(p+"context/MatMul", "MatMul", []string{s, v})
		c = b.node(p+"context/Transpose", "Transpose", []string{c}, intsAttr("perm", 0, 2, 1, 3))
		c = b.node(p+"context/Reshape", "Reshape", []string{c, "const_merge_heads"})
		a := b.linear(p+"attention_output", c, m+l.AttentionOutput)
		a = b.node(p+"attention_output/residual/Add", "Add", []string{a, x})
		a = b.layerNorm(p+"attention_output/LayerNorm", a, m+l.AttentionLayerNorm)

		f := b.linear(p+"intermediate", a, m+l.Intermediate)
		e := b.activation(p, f, cfg.HiddenAct)
		o := b.linear(p+"output", e, m+l.Output)
		o = b.node(p+"output/residual/Add", "Add", []string{o, a})
		x = b.layerNorm(p+"output/LayerNorm", o, m+l.OutputLayerNorm)
	}
	if so := opt.Sentence; so != nil {
		if err := b.sentence(x, so, h); err != nil {
			return nil, err
		}
		hasPooler = false
	} else {
		b.rename(x, onnx.LastHiddenState)
		g.Outputs = append(g.Outputs, &onnx.ValueInfo{Name: onnx.LastHiddenState, ElemType: onnx.Float, Dims: []onnx.Dim{{Param: "batch"}, {Param: "sequence"}, {Value: int64(h)}}})
	}

	if hasPooler {
		first := b.node("pooler/Gather", "Gather", []string{onnx.LastHiddenState, "const_zero"}, intAttr("axis", 1))
		pooled := b.linear("pooler/dense", first, l.Pooler)
		b.nodeOut("pooler/Tanh", "Tanh", []string{pooled}, onnx.PoolerOutput)
		g.Outputs = append(g.Outputs, &onnx.ValueInfo{Name: onnx.PoolerOutput, ElemType: onnx.Float, Dims: []onnx.Dim{{Param: "batch"}, {Value: int64(h)}}})
	}
	return &onnx.Model{
		IRVersion:       irVersion(opset),
		ProducerName:    "dreval",
		ProducerVersion: opt.ProducerVersion,
		Opsets:          map[string]int64{"": int64(opset)},
		Graph:           g,
	}, nil
}

// sentence adds the outputs of ONNXOptions.Sentence: x, the last hidden
// state, pooled (and normalised) into sentence_embedding, and kept as
// token_embeddings when so.Tokens.
func (b *builder) sentence(x string, so *SentenceOutput, h int) error {
	g := b.g()
	if so.Tokens {
		b.rename(x, onnx.TokenEmbeddings)
		x = onnx.TokenEmbeddings
		g.Outputs = append(g.Outputs, &onnx.ValueInfo{Name: onnx.TokenEmbeddings, ElemType: onnx.Float, Dims: []onnx.Dim{{Param: "batch"}, {Param: "sequence"}, {Value: int64(h)}}})
	}
	b.constI64("const_axis_1", []int64{1}, 1)
	var pooled string
	switch so.Pooling {
	case "mean":
		// sum(x * mask) / max(sum(mask), 1e-9) over the sequence.
		b.constI64("const_axis_last", []int64{1}, -1)
		b.constF32("const_min_count", 1e-9)
		m := b.node("pooling/mask/Cast", "Cast", []string{onnx.AttentionMask}, intAttr("to", onnx.Float))
		m = b.node("pooling/mask/Unsqueeze", "Unsqueeze", []string{m, "const_axis_last"})
		sum := b.node("pooling/Mul", "Mul", []string{x, m})
		sum = b.node("pooling/ReduceSum", "ReduceSum", []string{sum, "const_axis_1"}, intAttr("keepdims", 0))
		n := b.node("pooling/count/ReduceSum", "ReduceSum", []string{m, "const_axis_1"}, intAttr("keepdims", 0))
		n = b.node("pooling/count/Max", "Max", []string{n, "const_min_count"})
		pooled = b.node("pooling/Div", "Div", []string{sum, n})
	case "cls":
		pooled = b.node("pooling/Gather", "Gather", []string{x, "const_zero"}, intAttr("axis", 1))
	default:
		return fmt.Errorf("pooling %q cannot be written into the graph (mean or cls)", so.Pooling)
	}
	if so.Normalize {
		b.constF32("const_min_norm", 1e-12)
		ss := b.node("normalize/Mul", "Mul", []string{pooled, pooled})
		ss = b.node("normalize/ReduceSum", "ReduceSum", []string{ss, "const_axis_1"}, intAttr("keepdims", 1))
		ss = b.node("normalize/Sqrt", "Sqrt", []string{ss})
		ss = b.node("normalize/Max", "Max", []string{ss, "const_min_norm"})
		pooled = b.node("normalize/Div", "Div", []string{pooled, ss})
	}
	b.rename(pooled, onnx.SentenceEmbedding)
	g.Outputs = append(g.Outputs, &onnx.ValueInfo{Name: onnx.SentenceEmbedding, ElemType: onnx.Float, Dims: []onnx.Dim{{Param: "batch"}, {Value: int64(h)}}})
	return nil
}

// relativeBucketsTable names the int64 initializer of MPNet's
// relative-position buckets in exported graphs.
const relativeBucketsTable = "relative_position_buckets"

// activation applies the feed-forward activation act to f and returns
// the result's name.
func (b *builder) activation(p, f, act string) string {
	switch act {
	case "relu":
		return b.node(p+"relu/Relu", "Relu", []string{f})
	case "gelu_new", "gelu_pytorch_tanh":
		// x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
		x3 := b.node(p+"gelu/Mul_cube", "Mul", []string{f, f})
		x3 = b.node(p+"gelu/Mul_cube_1", "Mul", []string{x3, f})
		t := b.node(p+"gelu/Mul_kappa", "Mul", []string{x3, "const_gelu_kappa"})
		t = b.node(p+"gelu/Add_inner", "Add", []string{f, t})
		t = b.node(p+"gelu/Mul_beta", "Mul", []string{t, "const_gelu_beta"})
		t = b.node(p+"gelu/Tanh", "Tanh", []string{t})
		t = b.node(p+"gelu/Add", "Add", []string{t, "const_one"})
		t = b.node(p+"gelu/Mul", "Mul", []string{f, t})
		return b.node(p+"gelu/Mul_1", "Mul", []string{t, "const_half"})
	}
	// GELU(x) = x * (1 + erf(x / sqrt 2)) / 2.
	e := b.node(p+"gelu/Div", "Div", []string{f, "const_sqrt2"})
	e = b.node(p+"gelu/Erf", "Erf", []string{e})
	e = b.node(p+"gelu/Add", "Add", []string{e, "const_one"})
	e = b.node(p+"gelu/Mul", "Mul", []string{f, e})
	return b.node(p+"gelu/Mul_1", "Mul", []string{e, "const_half"})
}

// WriteONNX exports the model as ExportONNX does and writes it to path.
func WriteONNX(path string, set tensor.Set, cfg modelfiles.Config, opt ONNXOptions) error {
	m, err := ExportONNX(set, cfg, opt)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, m.Marshal(), 0o644); err != nil {
		return fmt.Errorf("writing ONNX model: %w", err)
	}
	return nil
}

// irVersion returns the ONNX IR version released with an opset.
func irVersion(opset int) int64 {
	switch {
	case opset <= 15:
		return 7
	case opset <= 18:
		return 8
	case opset <= 20:
		return 9
	}
	return 10
}

// builder appends nodes and initializers to a graph.
type builder struct {
	graph onnx.Graph
	opset int
	set   tensor.Set
	eps   float32
}

func (b *builder) g() *onnx.Graph { return &b.graph }

// node appends a node whose single output is named after the node, and
// returns that output's name.
func (b *builder) node(name, op string, inputs []string, attrs ...*onnx.Attribute) string {
	return b.nodeOut(name, op, inputs, name, attrs...)
}

func (b *builder) nodeOut(name, op string, inputs []string, out string, attrs ...*onnx.Attribute) string {
	b.graph.Nodes = append(b.graph.Nodes, &onnx.Node{Name: name, OpType: op, Inputs: inputs, Outputs: []string{out}, Attrs: attrs})
	return out
}

// rename renames the output of the node that produced value.
func (b *builder) rename(value, to string) {
	for _, n := range b.graph.Nodes {
		for i, o := range n.Outputs {
			if o == value {
				n.Outputs[i] = to
			}
		}
		for i, in := range n.Inputs {
			if in == value {
				n.Inputs[i] = to
			}
		}
	}
}

// init adds the weight called name from the set as an initializer of the
// same name and returns the name.
func (b *builder) init(name string) string {
	t := b.set[name]
	b.addFloat(name, t.Shape, t.Data)
	return name
}

func (b *builder) addFloat(name string, shape []int, data []float32) {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	dims := make([]int64, len(shape))
	for i, d := range shape {
		dims[i] = int64(d)
	}
	b.graph.Initializers = append(b.graph.Initializers, &onnx.Tensor{Name: name, DataType: onnx.Float, Dims: dims, RawData: raw})
}

func (b *builder) constF32(name string, v float32) { b.addFloat(name, nil, []float32{v}) }

func (b *builder) constI64(name string, dims []int64, values ...int64) {
	raw := make([]byte, 0, 8*len(values))
	for _, v := range values {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(v))
	}
	b.graph.Initializers = append(b.graph.Initializers, &onnx.Tensor{Name: name, DataType: onnx.Int64, Dims: dims, RawData: raw})
}

// linear applies the Hugging Face Linear layer called module (weight
// [out, in], bias [out]) as MatMul by the transposed weight, then Add.
func (b *builder) linear(name, x, module string) string {
	w := b.set[module+".weight"]
	out, in := w.Shape[0], w.Shape[1]
	t := make([]float32, len(w.Data))
	for o := 0; o < out; o++ {
		for i := 0; i < in; i++ {
			t[i*out+o] = w.Data[o*in+i]
		}
	}
	wt := module + ".weight_transposed"
	b.addFloat(wt, []int{in, out}, t)
	y := b.node(name+"/MatMul", "MatMul", []string{x, wt})
	return b.node(name+"/Add", "Add", []string{y, b.init(module + ".bias")})
}

// layerNorm normalises x over its last axis with the LayerNorm weights
// module.weight (scale) and module.bias.
func (b *builder) layerNorm(name, x, module string) string {
	gamma, beta := b.init(module+".weight"), b.init(module+".bias")
	if b.opset >= 17 {
		return b.node(name, "LayerNormalization", []string{x, gamma, beta}, intAttr("axis", -1), floatAttr("epsilon", b.eps))
	}
	mean := b.node(name+"/ReduceMean", "ReduceMean", []string{x}, intsAttr("axes", -1), intAttr("keepdims", 1))
	d := b.node(name+"/Sub", "Sub", []string{x, mean})
	sq := b.node(name+"/Pow", "Pow", []string{d, "const_two"})
	v := b.node(name+"/ReduceMean_1", "ReduceMean", []string{sq}, intsAttr("axes", -1), intAttr("keepdims", 1))
	v = b.node(name+"/Add", "Add", []string{v, "const_eps"})
	v = b.node(name+"/Sqrt", "Sqrt", []string{v})
	n := b.node(name+"/Div", "Div", []string{d, v})
	n = b.node(name+"/Mul", "Mul", []string{n, gamma})
	return b.node(name+"/Add_1", "Add", []string{n, beta})
}

func intAttr(name string, v int64) *onnx.Attribute {
	return &onnx.Attribute{Name: name, Type: onnx.AttrInt, I: v}
}

func intsAttr(name string, v ...int64) *onnx.Attribute {
	return &onnx.Attribute{Name: name, Type: onnx.AttrInts, Ints: v}
}

func floatAttr(name string, v float32) *onnx.Attribute {
	return &onnx.Attribute{Name: name, Type: onnx.AttrFloat, F: v}
}
