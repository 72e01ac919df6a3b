package onnx

import (
	"fmt"
	"slices"
	"strings"
)

// This file is the graph inspection every ONNX Runtime engine shares: the
// native one (package ort) and the browser's (onnxruntime-web, driven from
// Go/wasm). Inspect reads what an encoder graph declares — its inputs and
// their roles, its outputs and what each one is, its element types, whether
// it is quantized or computes in float16 — without checking how it
// computes, so that any export ONNX Runtime can run is described, not only
// the plain graphs ReadWeights (the pure-Go engine) accepts. Engines then
// feed the inputs it lists, each in its element type, and read the output
// ChooseOutput picks. It is pure Go and runs under js/wasm.

// Input and output names besides those of the plain export (export.go):
// the position ids some exports take, and the outputs of
// sentence-transformers graphs as optimum and Transformers.js write them.
const (
	PositionIDs       = "position_ids"
	TokenEmbeddings   = "token_embeddings"
	SentenceEmbedding = "sentence_embedding"
)

// Role is what an engine feeds a graph input.
type Role string

// The input roles. Every encoder graph takes input ids; the others are
// optional, and an engine feeds each one the graph declares.
const (
	// RoleInputIDs: the token ids, padded (with the model's padding id).
	RoleInputIDs Role = InputIDs
	// RoleAttentionMask: 1 for a token, 0 for padding.
	RoleAttentionMask Role = AttentionMask
	// RoleTokenTypeIDs: the segment of each token; 0 for a single text.
	RoleTokenTypeIDs Role = TokenTypeIDs
	// RolePositionIDs: the position of each token: 0, 1, 2, ... (BERT,
	// DistilBERT), or counted from the padding index over the tokens
	// that are not padding (RoBERTa, MPNet: padding_idx+1, +2, ..., and
	// padding_idx for padding), as the model's config says
	// (modelfiles.Config.PositionOffset).
	RolePositionIDs Role = PositionIDs
)

// Kind is what a graph output holds.
type Kind string

// The output kinds.
const (
	// PerToken: a vector per token, [batch, sequence, hidden]: the
	// transformer's last hidden state (last_hidden_state, or
	// token_embeddings in sentence-transformers exports). The engine runs
	// the model folder's head (pooling, dense layers, normalisation) on
	// it.
	PerToken Kind = "per-token"
	// Sentence: one vector per text, [batch, dim], pooled inside the graph
	// (sentence_embedding): used as it is.
	Sentence Kind = "sentence"
	// Pooler: BERT's pooler, [batch, hidden]: the first token's state
	// through a dense layer and tanh (pooler_output); what pooling
	// "pooler" (supervised SimCSE) embeds with.
	Pooler Kind = "pooler"
)

// Value is a graph input or output as Inspect describes it.
type Value struct {
	Name string
	// ElemType is the element type (Int64, Int32, Float, Float16, ...).
	ElemType int
	// Dims are its dimensions as the graph declares them (nil: rank
	// unknown); a Dim with neither Value nor Param is unknown.
	Dims []Dim
	// Role is what an input is fed with (inputs only).
	Role Role
	// Kind is what an output holds; "" for an output that is not an
	// embedding (logits, say), which engines do not read.
	Kind Kind
}

// Width returns the last dimension when the graph states it, else 0.
func (v Value) Width() int {
	if len(v.Dims) == 0 {
		return 0
	}
	return int(max(v.Dims[len(v.Dims)-1].Value, 0))
}

// String describes the value: "last_hidden_state FLOAT16 [batch sequence
// 384]".
func (v Value) String() string {
	s := v.Name + " " + DataTypeName(v.ElemType)
	if v.Dims != nil {
		ds := make([]string, len(v.Dims))
		for i, d := range v.Dims {
			switch {
			case d.Value > 0:
				ds[i] = fmt.Sprint(d.Value)
			case d.Param != "":
				ds[i] = d.Param
			default:
				ds[i] = "?"
			}
		}
		s += " [" + strings.Join(ds, " ") + "]"
	}
	return s
}

// The precisions a graph computes in (GraphInfo.Precision).
const (
	PrecisionFP32 = "fp32"
	PrecisionFP16 = "fp16"
	PrecisionInt8 = "int8"
	PrecisionInt4 = "int4"
)

