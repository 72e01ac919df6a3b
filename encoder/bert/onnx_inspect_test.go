package bert

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/onnx"
)

// exported returns a decoded export of onnxTinyConfig (with BERT's pooler, or,
// with sentence, pooling inside itself), for the cases to edit.
func exported(t testing.TB, sentence bool) *onnx.Model {
	t.Helper()
	opt := ONNXOptions{Opset: 14}
	if sentence {
		opt.Sentence = &SentenceOutput{Pooling: "mean", Normalize: true, Tokens: true}
	}
	m, err := ExportONNX(randomWeights(onnxTinyConfig, !sentence, 3), onnxTinyConfig, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Through the codec, as Inspect reads files.
	m, err = onnx.Decode(m.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func valueNames(vs []onnx.Value) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.Name+":"+string(v.Role)+string(v.Kind))
	}
	return strings.Join(s, ",")
}

func TestInspect(t *testing.T) {
	dims := []onnx.Dim{{Param: "batch"}, {Param: "sequence"}}
	tests := []struct {
		name     string
		sentence bool
		edit     func(m *onnx.Model)
		inputs   string // name:role, ...
		outputs  string // name:kind, ...
		describe string
		errPart  string
	}{
		{name: "plain export", inputs: "input_ids:input_ids,attention_mask:attention_mask,token_type_ids:token_type_ids",
			outputs: "last_hidden_state:per-token,pooler_output:pooler", describe: "float32"},
		{name: "sentence-transformers export", sentence: true, inputs: "input_ids:input_ids,attention_mask:attention_mask,token_type_ids:token_type_ids",
			outputs: "token_embeddings:per-token,sentence_embedding:sentence", describe: "float32"},
		{name: "int32 position ids, no token types", edit: func(m *onnx.Model) {
			g := m.Graph
			g.Inputs = slices.DeleteFunc(g.Inputs, func(v *onnx.ValueInfo) bool { return v.Name == onnx.TokenTypeIDs })
			g.Inputs = append(g.Inputs, &onnx.ValueInfo{Name: onnx.PositionIDs, ElemType: onnx.Int32, Dims: dims})
		}, inputs: "input_ids:input_ids,attention_mask:attention_mask,position_ids:position_ids", outputs: "last_hidden_state:per-token,pooler_output:pooler", describe: "float32"},
		{name: "one unnamed 2-D output is a sentence embedding", edit: func(m *onnx.Model) {
			m.Graph.Outputs = []*onnx.ValueInfo{{Name: "embeddings", ElemType: onnx.Float16, Dims: []onnx.Dim{{Param: "batch"}, {Value: 8}}}}
		}, inputs: "input_ids:input_ids,attention_mask:attention_mask,token_type_ids:token_type_ids", outputs: "embeddings:sentence", describe: "float16"},
		{name: "fused and quantized operators", edit: func(m *onnx.Model) {
			m.Graph.Nodes = append(m.Graph.Nodes,
				&onnx.Node{Name: "a", OpType: "Attention", Domain: "com.microsoft"},
				&onnx.Node{Name: "q", OpType: "MatMulInteger"},
				&onnx.Node{Name: "d", OpType: "DynamicQuantizeLinear", Domain: "ai.onnx"})
		}, inputs: "input_ids:input_ids,attention_mask:attention_mask,token_type_ids:token_type_ids", outputs: "last_hidden_state:per-token,pooler_output:pooler",
			describe: "int8-quantized (DynamicQuantizeLinear, MatMulInteger), fused operators com.microsoft:Attention"},
		{name: "4-bit weights", edit: func(m *onnx.Model) {
			m.Graph.Nodes = append(m.Graph.Nodes, &onnx.Node{Name: "q", OpType: "MatMulNBits", Domain: "com.microsoft"})
		}, inputs: "input_ids:input_ids,attention_mask:attention_mask,token_type_ids:token_type_ids", outputs: "last_hidden_state:per-token,pooler_output:pooler",
			describe: "4-bit quantized (com.microsoft:MatMulNBits)"},
		{name: "float16 cast", edit: func(m *onnx.Model) {
			m.Graph.Nodes = append(m.Graph.Nodes, &onnx.Node{Name: "c", OpType: "Cast", Attrs: []*onnx.Attribute{{Name: "to", Type: onnx.AttrInt, I: onnx.Float16}}})
		}, inputs: "input_ids:input_ids,attention_mask:attention_mask,token_type_ids:token_type_ids", outputs: "last_hidden_state:per-token,pooler_output:pooler", describe: "float16"},
		{name: "an input no encoder is fed", edit: func(m *onnx.Model) {
			m.Graph.Inputs = append(m.Graph.Inputs, &onnx.ValueInfo{Name: "past_key_values.0.key", ElemType: onnx.Float})
		}, errPart: `graph input "past_key_values.0.key" is not one an encoder is fed (input_ids, attention_mask, token_type_ids, position_ids)`},
		{name: "no input ids", edit: func(m *onnx.Model) {
			m.Graph.Inputs = slices.DeleteFunc(m.Graph.Inputs, func(v *onnx.ValueInfo) bool { return v.Name == onnx.InputIDs })
		}, errPart: `the graph has no "input_ids" input`},
		{name: "float input ids", edit: func(m *onnx.Model) { m.Graph.Inputs[0].ElemType = onnx.Float },
			errPart: `graph input "input_ids" has element type FLOAT, expected INT64 or INT32`},
		{name: "rank-3 mask", edit: func(m *onnx.Model) { m.Graph.Inputs[1].Dims = append(dims, onnx.Dim{Value: 1}) },
			errPart: `graph input "attention_mask" has rank 3, expected 2 ([batch, sequence])`},
		{name: "integer hidden states", edit: func(m *onnx.Model) { m.Graph.Outputs[0].ElemType = onnx.Int64 },
			errPart: `graph output "last_hidden_state" has element type INT64, expected FLOAT or FLOAT16`},
		{name: "2-D hidden states", edit: func(m *onnx.Model) { m.Graph.Outputs[0].Dims = dims },
			errPart: `graph output "last_hidden_state" has rank 2, expected 3 ([batch, sequence, hidden])`},
		{name: "no embedding output", edit: func(m *onnx.Model) {
			m.Graph.Outputs = []*onnx.ValueInfo{{Name: "logits", ElemType: onnx.Float, Dims: append(dims, onnx.Dim{Value: 1}, onnx.Dim{Value: 1})}, {Name: "other", ElemType: onnx.Float}}
		}, errPart: "the graph has no embedding output (it gives logits, other; expected last_hidden_state, token_embeddings, sentence_embedding or pooler_output)"},
		{name: "no default opset", edit: func(m *onnx.Model) { m.Opsets = map[string]int64{"com.microsoft": 1} },
			errPart: "imports no version of the default ONNX operator set"},
	}
	for _, tt := range tests {
		m := exported(t, tt.sentence)
		if tt.edit != nil {
			tt.edit(m)
		}
		g, err := onnx.Inspect(m.Marshal())
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
		if g.Vocab != onnxTinyConfig.VocabSize || g.Opset != 14 {
			t.Errorf("%s: vocab %d, opset %d; want %d, 14", tt.name, g.Vocab, g.Opset, onnxTinyConfig.VocabSize)
		}
	}
	v := onnx.Value{Name: onnx.LastHiddenState, ElemType: onnx.Float16, Dims: []onnx.Dim{{Param: "batch"}, {}, {Value: 384}}}
	if got := v.String(); got != "last_hidden_state FLOAT16 [batch ? 384]" {
		t.Errorf("String() = %q", got)
	}
}

