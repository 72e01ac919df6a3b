package bert

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/internal/float16"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

// onnxTinyConfig is a two-layer BERT small enough to build in every test.
var onnxTinyConfig = modelfiles.Config{
	VocabSize: 50, HiddenSize: 8, NumHiddenLayers: 2, NumAttentionHeads: 2,
	IntermediateSize: 12, HiddenAct: "gelu", MaxPositionEmbeddings: 16,
	TypeVocabSize: 2, LayerNormEps: 1e-12, ModelType: "bert",
}

// randomWeights returns random weights of every tensor of a BERT encoder
// with cfg's sizes.
func randomWeights(cfg modelfiles.Config, pooler bool, seed uint64) tensor.Set {
	rng := rand.New(rand.NewPCG(seed, 1))
	set := tensor.Set{}
	for name, shape := range TensorShapes(cfg, pooler) {
		t := tensor.New(shape...)
		for i := range t.Data {
			t.Data[i] = float32(rng.NormFloat64() * 0.1)
		}
		set[name] = t
	}
	return set
}

func exportBytes(t testing.TB, set tensor.Set, cfg modelfiles.Config, opset int) []byte {
	t.Helper()
	m, err := ExportONNX(set, cfg, ONNXOptions{Opset: opset})
	if err != nil {
		t.Fatal(err)
	}
	return m.Marshal()
}

// sameSet fails t unless got holds exactly want's tensors (by name, shape
// and bits), with position_ids buffers ignored.
func sameSet(t *testing.T, got, want tensor.Set) {
	t.Helper()
	for _, name := range want.Names() {
		if strings.HasSuffix(name, positionIDsBuffer) {
			continue
		}
		g, ok := got[name]
		if !ok {
			t.Errorf("tensor %q missing after the round trip", name)
			continue
		}
		w := want[name]
		if !sameShape(g.Shape, w.Shape) {
			t.Errorf("tensor %q has shape %v, want %v", name, g.Shape, w.Shape)
			continue
		}
		for i := range w.Data {
			if math.Float32bits(g.Data[i]) != math.Float32bits(w.Data[i]) {
				t.Errorf("tensor %q element %d is %v, want %v", name, i, g.Data[i], w.Data[i])
				break
			}
		}
	}
	for _, name := range got.Names() {
		if _, ok := want[name]; !ok {
			t.Errorf("round trip produced unexpected tensor %q", name)
		}
	}
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestExportReadRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name   string
		opset  int
		pooler bool
	}{
		{"opset14", 14, false},
		{"opset14-pooler", 14, true},
		{"opset17-layernorm-op", 17, true},
		{"opset21", 21, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := randomWeights(onnxTinyConfig, c.pooler, 1)
			got, info, err := ReadONNX(exportBytes(t, want, onnxTinyConfig, c.opset))
			if err != nil {
				t.Fatal(err)
			}
			sameSet(t, got, want)
			if err := info.CheckConfig(onnxTinyConfig); err != nil {
				t.Error(err)
			}
			if info.Opset != int64(c.opset) || info.Heads != 2 || info.Pooler != c.pooler || !info.TokenTypeInput {
				t.Errorf("info = %+v", info)
			}
			if float32(info.Epsilon) != float32(onnxTinyConfig.LayerNormEps) {
				t.Errorf("epsilon read as %g, want %g", info.Epsilon, onnxTinyConfig.LayerNormEps)
			}
		})
	}
}

func TestCheckConfigReportsMismatch(t *testing.T) {
	_, info, err := ReadONNX(exportBytes(t, randomWeights(onnxTinyConfig, false, 1), onnxTinyConfig, 14))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*modelfiles.Config)
		want string
	}{
		{func(c *modelfiles.Config) { c.NumAttentionHeads = 4 }, "num_attention_heads"},
		{func(c *modelfiles.Config) { c.NumHiddenLayers = 3 }, "num_hidden_layers"},
		{func(c *modelfiles.Config) { c.LayerNormEps = 1e-5 }, "layer_norm_eps"},
		{func(c *modelfiles.Config) { c.VocabSize = 51 }, "vocab_size"},
	} {
		cfg := onnxTinyConfig
		c.edit(&cfg)
		if err := info.CheckConfig(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckConfig error = %v, want one naming %s", err, c.want)
		}
	}
}