// GraphInfo describes an encoder graph: what Inspect reads. Its fields are
// a stable API shared by the native and the browser engines.
type GraphInfo struct {
	// Opset is the version of the default ONNX operator set; Producer
	// the producer's name and version.
	Opset    int64
	Producer string
	// Inputs are the graph's inputs, in the graph's order (initializers
	// listed as inputs left out), each with its Role; Outputs its
	// outputs, each with its Kind.
	Inputs, Outputs []Value
	// Precision is how the graph computes its matrix products:
	// PrecisionInt4 (4-bit weights: MatMulNBits or INT4/UINT4
	// initializers), PrecisionInt8 (quantized: integer matrix products,
	// quantize/dequantize operators or 8-bit weight tables),
	// PrecisionFP16 (float16 weights or values) or PrecisionFP32.
	Precision string
	// Quantized reports integer weights or quantization operators (int8
	// or int4); Float16 reports float16 weights, casts to float16, or
	// float16 inputs or outputs. A graph may be both (4-bit weights and
	// float16 activations).
	Quantized, Float16 bool
	// QuantOps are the quantization operators the graph uses, sorted
	// ("DynamicQuantizeLinear", "MatMulInteger", "com.microsoft:MatMulNBits").
	QuantOps []string
	// FusedOps are the operators outside the default ONNX domain (ONNX
	// Runtime's fusions, such as com.microsoft:Attention), sorted.
	FusedOps []string
	// Vocab is the row count of the word-embedding table input_ids
	// indexes (float or quantized), 0 when the graph computes it otherwise.
	Vocab int
	// ExternalData reports tensors kept in files beside the graph (a model
	// over 2 GB): the graph then loads from its path, not from its bytes.
	ExternalData bool
}

// Input returns the input of role r, or nil when the graph takes none.
func (g *GraphInfo) Input(r Role) *Value {
	for i := range g.Inputs {
		if g.Inputs[i].Role == r {
			return &g.Inputs[i]
		}
	}
	return nil
}

// Output returns the first output of kind k, or nil.
func (g *GraphInfo) Output(k Kind) *Value {
	for i := range g.Outputs {
		if g.Outputs[i].Kind == k {
			return &g.Outputs[i]
		}
	}
	return nil
}

// ChooseOutput returns the output an engine reads, for a model folder
// whose head pools by pooler (pooling "pooler": BERT's pooler) or not, and
// that asks for a pooling of its own when tokens is set (an explicit
// pooling option, or a prompt left out of the pooling). In order:
//   - with pooler, the graph's pooler_output, used as it is;
//   - the per-token output (last_hidden_state, token_embeddings): the
//     engine runs the folder's head on it (and, for pooler, BERT's pooler
//     weights from the folder's weights file);
//   - unless tokens is set, the sentence embedding (sentence_embedding),
//     used as it is.
//
// Anything else is an error that says what the graph gives and what was
// asked for.
func (g *GraphInfo) ChooseOutput(pooler, tokens bool) (Value, error) {
	if pooler {
		if v := g.Output(Pooler); v != nil {
			return *v, nil
		}
	}
	if v := g.Output(PerToken); v != nil {
		return *v, nil
	}
	gives := g.outputList()
	if v := g.Output(Sentence); v != nil {
		if !tokens {
			return *v, nil
		}
		return Value{}, fmt.Errorf("the graph gives only a sentence embedding pooled inside it (%s), so the pooling asked for cannot be applied: that needs a per-token output (%s or %s)", gives, LastHiddenState, TokenEmbeddings)
	}
	if v := g.Output(Pooler); v != nil {
		return Value{}, fmt.Errorf("the graph gives only BERT's pooler output (%s), but the model pools otherwise: that needs a per-token output (%s or %s), or pooling \"pooler\"", v.Name, LastHiddenState, TokenEmbeddings)
	}
	return Value{}, fmt.Errorf("the graph has no embedding output (it gives %s; expected %s, %s, %s or %s)", gives, LastHiddenState, TokenEmbeddings, SentenceEmbedding, PoolerOutput)
}

func (g *GraphInfo) outputList() string {
	names := make([]string, len(g.Outputs))
	for i, o := range g.Outputs {
		names[i] = o.Name
	}
	return strings.Join(names, ", ")
}

// Describe says in a few words what the graph is: "int8-quantized
// (DynamicQuantizeLinear, MatMulInteger)", "float16", "float32", with its
// fused operators if any.
func (g *GraphInfo) Describe() string {
	var s string
	switch g.Precision {
	case PrecisionInt4:
		s = "4-bit quantized"
	case PrecisionInt8:
		s = "int8-quantized"
	case PrecisionFP16:
		s = "float16"
	default:
		s = "float32"
	}
	if g.Quantized && g.Float16 {
		s += ", float16"
	}
	if len(g.QuantOps) > 0 {
		s += " (" + strings.Join(g.QuantOps, ", ") + ")"
	}
	if len(g.FusedOps) > 0 {
		s += ", fused operators " + strings.Join(g.FusedOps, ", ")
	}
	return s
}

