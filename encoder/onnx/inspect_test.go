package onnx

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/float16"
)

// exported returns a decoded export of tinyConfig (with BERT's pooler, or,
// with sentence, pooling inside itself), for the cases to edit.
func exported(t testing.TB, sentence bool) *Model {
	t.Helper()
	opt := ExportOptions{Opset: 14}
	if sentence {
		opt.Sentence = &SentenceOutput{Pooling: "mean", Normalize: true, Tokens: true}
	}
	m, err := Export(randomWeights(tinyConfig, !sentence, 3), tinyConfig, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Through the codec, as Inspect reads files.
	m, err = Decode(m.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func valueNames(vs []Value) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.Name+":"+string(v.Role)+string(v.Kind))
	}
	return strings.Join(s, ",")
}

func TestInspect(t *testing.T) {
	dims := []Dim{{Param: "batch"}, {Param: "sequence"}}
	tests := []struct {
		name     string
		sentence bool
		edit     func(m *Model)
		inputs   string // name:role, ...
		outputs  string // name:kind, ...
		describe string
		errPart  string
	}{
		{name: "plain export", inputs: "input_ids:input_ids,attention_mask:attention_mask,token_type_ids:token_type_ids",
			outputs: "last_hidden_state:per-token,pooler_output:pooler", describe: "float32"},
		{name: "sentence-transformers export", sentence: true, inputs: "input_ids:input_ids,attention_mask:attention_mask,token_type_ids:token_type_ids",
			outputs: "token_embeddings:per-token,sentence_embedding:sentence", describe: "float32"},
		{name: "int32 position ids, no token types", edit: func(m *Model) {
			g := m.Graph
			g.Inputs = slices.DeleteFunc(g.Inputs, func(v *ValueInfo) bool { return v.Name == TokenTypeIDs })
			g.Inputs = append(g.Inputs, &ValueInfo{Name: PositionIDs, ElemType: Int32, Dims: dims})
		}, inputs: "input_ids:input_ids,attention_mask:attention_mask,position_ids:position_ids", outputs: "last_hidden_state:per-token,pooler_output:pooler", describe: "float32"},
		{name: "one unnamed 2-D output is a sentence embedding", edit: func(m *Model) {
			m.Graph.Outputs = []*ValueInfo{{Name: "embeddings", ElemType: Float16, Dims: []Dim{{Param: "batch"}, {Value: 8}}}}
		}, inputs: "input_ids:input_ids,attention_mask:attention_mask,token_type_ids:token_type_ids", outputs: "embeddings:sentence", describe: "float16"},
		{name: "fused and quantized operators", edit: func(m *Model) {
			m.Graph.Nodes = append(m.Graph.Nodes,
				&Node{Name: "a", OpType: "Attention", Domain: "com.microsoft"},
				&Node{Name: "q", OpType: "MatMulInteger"},
				&Node{Name: "d", OpType: "DynamicQuantizeLinear", Domain: "ai.onnx"})
		}, inputs: "input_ids:input_ids,attention_mask:attention_mask,token_type_ids:token_type_ids", outputs: "last_hidden_state:per-token,pooler_output:pooler",
			describe: "int8-quantized (DynamicQuantizeLinear, MatMulInteger), fused operators com.microsoft:Attention"},
		{name: "4-bit weights", edit: func(m *Model) {
			m.Graph.Nodes = append(m.Graph.Nodes, &Node{Name: "q", OpType: "MatMulNBits", Domain: "com.microsoft"})
		}, inputs: "input_ids:input_ids,attention_mask:attention_mask,token_type_ids:token_type_ids", outputs: "last_hidden_state:per-token,pooler_output:pooler",
			describe: "4-bit quantized (com.microsoft:MatMulNBits)"},
		{name: "float16 cast", edit: func(m *Model) {
			m.Graph.Nodes = append(m.Graph.Nodes, &Node{Name: "c", OpType: "Cast", Attrs: []*Attribute{{Name: "to", Type: AttrInt, I: Float16}}})
		}, inputs: "input_ids:input_ids,attention_mask:attention_mask,token_type_ids:token_type_ids", outputs: "last_hidden_state:per-token,pooler_output:pooler", describe: "float16"},
		{name: "an input no encoder is fed", edit: func(m *Model) {
			m.Graph.Inputs = append(m.Graph.Inputs, &ValueInfo{Name: "past_key_values.0.key", ElemType: Float})
		}, errPart: `graph input "past_key_values.0.key" is not one an encoder is fed (input_ids, attention_mask, token_type_ids, position_ids)`},
		{name: "no input ids", edit: func(m *Model) {
			m.Graph.Inputs = slices.DeleteFunc(m.Graph.Inputs, func(v *ValueInfo) bool { return v.Name == InputIDs })
		}, errPart: `the graph has no "input_ids" input`},
		{name: "float input ids", edit: func(m *Model) { m.Graph.Inputs[0].ElemType = Float },
			errPart: `graph input "input_ids" has element type FLOAT, expected INT64 or INT32`},
		{name: "rank-3 mask", edit: func(m *Model) { m.Graph.Inputs[1].Dims = append(dims, Dim{Value: 1}) },
			errPart: `graph input "attention_mask" has rank 3, expected 2 ([batch, sequence])`},
		{name: "integer hidden states", edit: func(m *Model) { m.Graph.Outputs[0].ElemType = Int64 },
			errPart: `graph output "last_hidden_state" has element type INT64, expected FLOAT or FLOAT16`},
		{name: "2-D hidden states", edit: func(m *Model) { m.Graph.Outputs[0].Dims = dims },
			errPart: `graph output "last_hidden_state" has rank 2, expected 3 ([batch, sequence, hidden])`},
		{name: "no embedding output", edit: func(m *Model) {
			m.Graph.Outputs = []*ValueInfo{{Name: "logits", ElemType: Float, Dims: append(dims, Dim{Value: 1}, Dim{Value: 1})}, {Name: "other", ElemType: Float}}
		}, errPart: "the graph has no embedding output (it gives logits, other; expected last_hidden_state, token_embeddings, sentence_embedding or pooler_output)"},
		{name: "no default opset", edit: func(m *Model) { m.Opsets = map[string]int64{"com.microsoft": 1} },
			errPart: "imports no version of the default ONNX operator set"},
	}
	for _, tt := range tests {
		m := exported(t, tt.sentence)
		if tt.edit != nil {
			tt.edit(m)
		}
		g, err := Inspect(m.Marshal())
		if tt.errPart != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errPart) {
				t.Errorf("%s: err %v, want %q", tt.name, err, tt.errPart)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := valueNames(g.Inputs); got != tt.inputs {
			t.Errorf("%s: inputs %s, want %s", tt.name, got, tt.inputs)
		}
		if got := valueNames(g.Outputs); got != tt.outputs {
			t.Errorf("%s: outputs %s, want %s", tt.name, got, tt.outputs)
		}
		if got := g.Describe(); got != tt.describe {
			t.Errorf("%s: Describe() = %q, want %q", tt.name, got, tt.describe)
		}
		if g.Vocab != tinyConfig.VocabSize || g.Opset != 14 {
			t.Errorf("%s: vocab %d, opset %d; want %d, 14", tt.name, g.Vocab, g.Opset, tinyConfig.VocabSize)
		}
	}
	v := Value{Name: LastHiddenState, ElemType: Float16, Dims: []Dim{{Param: "batch"}, {}, {Value: 384}}}
	if got := v.String(); got != "last_hidden_state FLOAT16 [batch ? 384]" {
		t.Errorf("String() = %q", got)
	}
}

