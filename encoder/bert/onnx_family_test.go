package bert

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/modelfiles"
)

// TestExportEveryLayout exports each published layout (heads and
// prefixes included) at two opsets and reads it back: the graph's weights
// are the backbone's bit for bit, ONNXInfo says the family, inputs, padding
// index, activation and pooler, matches config.json, and the pure-Go
// encoder built from the graph's weights gives the same bits as from
// the checkpoint's.
func TestExportEveryLayout(t *testing.T) {
	for _, layout := range berttest.Layouts() {
		for _, opset := range []int{14, 17} {
			t.Run(layout+"/"+string(rune('0'+opset/10))+string(rune('0'+opset%10)), func(t *testing.T) {
				cp, cfg := checkpoint(t, layout, berttest.Sizes{}, 9, nil)
				want, heads, err := Backbone(cfg, cp.Tensors, cp.Prefix)
				if err != nil {
					t.Fatal(err)
				}
				m, err := ExportONNX(cp.Tensors, cfg, ONNXOptions{Opset: opset})
				if err != nil {
					t.Fatal(err)
				}
				got, info, err := ReadONNX(m.Marshal())
				if err != nil {
					t.Fatal(err)
				}
				sameSet(t, got, want)
				if err := info.CheckConfig(cfg); err != nil {
					t.Error(err)
				}
				wantInputs := []string{onnx.InputIDs, onnx.AttentionMask}
				if cfg.Family() == modelfiles.FamilyBERT {
					wantInputs = append(wantInputs, onnx.TokenTypeIDs)
				}
				_, pooler := want["pooler.dense.weight"]
				if info.Family != cfg.Family() || info.PaddingIdx != cfg.PaddingIdx() || !slices.Equal(info.Inputs, wantInputs) ||
					info.Pooler != pooler || info.Activation != "gelu" || info.Heads != 2 || info.MaxTokens() != cfg.MaxTokens() {
					t.Errorf("info = %+v", info)
				}
				if c := info.Config(); c.Validate("graph") != nil || c.Family() != cfg.Family() || c.PaddingIdx() != cfg.PaddingIdx() {
					t.Errorf("Info.Config() = %+v", c)
				}
				for _, name := range heads {
					for _, init := range m.Graph.Initializers {
						if strings.Contains(init.Name, name) {
							t.Errorf("head tensor %q exported as %q", name, init.Name)
						}
					}
				}
				fromGraph, err := New(cfg, got)
				if err != nil {
					t.Fatal(err)
				}
				fromCheckpoint, err := New(cfg, maps.Clone(cp.Tensors))
				if err != nil {
					t.Fatal(err)
				}
				seqs := [][]int32{{0, 5, 9, 2}, {0, 1, 7, 1, 2}}
				a, _ := fromGraph.Forward(seqs)
				b, _ := fromCheckpoint.Forward(seqs)
				for s := range a {
					for i := range a[s] {
						if math.Float32bits(a[s][i]) != math.Float32bits(b[s][i]) {
							t.Fatalf("sequence %d value %d: %v from the graph, %v from the checkpoint", s, i, a[s][i], b[s][i])
						}
					}
				}
			})
		}
	}
}

func TestExportActivations(t *testing.T) {
	for _, c := range []struct{ layout, field, act, want string }{
		{"bert-base-uncased", "hidden_act", "gelu_new", "gelu_new"},
		{"roberta-base", "hidden_act", "gelu_pytorch_tanh", "gelu_new"},
		{"distilbert-base-uncased", "activation", "relu", "relu"},
		{"all-mpnet-base-v2", "hidden_act", "relu", "relu"},
	} {
		cp, cfg := checkpoint(t, c.layout, berttest.Sizes{}, 9, func(m map[string]any) { m[c.field] = c.act })
		for _, opset := range []int{14, 20} {
			m, err := ExportONNX(cp.Tensors, cfg, ONNXOptions{Opset: opset})
			if err != nil {
				t.Fatal(err)
			}
			_, info, err := ReadONNX(m.Marshal())
			if err != nil {
				t.Fatalf("%s %s: %v", c.layout, c.act, err)
			}
			if info.Activation != c.want {
				t.Errorf("%s %s: activation read as %q, want %q", c.layout, c.act, info.Activation, c.want)
			}
			if err := info.CheckConfig(cfg); err != nil {
				t.Errorf("%s %s: %v", c.layout, c.act, err)
			}
			other := cfg
			other.HiddenAct = "gelu"
			if err := info.CheckConfig(other); err == nil || !strings.Contains(err.Error(), `config field "hidden_act" is "gelu" but the ONNX graph computes `+c.want) {
				t.Errorf("%s: CheckConfig with gelu: %v", c.layout, err)
			}
		}
	}
}