// quantOps are the operators of quantized graphs, by domain:op ("" the
// default domain).
var quantOps = map[string]bool{
	"DynamicQuantizeLinear": true, "MatMulInteger": true, "QLinearMatMul": true,
	"QuantizeLinear": true, "DequantizeLinear": true, "ConvInteger": true, "QLinearConv": true,
	"com.microsoft:DynamicQuantizeMatMul": true, "com.microsoft:MatMulIntegerToFloat": true,
	"com.microsoft:QAttention": true, "com.microsoft:QEmbedLayerNormalization": true,
	"com.microsoft:QGemm": true, "com.microsoft:QuantizeLinear": true, "com.microsoft:DequantizeLinear": true,
	"com.microsoft:DynamicQuantizeLSTM": true, "com.microsoft:QOrderedMatMul": true,
	"com.microsoft:MatMulNBits": true, "com.microsoft:MatMulBnb4": true, "com.microsoft:GatherBlockQuantized": true,
}

// int4Ops are the quantization operators with 4-bit weights.
var int4Ops = map[string]bool{"com.microsoft:MatMulNBits": true, "com.microsoft:MatMulBnb4": true, "com.microsoft:GatherBlockQuantized": true}

// The 4-bit element types (TensorProto.DataType).
const (
	Uint4 = 21
	Int4  = 22
)

// Inspect decodes an .onnx file and describes the encoder graph in it:
// its inputs (each given a Role by its name: input_ids, attention_mask,
// token_type_ids, position_ids), its outputs (each given a Kind:
// last_hidden_state and token_embeddings are per token, sentence_embedding
// a sentence, pooler_output BERT's pooler; another output is taken by its
// rank when it is the graph's only one), its precision and operators.
//
// It refuses what no encoder engine can feed or read: a graph without
// input_ids, an input it cannot fill (past_key_values, pixel_values, ...),
// inputs that are not int64 or int32 [batch, sequence] tensors, no
// embedding output, or embedding outputs that are not float32 or float16
// of the rank of their kind. It does not check how the graph computes:
// ONNX Runtime does when it loads it.
func Inspect(data []byte) (*GraphInfo, error) {
	m, err := Decode(data)
	if err != nil {
		return nil, err
	}
	return InspectModel(m)
}