func TestChooseOutput(t *testing.T) {
	plain, err := InspectModel(exported(t, false))
	if err != nil {
		t.Fatal(err)
	}
	st, err := InspectModel(exported(t, true))
	if err != nil {
		t.Fatal(err)
	}
	sentOnly := *st
	sentOnly.Outputs = []Value{*st.Output(Sentence)}
	poolerOnly := *plain
	poolerOnly.Outputs = []Value{*plain.Output(Pooler)}
	tests := []struct {
		g              *GraphInfo
		pooler, tokens bool
		want, errPart  string
	}{
		{plain, false, false, LastHiddenState, ""},
		{plain, true, false, PoolerOutput, ""},
		{st, false, true, TokenEmbeddings, ""},
		{&sentOnly, false, false, SentenceEmbedding, ""},
		{&sentOnly, false, true, "", "the graph gives only a sentence embedding pooled inside it (sentence_embedding), so the pooling asked for cannot be applied"},
		{&poolerOnly, false, false, "", `the graph gives only BERT's pooler output (pooler_output), but the model pools otherwise`},
	}
	for i, tt := range tests {
		v, err := tt.g.ChooseOutput(tt.pooler, tt.tokens)
		if tt.errPart != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errPart) {
				t.Errorf("case %d: %v, %v; want error %q", i, v, err, tt.errPart)
			}
			continue
		}
		if err != nil || v.Name != tt.want {
			t.Errorf("case %d: %v, %v; want %s", i, v, err, tt.want)
		}
	}
}