// TestExportPrefixOfOneTower exports each of DPR's towers from a set
// holding both.
func TestExportPrefixOfOneTower(t *testing.T) {
	q, cfg := checkpoint(t, "dpr-question-encoder", berttest.Sizes{}, 9, nil)
	c, _ := checkpoint(t, "dpr-ctx-encoder", berttest.Sizes{}, 9, nil)
	both := maps.Clone(q.Tensors)
	maps.Copy(both, c.Tensors)
	if _, err := ExportONNX(both, cfg, ONNXOptions{}); err == nil || !strings.Contains(err.Error(), "several bert backbones") {
		t.Errorf("Export of two towers without a prefix: %v", err)
	}
	for _, cp := range []*berttest.Checkpoint{q, c} {
		m, err := ExportONNX(both, cfg, ONNXOptions{Prefix: cp.Prefix})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := ReadONNX(m.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := Backbone(cfg, cp.Tensors, cp.Prefix)
		sameSet(t, got, want)
	}
}

func TestCheckConfigFamilies(t *testing.T) {
	cp, cfg := checkpoint(t, "xlm-roberta-base", berttest.Sizes{}, 9, nil)
	m, err := ExportONNX(cp.Tensors, cfg, ONNXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, info, err := ReadONNX(m.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*modelfiles.Config)
		want string
	}{
		{func(c *modelfiles.Config) { c.ModelType = "bert" }, `config.json describes a bert model (model_type "bert") but the ONNX graph computes roberta`},
		{func(c *modelfiles.Config) { c.PadTokenID = 0 }, `config field "pad_token_id" is 0 but the ONNX weights have 1`},
		{func(c *modelfiles.Config) { c.TypeVocabSize = 2 }, `"type_vocab_size" is 2 but the ONNX weights have 1`},
	} {
		c2 := cfg
		c.edit(&c2)
		if err := info.CheckConfig(c2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckConfig = %v, want %s", err, c.want)
		}
	}
	cp, cfg = checkpoint(t, "all-mpnet-base-v2", berttest.Sizes{Buckets: 40}, 9, nil)
	if m, err = ExportONNX(cp.Tensors, cfg, ONNXOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, info, err = ReadONNX(m.Marshal()); err != nil {
		t.Fatal(err)
	}
	c2 := cfg
	c2.RelativeAttentionNumBuckets = 32
	if err := info.CheckConfig(c2); err == nil || !strings.Contains(err.Error(), `"relative_attention_num_buckets" is 32 but the ONNX weights have 40`) {
		t.Errorf("CheckConfig buckets: %v", err)
	}
}

// TestReadRefusesFamilyGraphs edits valid exports of the new families in
// one way each and checks the error names what is wrong.
func TestReadRefusesFamilyGraphs(t *testing.T) {
	node := func(m *onnx.Model, name string) *onnx.Node {
		for _, n := range m.Graph.Nodes {
			if n.Name == name {
				return n
			}
		}
		t.Fatalf("no node %q", name)
		return nil
	}
	init := func(m *onnx.Model, name string) *onnx.Tensor {
		for _, t := range m.Graph.Initializers {
			if t.Name == name {
				return t
			}
		}
		t.Fatalf("no initializer %q", name)
		return nil
	}
	for _, c := range []struct {
		name, layout string
		edit         func(m *onnx.Model)
		want         string
	}{
		{"mpnet-bucket", "all-mpnet-base-v2", func(m *onnx.Model) {
			tb := init(m, relativeBucketsTable)
			tb.RawData[8*20] ^= 1
		}, "MPNet graph: the relative-position buckets are not computed as dreval's export does (distance 5 has bucket 20, MPNet's is 21)"},
		{"mpnet-offset", "all-mpnet-base-v2", func(m *onnx.Model) {
			init(m, "const_relative_offset").RawData[0]--
		}, "does not cover the distances of 16 tokens"},
		{"mpnet-no-cumsum", "all-mpnet-base-v2", func(m *onnx.Model) {
			node(m, "embeddings/position_ids/Mul").Inputs[0] = "embeddings/position_ids/Cast"
			m.Graph.Nodes = slices.DeleteFunc(m.Graph.Nodes, func(n *onnx.Node) bool { return n.OpType == "CumSum" })
		}, "the graph has MPNet's weights but its position ids are not counted from padding index 1"},
		{"roberta-no-equal", "roberta-base", func(m *onnx.Model) {
			node(m, "embeddings/position_ids/Equal").Inputs[1] = "const_zero_float"
			m.Graph.Initializers = append(m.Graph.Initializers, &onnx.Tensor{Name: "const_zero_float", DataType: onnx.Float, RawData: make([]byte, 4)})
		}, "compares input_ids with no constant padding index"},
		{"roberta-cumsum-axis", "roberta-base", func(m *onnx.Model) {
			node(m, "embeddings/position_ids/CumSum").Inputs[1] = "const_zero"
		}, "the cumulative sum must run over the sequence axis"},
		{"roberta-cumsum-reverse", "roberta-base", func(m *onnx.Model) {
			n := node(m, "embeddings/position_ids/CumSum")
			n.Attrs = append(n.Attrs, intAttr("reverse", 1))
		}, "exclusive or reverse cumulative sums are not supported"},
		{"distilbert-padding-positions", "distilbert-base-uncased", func(m *onnx.Model) {
			m.Graph.Nodes = append(m.Graph.Nodes,
				&onnx.Node{Name: "eq", OpType: "Equal", Inputs: []string{onnx.InputIDs, "const_one_i64"}, Outputs: []string{"eq"}},
				&onnx.Node{Name: "cs", OpType: "CumSum", Inputs: []string{"eq", "const_one_i64"}, Outputs: []string{"cs"}})
		}, "the graph has DistilBERT's weights but counts position ids from padding index 1"},
		{"distilbert-missing-layer-norm", "distilbert-base-uncased", func(m *onnx.Model) {
			init(m, "transformer.layer.1.sa_layer_norm.bias").Name = "unused"
			node(m, "layer1/attention_output/LayerNorm/Add_1").Inputs[1] = "unused"
		}, `distilbert weights with hidden size 8 and 2 layers: tensor "transformer.layer.1.sa_layer_norm.bias" is missing`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cp, cfg := checkpoint(t, c.layout, berttest.Sizes{}, 9, nil)
			m, err := ExportONNX(cp.Tensors, cfg, ONNXOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c.edit(m)
			_, _, err = ReadONNX(m.Marshal())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v\nwant one containing %s", err, c.want)
			}
		})
	}
}

// TestExportIgnoresHeads checks that tensors outside the backbone are
// left out of the graph and backbone-like extras are refused.
func TestExportIgnoresHeads(t *testing.T) {
	set := randomWeights(onnxTinyConfig, false, 1)
	set["cls.predictions.bias"] = tensor.New(50)
	set["embeddingHead.weight"] = tensor.New(8, 8)
	m, err := ExportONNX(set, onnxTinyConfig, ONNXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, init := range m.Graph.Initializers {
		if strings.Contains(init.Name, "cls.") || strings.Contains(init.Name, "embeddingHead") {
			t.Errorf("head %q exported", init.Name)
		}
	}
}
