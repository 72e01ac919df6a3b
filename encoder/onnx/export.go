package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/tensor"
)

// Input and output names of a standard BERT encoder graph, as written by
// Hugging Face exports.
const (
	InputIDs        = "input_ids"
	AttentionMask   = "attention_mask"
	TokenTypeIDs    = "token_type_ids"
	LastHiddenState = "last_hidden_state"
	PoolerOutput    = "pooler_output"
)

// Opset bounds for Export. From opset 17 on, layer norms are written as
// LayerNormalization nodes; before it, as ReduceMean/Sub/Pow/Sqrt/Div.
const (
	MinExportOpset     = 14
	MaxExportOpset     = 21
	DefaultExportOpset = 14
)

// ExportOptions controls Export.
type ExportOptions struct {
	// Opset is the ONNX operator set version, MinExportOpset to
	// MaxExportOpset; 0 means DefaultExportOpset.
	Opset int
	// ProducerVersion is recorded in the file (for example dreval's
	// version).
	ProducerVersion string
}

// Export builds a standard BERT encoder graph from Hugging Face named
// weights (as read from safetensors) and cfg. The graph has the inputs
// input_ids, attention_mask and token_type_ids (int64 [batch, sequence])
// and the output last_hidden_state (float [batch, sequence, hidden]), plus
// pooler_output (float [batch, hidden]) when set holds pooler weights.
// Batch and sequence sizes are dynamic; all weights are float32
// initializers. Linear weights are stored transposed ([in, out]) as MatMul
// operands; ReadWeights transposes them back.
func Export(set tensor.Set, cfg bert.Config, opt ExportOptions) (*Model, error) {
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
	// Accept prefixed names ("bert.embeddings...") as package bert does.
	canon := tensor.Set{}
	for _, name := range set.Names() {
		c, ok := canonicalName(name)
		if !ok {
			if name == positionIDsBuffer || strings.HasSuffix(name, "."+positionIDsBuffer) {
				continue // a buffer of 0..max-1, not a weight
			}
			return nil, fmt.Errorf("tensor %q is not a BERT encoder weight; refusing to drop it from the export", name)
		}
		if _, dup := canon[c]; dup {
			return nil, fmt.Errorf("tensor %q is present twice (with and without a prefix)", c)
		}
		canon[c] = set[name]
	}
	set = canon
	_, hasPooler := set[poolerDense+".weight"]
	sz := shapes{
		vocab: cfg.VocabSize, hidden: cfg.HiddenSize, layers: cfg.NumHiddenLayers,
		intermediate: cfg.IntermediateSize, positions: cfg.MaxPositionEmbeddings,
		types: cfg.TypeVocabSize, pooler: hasPooler,
	}
	want := sz.expected()
	for _, name := range set.Names() {
		if _, ok := want[name]; !ok {
			return nil, fmt.Errorf("tensor %q is not part of a BERT encoder with %d layers; refusing to drop it from the export", name, cfg.NumHiddenLayers)
		}
	}
	for name, shape := range want {
		if _, err := set.Get(name, shape...); err != nil {
			return nil, err
		}
	}

	b := &builder{opset: opset, set: set, eps: float32(cfg.LayerNormEps)}
	g := b.g()
	g.Name = "bert"
	for _, in := range []string{InputIDs, AttentionMask, TokenTypeIDs} {
		g.Inputs = append(g.Inputs, &ValueInfo{Name: in, ElemType: Int64, Dims: []Dim{{Param: "batch"}, {Param: "sequence"}}})
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

	// Embeddings: word + position + token type, then LayerNorm.
	words := b.node("embeddings/word/Gather", "Gather", []string{b.init(wordEmbeddings), InputIDs}, intAttr("axis", 0))
	shape := b.node("embeddings/Shape", "Shape", []string{InputIDs})
	seqLen := b.node("embeddings/seq_len/Gather", "Gather", []string{shape, "const_one_i64"}, intAttr("axis", 0))
	positions := b.node("embeddings/position_ids/Range", "Range", []string{"const_zero", seqLen, "const_one_i64"})
	pos := b.node("embeddings/position/Gather", "Gather", []string{b.init(positionEmbeddings), positions}, intAttr("axis", 0))
	types := b.node("embeddings/token_type/Gather", "Gather", []string{b.init(tokenTypeEmbeddings), TokenTypeIDs}, intAttr("axis", 0))
	x := b.node("embeddings/Add", "Add", []string{words, pos})
	x = b.node("embeddings/Add_1", "Add", []string{x, types})
	x = b.layerNorm("embeddings/LayerNorm", x, embeddingsLayerNorm)

	// Attention mask bias, [batch, 1, 1, sequence]: 0 where attended,
	// the lowest float where masked.
	mask := b.node("mask/Cast", "Cast", []string{AttentionMask}, intAttr("to", Float))
	mask = b.node("mask/Unsqueeze", "Unsqueeze", []string{mask, "const_mask_axes"})
	mask = b.node("mask/Sub", "Sub", []string{"const_one", mask})
	mask = b.node("mask/Mul", "Mul", []string{mask, "const_mask_min"})

	for i := 0; i < cfg.NumHiddenLayers; i++ {
		p := "layer" + strconv.Itoa(i) + "/"
		q := b.linear(p+"query", x, layerName(i, "attention.self.query"))
		k := b.linear(p+"key", x, layerName(i, "attention.self.key"))
		v := b.linear(p+"value", x, layerName(i, "attention.self.value"))
		q = b.node(p+"query/Reshape", "Reshape", []string{q, "const_split_heads"})
		q = b.node(p+"query/Transpose", "Transpose", []string{q}, intsAttr("perm", 0, 2, 1, 3))
		k = b.node(p+"key/Reshape", "Reshape", []string{k, "const_split_heads"})
		k = b.node(p+"key/Transpose", "Transpose", []string{k}, intsAttr("perm", 0, 2, 3, 1))
		v = b.node(p+"value/Reshape", "Reshape", []string{v, "const_split_heads"})
		v = b.node(p+"value/Transpose", "Transpose", []string{v}, intsAttr("perm", 0, 2, 1, 3))
		s := b.node(p+"scores/MatMul", "MatMul", []string{q, k})
		s = b.node(p+"scores/Div", "Div", []string{s, "const_sqrt_head_dim"})
		s = b.node(p+"scores/Add", "Add", []string{s, mask})
		s = b.node(p+"scores/Softmax", "Softmax", []string{s}, intAttr("axis", -1))
		c := b.node(p+"context/MatMul", "MatMul", []string{s, v})
		c = b.node(p+"context/Transpose", "Transpose", []string{c}, intsAttr("perm", 0, 2, 1, 3))
		c = b.node(p+"context/Reshape", "Reshape", []string{c, "const_merge_heads"})
		a := b.linear(p+"attention_output", c, layerName(i, "attention.output.dense"))
		a = b.node(p+"attention_output/residual/Add", "Add", []string{a, x})
		a = b.layerNorm(p+"attention_output/LayerNorm", a, layerName(i, "attention.output.LayerNorm"))

		f := b.linear(p+"intermediate", a, layerName(i, "intermediate.dense"))
		// GELU(x) = x * (1 + erf(x / sqrt 2)) / 2.
		e := b.node(p+"gelu/Div", "Div", []string{f, "const_sqrt2"})
		e = b.node(p+"gelu/Erf", "Erf", []string{e})
		e = b.node(p+"gelu/Add", "Add", []string{e, "const_one"})
		e = b.node(p+"gelu/Mul", "Mul", []string{f, e})
		e = b.node(p+"gelu/Mul_1", "Mul", []string{e, "const_half"})
		o := b.linear(p+"output", e, layerName(i, "output.dense"))
		o = b.node(p+"output/residual/Add", "Add", []string{o, a})
		x = b.layerNorm(p+"output/LayerNorm", o, layerName(i, "output.LayerNorm"))
	}
	b.rename(x, LastHiddenState)
	g.Outputs = append(g.Outputs, &ValueInfo{Name: LastHiddenState, ElemType: Float, Dims: []Dim{{Param: "batch"}, {Param: "sequence"}, {Value: int64(h)}}})

	if hasPooler {
		first := b.node("pooler/Gather", "Gather", []string{LastHiddenState, "const_zero"}, intAttr("axis", 1))
		pooled := b.linear("pooler/dense", first, poolerDense)
		b.nodeOut("pooler/Tanh", "Tanh", []string{pooled}, PoolerOutput)
		g.Outputs = append(g.Outputs, &ValueInfo{Name: PoolerOutput, ElemType: Float, Dims: []Dim{{Param: "batch"}, {Value: int64(h)}}})
	}
	return &Model{
		IRVersion:       irVersion(opset),
		ProducerName:    "dreval",
		ProducerVersion: opt.ProducerVersion,
		Opsets:          map[string]int64{"": int64(opset)},
		Graph:           g,
	}, nil
}

// WriteFile exports the model as Export does and writes it to path.
func WriteFile(path string, set tensor.Set, cfg bert.Config, opt ExportOptions) error {
	m, err := Export(set, cfg, opt)
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
	graph Graph
	opset int
	set   tensor.Set
	eps   float32
}

func (b *builder) g() *Graph { return &b.graph }

// node appends a node whose single output is named after the node, and
// returns that output's name.
func (b *builder) node(name, op string, inputs []string, attrs ...*Attribute) string {
	return b.nodeOut(name, op, inputs, name, attrs...)
}

func (b *builder) nodeOut(name, op string, inputs []string, out string, attrs ...*Attribute) string {
	b.graph.Nodes = append(b.graph.Nodes, &Node{Name: name, OpType: op, Inputs: inputs, Outputs: []string{out}, Attrs: attrs})
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
	b.graph.Initializers = append(b.graph.Initializers, &Tensor{Name: name, DataType: Float, Dims: dims, RawData: raw})
}

func (b *builder) constF32(name string, v float32) { b.addFloat(name, nil, []float32{v}) }

func (b *builder) constI64(name string, dims []int64, values ...int64) {
	raw := make([]byte, 0, 8*len(values))
	for _, v := range values {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(v))
	}
	b.graph.Initializers = append(b.graph.Initializers, &Tensor{Name: name, DataType: Int64, Dims: dims, RawData: raw})
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

func intAttr(name string, v int64) *Attribute { return &Attribute{Name: name, Type: AttrInt, I: v} }

func intsAttr(name string, v ...int64) *Attribute {
	return &Attribute{Name: name, Type: AttrInts, Ints: v}
}

func floatAttr(name string, v float32) *Attribute {
	return &Attribute{Name: name, Type: AttrFloat, F: v}
}

// sortedNames returns the keys of m in order.
func sortedNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