func TestExportRefusesBadWeights(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(tensor.Set, *modelfiles.Config, *ONNXOptions)
		want string
	}{
		{"missing", func(s tensor.Set, _ *modelfiles.Config, _ *ONNXOptions) {
			delete(s, "encoder.layer.1.output.dense.bias")
		}, `"encoder.layer.1.output.dense.bias" is missing`},
		{"misshapen", func(s tensor.Set, _ *modelfiles.Config, _ *ONNXOptions) {
			s["embeddings.LayerNorm.weight"] = tensor.New(7)
		}, `"embeddings.LayerNorm.weight" has shape [7]`},
		{"extra-layer", func(s tensor.Set, _ *modelfiles.Config, _ *ONNXOptions) {
			s["encoder.layer.2.output.dense.bias"] = tensor.New(8)
		}, `"encoder.layer.2.output.dense.bias" is not part of a bert backbone with 2 layers`},
		{"two-backbones", func(s tensor.Set, _ *modelfiles.Config, _ *ONNXOptions) {
			s["bert.embeddings.word_embeddings.weight"] = s["embeddings.word_embeddings.weight"]
		}, `several bert backbones, under the prefixes "", "bert."`},
		{"wrong-prefix", func(_ tensor.Set, _ *modelfiles.Config, o *ONNXOptions) { o.Prefix = "roberta." }, `tensor "roberta.embeddings.LayerNorm.bias" is missing`},
		{"opset", func(_ tensor.Set, _ *modelfiles.Config, o *ONNXOptions) { o.Opset = 13 }, "opset 13 is not supported"},
		{"config", func(_ tensor.Set, c *modelfiles.Config, _ *ONNXOptions) { c.NumAttentionHeads = 3 }, "not a multiple"},
	} {
		t.Run(c.name, func(t *testing.T) {
			set, cfg, opt := randomWeights(onnxTinyConfig, false, 1), onnxTinyConfig, ONNXOptions{}
			c.edit(set, &cfg, &opt)
			_, err := ExportONNX(set, cfg, opt)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestExportAcceptsPrefixedNamesAndPositionIDs(t *testing.T) {
	want := randomWeights(onnxTinyConfig, false, 2)
	prefixed := tensor.Set{"bert.embeddings.position_ids": tensor.New(1, 16)}
	for name, tt := range want {
		prefixed["bert."+name] = tt
	}
	got, _, err := ReadONNX(exportBytes(t, prefixed, onnxTinyConfig, 14))
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, got, want)
}

// hfStyle rewrites one of our exports the way torch.onnx/optimum name
// things: anonymous MatMul weights, a module prefix on named weights, bias
// first in the Add, and (optionally) FLOAT16 or float_data storage.
func hfStyle(m *onnx.Model, storage string) {
	rename := map[string]string{}
	for i, t := range m.Graph.Initializers {
		switch {
		case strings.HasSuffix(t.Name, "_transposed"):
			rename[t.Name] = "onnx::MatMul_" + string(rune('a'+i%26)) + t.Name[:3] + string(rune('0'+i%10))
		case isBackboneName(t.Name):
			rename[t.Name] = "0.auto_model." + t.Name
		}
		if t.DataType != onnx.Float {
			continue
		}
		vals, _ := t.Float32()
		switch storage {
		case "float_data":
			t.RawData, t.FloatData = nil, vals
		case "float16":
			raw := make([]byte, 2*len(vals))
			for j, v := range vals {
				binary.LittleEndian.PutUint16(raw[2*j:], floatToHalf(v))
			}
			t.DataType, t.RawData = onnx.Float16, raw
		case "float16-int32":
			t.DataType, t.RawData = onnx.Float16, nil
			for _, v := range vals {
				t.Int32Data = append(t.Int32Data, int32(floatToHalf(v)))
			}
		}
	}
	for _, t := range m.Graph.Initializers {
		if r, ok := rename[t.Name]; ok {
			t.Name = r
		}
	}
	for _, n := range m.Graph.Nodes {
		for i, in := range n.Inputs {
			if r, ok := rename[in]; ok {
				n.Inputs[i] = r
			}
		}
		if n.OpType == "Add" && strings.HasSuffix(n.Inputs[1], ".bias") {
			n.Inputs[0], n.Inputs[1] = n.Inputs[1], n.Inputs[0]
		}
	}
}

// floatToHalf rounds f to the nearest binary16 (test helper; inputs are
// small normal numbers).
func floatToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int((b>>23)&0xff) - 127 + 15
	mant := b & 0x7fffff
	if exp <= 0 {
		return sign
	}
	h := uint32(exp)<<10 | mant>>13
	if mant&0x1fff > 0x1000 || (mant&0x1fff == 0x1000 && h&1 == 1) {
		h++
	}
	return sign | uint16(h)
}

func TestReadHuggingFaceStyleExport(t *testing.T) {
	for _, storage := range []string{"raw", "float_data", "float16", "float16-int32"} {
		t.Run(storage, func(t *testing.T) {
			want := randomWeights(onnxTinyConfig, true, 3)
			m, err := ExportONNX(want, onnxTinyConfig, ONNXOptions{Opset: 14})
			if err != nil {
				t.Fatal(err)
			}
			hfStyle(m, storage)
			if strings.HasPrefix(storage, "float16") {
				for _, tt := range want {
					for i, v := range tt.Data {
						tt.Data[i] = float16.ToFloat32(floatToHalf(v))
					}
				}
			}
			got, _, err := ReadONNX(m.Marshal())
			if err != nil {
				t.Fatal(err)
			}
			sameSet(t, got, want)
		})
	}
}

func TestReadGemmPooler(t *testing.T) {
	// torch.onnx writes the pooler as Gemm(x, W [out, in], b, transB=1).
	want := randomWeights(onnxTinyConfig, true, 4)
	m, err := ExportONNX(want, onnxTinyConfig, ONNXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := m.Graph
	var nodes []*onnx.Node
	for _, n := range g.Nodes {
		switch n.Name {
		case "pooler/dense/MatMul":
			continue
		case "pooler/dense/Add":
			n.OpType = "Gemm"
			n.Inputs = []string{"pooler/Gather", "pooler.dense.weight", "pooler.dense.bias"}
			n.Attrs = []*onnx.Attribute{intAttr("transB", 1)}
		}
		nodes = append(nodes, n)
	}
	g.Nodes = nodes
	w := want["pooler.dense.weight"]
	for i, t := range g.Initializers {
		if t.Name == "pooler.dense.weight_transposed" {
			raw := make([]byte, 4*len(w.Data))
			for j, v := range w.Data {
				binary.LittleEndian.PutUint32(raw[4*j:], math.Float32bits(v))
			}
			g.Initializers[i] = &onnx.Tensor{Name: "pooler.dense.weight", DataType: onnx.Float, Dims: []int64{8, 8}, RawData: raw}
		}
	}
	got, _, err := ReadONNX(m.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, got, want)
}

// TestReadRefusesUnsupportedGraphs edits a valid export in one way each and
// checks the error names what is wrong.
func TestReadRefusesUnsupportedGraphs(t *testing.T) {
	node := func(m *onnx.Model, name string) *onnx.Node {
		for _, n := range m.Graph.Nodes {
			if n.Name == name {
				return n
			}
		}
		t.Fatalf("no node %q", name)
		return nil
	}
	for _, c := range []struct {
		name string
		edit func(m *onnx.Model)
		want string
	}{
		{"fused-op", func(m *onnx.Model) {
			n := node(m, "layer0/gelu/Erf")
			n.OpType, n.Domain = "FastGelu", "com.microsoft"
		}, `com.microsoft:FastGelu node "layer0/gelu/Erf": operator domain "com.microsoft" is not supported`},
		{"unknown-op", func(m *onnx.Model) { node(m, "layer1/gelu/Erf").OpType = "Sigmoid" }, `Sigmoid node "layer1/gelu/Erf": operator "Sigmoid" is not supported`},
		{"mixed-activations", func(m *onnx.Model) { node(m, "layer1/gelu/Erf").OpType = "Tanh" }, "the graph has 1 Erf/Gelu, 1 Tanh and 0 Relu nodes (pooler aside) for 2 layers"},
		{"softmax-axis", func(m *onnx.Model) { node(m, "layer0/scores/Softmax").Attrs[0].I = 1 }, `Softmax node "layer0/scores/Softmax": softmax over axis 1`},
		{"extra-input", func(m *onnx.Model) {
			m.Graph.Inputs = append(m.Graph.Inputs, &onnx.ValueInfo{Name: "position_ids", ElemType: onnx.Int64})
		}, `graph input "position_ids" is not supported`},
		{"no-mask", func(m *onnx.Model) { m.Graph.Inputs = m.Graph.Inputs[:1] }, `the graph has no "attention_mask" input`},
		{"float-ids", func(m *onnx.Model) { m.Graph.Inputs[0].ElemType = onnx.Float }, `graph input "input_ids" has element type FLOAT, expected INT64`},
		{"ids-rank", func(m *onnx.Model) { m.Graph.Inputs[0].Dims = []onnx.Dim{{Param: "batch"}} }, `graph input "input_ids" has rank 1`},
		{"output-name", func(m *onnx.Model) { m.Graph.Outputs[0].Name = "logits" }, `graph output "logits" is not supported`},
		{"output-rank", func(m *onnx.Model) { m.Graph.Outputs[0].Dims = m.Graph.Outputs[0].Dims[:2] }, `has rank 2, expected 3`},
		{"output-width", func(m *onnx.Model) { m.Graph.Outputs[0].Dims[2].Value = 9 }, `last dimension 9, expected the hidden size 8`},
		{"opset", func(m *onnx.Model) { m.Opsets[""] = 9 }, "ONNX opset 9 is not supported"},
		{"no-opset", func(m *onnx.Model) { delete(m.Opsets, "") }, "imports no version of the default ONNX operator set"},
		{"unknown-weight", func(m *onnx.Model) {
			m.Graph.Initializers = append(m.Graph.Initializers, &onnx.Tensor{Name: "classifier.weight", DataType: onnx.Float, Dims: []int64{2, 8}, RawData: make([]byte, 64)})
		}, `initializer "classifier.weight" (shape [2 8]) is not an encoder weight`},
		{"missing-weight", func(m *onnx.Model) {
			for _, t := range m.Graph.Initializers {
				if t.Name == "encoder.layer.1.output.LayerNorm.bias" {
					t.Name = "unused"
				}
			}
		}, `reads "encoder.layer.1.output.LayerNorm.bias", which no graph input`},
		{"int8-weight", func(m *onnx.Model) {
			for _, t := range m.Graph.Initializers {
				if t.Name == "encoder.layer.0.intermediate.dense.weight_transposed" {
					t.DataType = onnx.Int8
				}
			}
		}, `tensor "encoder.layer.0.intermediate.dense.weight_transposed" has element type INT8`},
		{"short-raw-data", func(m *onnx.Model) {
			for _, t := range m.Graph.Initializers {
				if t.Name == "embeddings.word_embeddings.weight" {
					t.RawData = t.RawData[:len(t.RawData)-4]
				}
			}
		}, `tensor "embeddings.word_embeddings.weight" (FLOAT, shape [50 8]) has 1596 bytes of raw_data, expected 1600`},
		{"external-data", func(m *onnx.Model) {
			for _, t := range m.Graph.Initializers {
				if t.Name == "embeddings.word_embeddings.weight" {
					t.External = true
				}
			}
		}, "external data file"},
		{"undefined-value", func(m *onnx.Model) { node(m, "layer0/query/Reshape").Inputs[0] = "nowhere" }, `Reshape node "layer0/query/Reshape" reads "nowhere"`},
		{"cycle", func(m *onnx.Model) {
			n := node(m, "embeddings/Add")
			n.Inputs[0] = "embeddings/Add_1"
		}, `reads "embeddings/Add_1", which no graph input`},
		{"unused-mask", func(m *onnx.Model) { node(m, "mask/Cast").Inputs[0] = "input_ids" }, `graph input "attention_mask" is not used by any node`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := ExportONNX(randomWeights(onnxTinyConfig, false, 5), onnxTinyConfig, ONNXOptions{})
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

func TestReadRefusesGarbage(t *testing.T) {
	valid := exportBytes(t, randomWeights(onnxTinyConfig, false, 6), onnxTinyConfig, 14)
	cases := map[string][]byte{
		"empty":      nil,
		"text":       []byte("this is not an onnx file\n"),
		"json":       []byte(`{"graph": {}}`),
		"zeros":      make([]byte, 100),
		"high-bits":  []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		"bad-length": {0x3a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00},
		"no-graph":   {0x08, 0x07},
	}
	for _, cut := range []int{1, 2, 10, 100, len(valid) / 2, len(valid) - 1} {
		cases["truncated-"+strings.Repeat("x", cut%7)+string(rune('a'+cut%26))] = valid[:cut]
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			set, info, err := ReadONNX(data)
			if err == nil {
				t.Fatalf("ReadWeights accepted %d bytes of garbage: %d tensors, %+v", len(data), len(set), info)
			}
		})
	}
}

// TestMiniLMRoundTrip exports the installed all-MiniLM-L6-v2 and reads it
// back: every tensor must come back bit for bit.
func TestMiniLMRoundTrip(t *testing.T) {
	dir := sharedtest.ModelDir(t, "minilm")
	f, err := safetensors.ReadFile(filepath.Join(dir, "model.fp16.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := readConfig(t, filepath.Join(dir, "config.json"))
	for _, opset := range []int{14, 17} {
		path := filepath.Join(t.TempDir(), "model.onnx")
		if err := WriteONNX(path, f.Tensors, cfg, ONNXOptions{Opset: opset}); err != nil {
			t.Fatal(err)
		}
		got, info, err := ReadONNXFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sameSet(t, got, f.Tensors)
		if err := info.CheckConfig(cfg); err != nil {
			t.Errorf("opset %d: %v", opset, err)
		}
		if _, err := New(cfg, got); err != nil {
			t.Errorf("opset %d: bert.New on the weights read back: %v", opset, err)
		}
	}
}

// FuzzReadWeights feeds arbitrary bytes to the ONNX reader: it must return
// weights or an error, never panic; and whatever it accepts must be a
// complete weight set of the family it reports, which New takes.
//
// The seeds are the smallest exports of each family (one layer, hidden
// size 2, a vocabulary of three or four ids: 7-10 KB, mostly the graph)
// so that mutating and minimising them stays cheap and the fuzzer runs
// thousands of inputs a second; onnxTinyConfig's exports (24 KB) ran a few
// hundred.
func FuzzReadWeights(f *testing.F) {
	seedConfig := modelfiles.Config{VocabSize: 3, HiddenSize: 2, NumHiddenLayers: 1, NumAttentionHeads: 1,
		IntermediateSize: 2, HiddenAct: "gelu", MaxPositionEmbeddings: 2, TypeVocabSize: 1, LayerNormEps: 1e-12, ModelType: "bert"}
	valid := exportBytes(f, randomWeights(seedConfig, true, 7), seedConfig, 17)
	f.Add(valid)
	f.Add(exportBytes(f, randomWeights(seedConfig, false, 8), seedConfig, 14))
	f.Add(valid[:len(valid)/3])
	f.Add([]byte{0x08, 0x07, 0x3a, 0x00})
	for _, layout := range []string{"roberta-base", "distilbert-base-uncased", "all-mpnet-base-v2"} {
		cp, cfg := checkpoint(f, layout, berttest.Sizes{Vocab: 4, Hidden: 2, Layers: 1, Heads: 1, Intermediate: 2, Positions: 4}, 9, nil)
		f.Add(exportBytes(f, cp.Tensors, cfg, 14))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		set, info, err := ReadONNX(data)
		if err != nil {
			return
		}
		cfg := info.Config()
		cfg.NumAttentionHeads, cfg.LayerNormEps = max(info.Heads, 1), 1e-12
		if info.Heads == 0 && info.Family == modelfiles.FamilyMPNet {
			t.Fatalf("MPNet graph without a head count: %+v", info)
		}
		if _, err := New(cfg, set); err != nil {
			t.Fatalf("accepted weights that bert.New refuses: %v (info %+v)", err, info)
		}
	})
}