func TestChooseOutput(t *testing.T) {
	plain, err := onnx.InspectModel(exported(t, false))
	if err != nil {
		t.Fatal(err)
	}
	st, err := onnx.InspectModel(exported(t, true))
	if err != nil {
		t.Fatal(err)
	}
	sentOnly := *st
	sentOnly.Outputs = []onnx.Value{*st.Output(onnx.Sentence)}
	poolerOnly := *plain
	poolerOnly.Outputs = []onnx.Value{*plain.Output(onnx.Pooler)}
	tests := []struct {
		g              *onnx.GraphInfo
		pooler, tokens bool
		want, errPart  string
	}{
		{plain, false, false, onnx.LastHiddenState, ""},
		{plain, true, false, onnx.PoolerOutput, ""},
		{st, false, true, onnx.TokenEmbeddings, ""},
		{&sentOnly, false, false, onnx.SentenceEmbedding, ""},
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
	m.Graph.Nodes = append(m.Graph.Nodes, &onnx.Node{Name: "fused", OpType: "SkipLayerNormalization", Domain: "com.microsoft", Inputs: []string{onnx.LastHiddenState}, Outputs: []string{"x"}})
	_, _, err := ReadONNX(m.Marshal())
	var np *NotPureGoError
	if !errors.As(err, &np) || !strings.Contains(err.Error(), "the pure-Go engine cannot run this float32, fused operators com.microsoft:SkipLayerNormalization graph (") ||
		!strings.HasSuffix(err.Error(), "; use the ort engine (-engine ort), which runs it with ONNX Runtime") || np.Graph == nil || np.Err == nil {
		t.Fatalf("ReadWeights of a fused graph: %v", err)
	}
	// What Inspect refuses too stays the reader's own error.
	m.Graph.Inputs = m.Graph.Inputs[1:]
	if _, _, err := ReadONNX(m.Marshal()); err == nil || errors.As(err, &np) {
		t.Errorf("ReadWeights of a graph without input_ids: %v, want the reader's error", err)
	}
}

// FuzzInspect feeds arbitrary bytes to Inspect: it must describe a graph
// or return an error, never panic, and what it describes has input ids, an
// embedding output the engines can choose for some pooling (a graph that
// gives only pooler_output serves pooling "pooler"), and a precision.
func FuzzInspect(f *testing.F) {
	cfg := onnxTinyConfig
	cfg.VocabSize, cfg.HiddenSize, cfg.NumHiddenLayers, cfg.NumAttentionHeads, cfg.IntermediateSize, cfg.MaxPositionEmbeddings = 3, 2, 1, 1, 2, 2
	for _, o := range []ONNXOptions{{Opset: 17}, {Opset: 14, Sentence: &SentenceOutput{Pooling: "cls", Normalize: true}}} {
		m, err := ExportONNX(randomWeights(cfg, o.Sentence == nil, 5), cfg, o)
		if err != nil {
			f.Fatal(err)
		}
		b := m.Marshal()
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte{0x08, 0x07, 0x3a, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := onnx.Inspect(data)
		if err != nil {
			return
		}
		if g.Input(onnx.RoleInputIDs) == nil {
			t.Fatalf("described a graph without input ids: %+v", g)
		}
		if _, err := g.ChooseOutput(true, false); err != nil {
			t.Fatalf("described a graph without an output to read: %v", err)
		}
		switch g.Precision {
		case onnx.PrecisionFP32, onnx.PrecisionFP16, onnx.PrecisionInt8, onnx.PrecisionInt4:
		default:
			t.Fatalf("precision %q", g.Precision)
		}
		_ = g.Describe()
	})
}