// TestReadWeightsSaysUseORT checks that the pure-Go reader's refusal of a
// graph ONNX Runtime can run says to use the ort engine, and keeps what it
// refused.
func TestReadWeightsSaysUseORT(t *testing.T) {
	m := exported(t, false)
	m.Graph.Nodes = append(m.Graph.Nodes, &Node{Name: "fused", OpType: "SkipLayerNormalization", Domain: "com.microsoft", Inputs: []string{LastHiddenState}, Outputs: []string{"x"}})
	_, _, err := ReadWeights(m.Marshal())
	var np *NotPureGoError
	if !errors.As(err, &np) || !strings.Contains(err.Error(), "the pure-Go engine cannot run this float32, fused operators com.microsoft:SkipLayerNormalization graph (") ||
		!strings.HasSuffix(err.Error(), "; use the ort engine (-engine ort), which runs it with ONNX Runtime") || np.Graph == nil || np.Err == nil {
		t.Fatalf("ReadWeights of a fused graph: %v", err)
	}
	// What Inspect refuses too stays the reader's own error.
	m.Graph.Inputs = m.Graph.Inputs[1:]
	if _, _, err := ReadWeights(m.Marshal()); err == nil || errors.As(err, &np) {
		t.Errorf("ReadWeights of a graph without input_ids: %v, want the reader's error", err)
	}
}

// FuzzInspect feeds arbitrary bytes to Inspect: it must describe a graph
// or return an error, never panic, and what it describes has input ids, an
// embedding output the engines can choose for some pooling (a graph that
// gives only pooler_output serves pooling "pooler"), and a precision.
func FuzzInspect(f *testing.F) {
	cfg := tinyConfig
	cfg.VocabSize, cfg.HiddenSize, cfg.NumHiddenLayers, cfg.NumAttentionHeads, cfg.IntermediateSize, cfg.MaxPositionEmbeddings = 3, 2, 1, 1, 2, 2
	for _, o := range []ExportOptions{{Opset: 17}, {Opset: 14, Sentence: &SentenceOutput{Pooling: "cls", Normalize: true}}} {
		m, err := Export(randomWeights(cfg, o.Sentence == nil, 5), cfg, o)
		if err != nil {
			f.Fatal(err)
		}
		b := m.Marshal()
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte{0x08, 0x07, 0x3a, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Inspect(data)
		if err != nil {
			return
		}
		if g.Input(RoleInputIDs) == nil {
			t.Fatalf("described a graph without input ids: %+v", g)
		}
		if _, err := g.ChooseOutput(true, false); err != nil {
			t.Fatalf("described a graph without an output to read: %v", err)
		}
		switch g.Precision {
		case PrecisionFP32, PrecisionFP16, PrecisionInt8, PrecisionInt4:
		default:
			t.Fatalf("precision %q", g.Precision)
		}
		_ = g.Describe()
	})
}

func TestFloatToHalf(t *testing.T) {
	// Every half but NaNs survives the round trip exactly.
	for h := 0; h < 1<<16; h++ {
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			continue
		}
		if got := float16.FromFloat32(float16.ToFloat32(uint16(h))); got != uint16(h) {
			t.Fatalf("float16.FromFloat32(float16.ToFloat32(%#04x)) = %#04x", h, got)
		}
	}
	for _, tt := range []struct {
		f    float32
		want uint16
	}{
		{1 + 1.0/2048, 0x3c00},        // a tie, to the even 1.0
		{1 + 3.0/2048, 0x3c02},        // a tie, to the even 1+2/1024
		{1 + 1.0/2048 + 1e-7, 0x3c01}, // above the tie
		{65504, 0x7bff},               // the largest half
		{65519.99, 0x7bff},            // below the midpoint to infinity
		{65520, 0x7c00},               // the midpoint, to the even infinity
		{-1e30, 0xfc00},               // beyond the range
		{5.9604645e-08, 0x0001},       // the smallest subnormal
		{2.9802322e-08, 0x0000},       // half of it: a tie, to the even zero
		{2.9802326e-08, 0x0001},       // just above
		{1023.5 / (1 << 24), 0x0400},  // between the largest subnormal and the smallest normal: a tie, to the even normal
		{1023.0 / (1 << 24), 0x03ff},  // the largest subnormal
	} {
		if got := float16.FromFloat32(tt.f); got != tt.want {
			t.Errorf("float16.FromFloat32(%g) = %#04x, want %#04x", tt.f, got, tt.want)
		}
	}
	if got := float16.FromFloat32(float32(math.NaN())); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
		t.Errorf("float16.FromFloat32(NaN) = %#04x, not a NaN", got)
	}
}
