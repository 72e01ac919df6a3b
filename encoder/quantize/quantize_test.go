package quantize

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/internal/float16"
	"github.com/dreval/dreval/modelfiles"
)

var cfg = modelfiles.Config{VocabSize: 20, HiddenSize: 8, NumHiddenLayers: 2, NumAttentionHeads: 2,
	IntermediateSize: 12, HiddenAct: "gelu", MaxPositionEmbeddings: 16, TypeVocabSize: 2, LayerNormEps: 1e-12, ModelType: "bert"}

// export returns a decoded float32 export of cfg with random weights.
func export(t *testing.T, opset int) *onnx.Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	set := tensor.Set{}
	for name, shape := range bert.TensorShapes(cfg, true) {
		x := tensor.New(shape...)
		for i := range x.Data {
			x.Data[i] = float32(rng.NormFloat64() * 0.1)
		}
		set[name] = x
	}
	m, err := bert.ExportONNX(set, cfg, bert.ONNXOptions{Opset: opset})
	if err != nil {
		t.Fatal(err)
	}
	m, err = onnx.Decode(m.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func countOps(m *onnx.Model) map[string]int {
	c := map[string]int{}
	for _, n := range m.Graph.Nodes {
		c[n.OpType]++
	}
	return c
}

func TestInt8(t *testing.T) {
	m := export(t, 14)
	before := countOps(m)
	// Per layer: query, key, value, attention output, intermediate and
	// output; then the pooler (a Gemm or MatMul by a constant).
	perLayer := 6
	for _, tt := range []struct {
		o             Int8Options
		matmuls, kept int
		weightType    int
	}{
		{Int8Options{PerChannel: true, Unsigned: true, Embeddings: true}, perLayer * cfg.NumHiddenLayers, 0, onnx.Uint8},
		{Int8Options{FloatDown: true}, (perLayer - 1) * cfg.NumHiddenLayers, cfg.NumHiddenLayers, onnx.Int8},
	} {
		q, rep, err := Int8(m, tt.o)
		if err != nil {
			t.Fatal(err)
		}
		after := countOps(q)
		if rep.MatMuls < tt.matmuls || rep.Kept != tt.kept || after["MatMulInteger"] != rep.MatMuls || after["DynamicQuantizeLinear"] == 0 || after["DynamicQuantizeLinear"] > rep.MatMuls {
			t.Errorf("%+v: report %+v, ops %v; want at least %d MatMulInteger, %d kept", tt.o, rep, after, tt.matmuls, tt.kept)
		}
		if after["MatMul"] != before["MatMul"]-rep.MatMuls {
			t.Errorf("%+v: %d MatMul left of %d, %d rewritten", tt.o, after["MatMul"], before["MatMul"], rep.MatMuls)
		}
		if tt.o.Embeddings != (rep.Tables == 1) {
			t.Errorf("%+v: %d tables quantized", tt.o, rep.Tables)
		}
		g, err := onnx.Inspect(q.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		if g.Precision != onnx.PrecisionInt8 || g.Vocab != cfg.VocabSize {
			t.Errorf("%+v: Inspect says %s, vocab %d", tt.o, g.Describe(), g.Vocab)
		}
		// Each quantized weight dequantizes to within half a step of
		// the original.
		inits := map[string]*onnx.Tensor{}
		for _, x := range q.Graph.Initializers {
			inits[x.Name] = x
		}
		orig := map[string]*onnx.Tensor{}
		for _, x := range m.Graph.Initializers {
			orig[x.Name] = x
		}
		checked := 0
		for _, n := range q.Graph.Nodes {
			if n.OpType != "MatMulInteger" {
				continue
			}
			w, zero := inits[n.Inputs[1]], inits[n.Inputs[3]]
			name := strings.TrimSuffix(w.Name, "_quantized")
			scale := inits[name+"_scale"]
			if w.DataType != tt.weightType || zero.DataType != tt.weightType || scale == nil || orig[name] == nil {
				t.Fatalf("%s: type %d, zero point %d, scale %v", w.Name, w.DataType, zero.DataType, scale)
			}
			want, _ := orig[name].Float32()
			scales, _ := scale.Float32()
			cols := int(w.Dims[1])
			for i, v := range want {
				s := scales[0]
				if tt.o.PerChannel {
					s = scales[i%cols]
				}
				var qv int
				if w.DataType == onnx.Uint8 {
					qv = int(w.RawData[i]) - int(zero.RawData[0])
				} else {
					qv = int(int8(w.RawData[i]))
				}
				if d := math.Abs(float64(v) - float64(qv)*float64(s)); d > float64(s)/2*(1+1e-6) || qv < -127 || qv > 127 {
					t.Fatalf("%s[%d] = %v quantized to %d x %v", name, i, v, qv, s)
				}
			}
			checked++
		}
		if checked != rep.MatMuls {
			t.Errorf("checked %d weights of %d", checked, rep.MatMuls)
		}
		if _, _, err := Int8(q, tt.o); err == nil || !strings.Contains(err.Error(), "the graph is already int8-quantized") {
			t.Errorf("quantizing again: %v", err)
		}
	}
	old := export(t, 14)
	old.Opsets[""] = 12
	if _, _, err := Int8(old, Int8Options{}); err == nil || !strings.Contains(err.Error(), "opset 12 is older than 13") {
		t.Errorf("opset 12: %v", err)
	}
}

func TestFloat16(t *testing.T) {
	m := export(t, 17)
	for _, fp32Out := range []bool{false, true} {
		h, rep, err := Float16(m, Float16Options{Float32Outputs: fp32Out})
		if err != nil {
			t.Fatal(err)
		}
		g, err := onnx.Inspect(h.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		want := onnx.Float16
		if fp32Out {
			want = onnx.Float
		}
		for _, o := range g.Outputs {
			if o.ElemType != want {
				t.Errorf("Float32Outputs %v: output %s", fp32Out, o)
			}
		}
		if g.Precision != onnx.PrecisionFP16 || rep.Float16 == 0 || rep.Casts == 0 {
			t.Errorf("Float32Outputs %v: %s, report %+v", fp32Out, g.Describe(), rep)
		}
		// Matrix products read float16 weights; layer norms run in
		// float32.
		inits := map[string]*onnx.Tensor{}
		for _, x := range h.Graph.Initializers {
			inits[x.Name] = x
		}
		for _, n := range h.Graph.Nodes {
			switch n.OpType {
			case "MatMul":
				if w := inits[n.Inputs[1]]; w != nil && w.DataType != onnx.Float16 {
					t.Errorf("%s reads %s of type %d", n.Name, w.Name, w.DataType)
				}
			case "LayerNormalization":
				if w := inits[n.Inputs[1]]; w == nil || w.DataType != onnx.Float {
					t.Errorf("%s reads a scale that is not float32", n.Name)
				}
			}
		}
		if _, _, err := Float16(h, Float16Options{}); err == nil || !strings.Contains(err.Error(), "the graph is already float16") {
			t.Errorf("converting again: %v", err)
		}
	}
	if got := saturatingHalf(-3.4e38); got != float16.FromFloat32(-65504) {
		t.Errorf("saturatingHalf(-3.4e38) = %#04x", got)
	}
	if got := saturatingHalf(float32(math.Inf(1))); got != 0x7c00 {
		t.Errorf("saturatingHalf(+Inf) = %#04x", got)
	}
}