// InspectModel is Inspect of a decoded model.
func InspectModel(m *Model) (*GraphInfo, error) {
	g := m.Graph
	info := &GraphInfo{Producer: strings.TrimSpace(m.ProducerName + " " + m.ProducerVersion)}
	opset, ok := m.Opsets[""]
	if !ok {
		return nil, fmt.Errorf("the model imports no version of the default ONNX operator set")
	}
	info.Opset = opset

	inits := map[string]*Tensor{}
	for _, t := range g.Initializers {
		inits[t.Name] = t
		if t.External {
			info.ExternalData = true
		}
	}
	seen := map[string]bool{}
	for _, in := range g.Inputs {
		if inits[in.Name] != nil {
			continue // IR < 4 lists initializers among the inputs
		}
		r := Role(in.Name)
		switch r {
		case RoleInputIDs, RoleAttentionMask, RoleTokenTypeIDs, RolePositionIDs:
		default:
			return nil, fmt.Errorf("graph input %q is not one an encoder is fed (%s, %s, %s, %s)", in.Name, InputIDs, AttentionMask, TokenTypeIDs, PositionIDs)
		}
		if seen[in.Name] {
			return nil, fmt.Errorf("graph input %q is listed twice", in.Name)
		}
		seen[in.Name] = true
		if in.ElemType != Int64 && in.ElemType != Int32 {
			return nil, fmt.Errorf("graph input %q has element type %s, expected INT64 or INT32", in.Name, DataTypeName(in.ElemType))
		}
		if in.Dims != nil && len(in.Dims) != 2 {
			return nil, fmt.Errorf("graph input %q has rank %d, expected 2 ([batch, sequence])", in.Name, len(in.Dims))
		}
		info.Inputs = append(info.Inputs, Value{Name: in.Name, ElemType: in.ElemType, Dims: in.Dims, Role: r})
	}
	if !seen[InputIDs] {
		return nil, fmt.Errorf("the graph has no %q input", InputIDs)
	}

	embeddings := 0
	for _, out := range g.Outputs {
		v := Value{Name: out.Name, ElemType: out.ElemType, Dims: out.Dims}
		switch out.Name {
		case LastHiddenState, TokenEmbeddings:
			v.Kind = PerToken
		case SentenceEmbedding:
			v.Kind = Sentence
		case PoolerOutput:
			v.Kind = Pooler
		default:
			if len(g.Outputs) == 1 && (out.ElemType == Float || out.ElemType == Float16) {
				switch len(out.Dims) {
				case 3:
					v.Kind = PerToken
				case 2:
					v.Kind = Sentence
				}
			}
		}
		if v.Kind != "" {
			if out.ElemType != Float && out.ElemType != Float16 {
				return nil, fmt.Errorf("graph output %q has element type %s, expected FLOAT or FLOAT16", out.Name, DataTypeName(out.ElemType))
			}
			rank := 2
			if v.Kind == PerToken {
				rank = 3
			}
			if out.Dims != nil && len(out.Dims) != rank {
				return nil, fmt.Errorf("graph output %q has rank %d, expected %d (%s)", out.Name, len(out.Dims), rank, map[int]string{2: "[batch, dim]", 3: "[batch, sequence, hidden]"}[rank])
			}
			embeddings++
		}
		if out.ElemType == Float16 {
			info.Float16 = true
		}
		info.Outputs = append(info.Outputs, v)
	}
	if embeddings == 0 {
		names := make([]string, len(g.Outputs))
		for i, o := range g.Outputs {
			names[i] = o.Name
		}
		return nil, fmt.Errorf("the graph has no embedding output (it gives %s; expected %s, %s, %s or %s)", strings.Join(names, ", "), LastHiddenState, TokenEmbeddings, SentenceEmbedding, PoolerOutput)
	}

	quant, fused := map[string]bool{}, map[string]bool{}
	int4 := false
	for _, n := range g.Nodes {
		op := n.OpType
		if n.Domain != "" && n.Domain != "ai.onnx" {
			op = n.Domain + ":" + n.OpType
			fused[op] = true
		}
		if quantOps[op] {
			quant[op] = true
			int4 = int4 || int4Ops[op]
		}
		if n.OpType == "Cast" && n.AttrInt("to", 0) == Float16 {
			info.Float16 = true
		}
	}
	for _, t := range g.Initializers {
		if len(t.Dims) < 2 {
			continue // scales, zero points, constants
		}
		switch t.DataType {
		case Float16:
			info.Float16 = true
		case Int8, Uint8:
			info.Quantized = true
		case Int4, Uint4:
			info.Quantized, int4 = true, true
		}
	}
	info.Quantized = info.Quantized || len(quant) > 0
	info.QuantOps = sortedNames(quant)
	for op := range quant {
		delete(fused, op)
	}
	info.FusedOps = sortedNames(fused)
	switch {
	case int4:
		info.Precision = PrecisionInt4
	case info.Quantized:
		info.Precision = PrecisionInt8
	case info.Float16:
		info.Precision = PrecisionFP16
	default:
		info.Precision = PrecisionFP32
	}
	info.Vocab = vocabRows(g, inits)
	return info, nil
}

// vocabRows returns the row count of the table input_ids is gathered from:
// an initializer read by a Gather whose indices are input_ids (or a Cast
// of it), directly or through a DequantizeLinear; 0 when there is none.
func vocabRows(g *Graph, inits map[string]*Tensor) int {
	ids := map[string]bool{InputIDs: true}
	producer := map[string]*Node{}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			producer[o] = n
		}
		if n.OpType == "Cast" && len(n.Inputs) == 1 && ids[n.Inputs[0]] {
			for _, o := range n.Outputs {
				ids[o] = true
			}
		}
	}
	for _, n := range g.Nodes {
		if !slices.Contains([]string{"Gather", "GatherBlockQuantized"}, n.OpType) || len(n.Inputs) < 2 || !ids[n.Inputs[1]] {
			continue
		}
		table := n.Inputs[0]
		if p := producer[table]; p != nil && p.OpType == "DequantizeLinear" && len(p.Inputs) > 0 {
			table = p.Inputs[0]
		}
		if t := inits[table]; t != nil && len(t.Dims) == 2 && t.Dims[0] > 0 && t.Dims[0] <= 1<<30 {
			return int(t.Dims[0])
		}
	}
	return 0
}
