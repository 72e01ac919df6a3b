package engine

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/encoder/quantize"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/modelfiles"
)

// hfLayoutDir returns tinyBERTDir with its graph moved to onnx/model.onnx,
// as optimum and Transformers.js lay a folder out, and beside it an int8
// graph (onnx/model_quantized.onnx), a float16 one (onnx/model_fp16.onnx)
// and one pooling inside itself (onnx/model_sentence.onnx: only
// sentence_embedding, mean-pooled and normalised).
func hfLayoutDir(t *testing.T) string {
	t.Helper()
	dir := tinyBERTDir(t, true)
	od := filepath.Join(dir, "onnx")
	if err := os.Mkdir(od, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, modelfiles.ONNX), filepath.Join(od, "model.onnx")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(od, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnx.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	q, _, err := quantize.Int8(m, quantize.Int8Options{PerChannel: true, Unsigned: true})
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := quantize.Float16(m, quantize.Float16Options{})
	if err != nil {
		t.Fatal(err)
	}
	set, info, err := bert.ReadONNX(data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := bert.ExportONNX(set, info.Config(), bert.ONNXOptions{ProducerVersion: "test", Sentence: &bert.SentenceOutput{Pooling: "mean", Normalize: true}})
	if err != nil {
		t.Fatal(err)
	}
	for name, mm := range map[string]*onnx.Model{"model_quantized.onnx": q, "model_fp16.onnx": h, "model_sentence.onnx": s} {
		if err := os.WriteFile(filepath.Join(od, name), mm.Marshal(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for j := range a {
		dot += float64(a[j]) * float64(b[j])
		na += float64(a[j]) * float64(a[j])
		nb += float64(b[j]) * float64(b[j])
	}
	return dot / math.Sqrt(na*nb)
}

func TestOpenONNXLayouts(t *testing.T) {
	lib := libPath(t)
	dir := hfLayoutDir(t)
	texts := []string{"the big red cat sat on the mat", "dogs", "a blue dog sat on a red mat", ""}
	g, err := Open(modelfiles.OSDir(dir), Options{Engine: Go})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := g.Encode(texts)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		onnxFile, path, graph string
		minCos                float64
	}{
		{"", "onnx/model.onnx", "float32", 1 - 1e-6},
		{"fp32", "onnx/model.onnx", "float32", 1 - 1e-6},
		{"quantized", "onnx/model_quantized.onnx", "int8-quantized (DynamicQuantizeLinear, MatMulInteger)", 0.95},
		{"fp16", "onnx/model_fp16.onnx", "float16", 0.9999},
		{"onnx/model_sentence.onnx", "onnx/model_sentence.onnx", "float32", 1 - 1e-6},
	}
	for _, tt := range tests {
		m, err := Open(modelfiles.OSDir(dir), Options{Engine: Auto, ORTLibrary: lib, Encoder: transformer.Options{Threads: 1, ONNXFile: tt.onnxFile}})
		if err != nil {
			t.Fatalf("modelfiles.ONNX %q: %v", tt.onnxFile, err)
		}
		if m.Info.Engine != ORT || m.Info.ONNXPath != filepath.Join(dir, filepath.FromSlash(tt.path)) || m.Info.Graph != tt.graph {
			t.Errorf("modelfiles.ONNX %q: info %+v, want ort on %s (%s)", tt.onnxFile, m.Info, tt.path, tt.graph)
		}
		got, _, err := m.Encode(texts)
		m.Close()
		if err != nil {
			t.Fatalf("modelfiles.ONNX %q: %v", tt.onnxFile, err)
		}
		for i := range texts {
			if c := cosine(got[i], want[i]); !(c >= tt.minCos) {
				t.Errorf("modelfiles.ONNX %q, text %d: cosine %.7f to the pure-Go engine's, want >= %v", tt.onnxFile, i, c, tt.minCos)
			}
		}
	}

	// A pooling asked for cannot apply to a graph that pools inside
	// itself.
	_, err = Open(modelfiles.OSDir(dir), Options{Engine: ORT, ORTLibrary: lib, Encoder: transformer.Options{ONNXFile: "onnx/model_sentence.onnx", Pooling: encoder.CLS}})
	if err == nil || !strings.Contains(err.Error(), "the graph gives only a sentence embedding pooled inside it (sentence_embedding), so the pooling asked for cannot be applied") {
		t.Errorf("cls pooling of a sentence graph: %v", err)
	}
	// A graph that is not there: the error lists those that are.
	_, err = Open(modelfiles.OSDir(dir), Options{Engine: ORT, ORTLibrary: lib, Encoder: transformer.Options{ONNXFile: "q4"}})
	if want := "no ONNX graph onnx/model_q4.onnx or model_q4.onnx (ONNX graphs in the folder: onnx/model.onnx, onnx/model_fp16.onnx, onnx/model_quantized.onnx, onnx/model_sentence.onnx)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("missing variant: %v, want it to contain %q", err, want)
	}
}

// TestGoRefusesQuantizedGraphs checks that the pure-Go engine refuses the
// int8 and float16 graphs with an error that says to use the ort engine;
// it needs no ONNX Runtime.
func TestGoRefusesQuantizedGraphs(t *testing.T) {
	dir := hfLayoutDir(t)
	for file, what := range map[string]string{"quantized": "int8-quantized (DynamicQuantizeLinear, MatMulInteger) graph", "fp16": "float16 graph"} {
		_, err := Open(modelfiles.OSDir(dir), Options{Engine: Go, Encoder: transformer.Options{ONNXFile: file}})
		want := "the pure-Go engine cannot run this " + what
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "use the ort engine (-engine ort)") || !strings.Contains(err.Error(), filepath.Join(dir, "onnx", "model_"+file+".onnx")) {
			t.Errorf("engine go, modelfiles.ONNX %q: %v; want it to name the file and say %q and to use -engine ort", file, err, want)
		}
	}
	// The plain float32 graph in onnx/ runs on the pure-Go engine.
	m, err := Open(modelfiles.OSDir(dir), Options{Engine: Go, Encoder: transformer.Options{ONNXFile: "fp32"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Encode([]string{"the cat"}); err != nil {
		t.Fatal(err)
	}
}

// TestORTReadsPoolerOutput checks that pooling "pooler" on the ort engine
// reads the graph's pooler_output and gives the pure-Go engine's pooler
// embedding.
func TestORTReadsPoolerOutput(t *testing.T) {
	lib := libPath(t)
	// tinyBERTDir's weights with BERT's pooler added, exported with
	// pooler_output.
	dir := tinyBERTDir(t, false)
	st, err := safetensors.ReadFile(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	set := st.Tensors
	w, bias := tensor.New(8, 8), tensor.New(8)
	for i := range w.Data {
		w.Data[i] = float32(i%7-3) / 10
	}
	for i := range bias.Data {
		bias.Data[i] = float32(i%3-1) / 10
	}
	set["pooler.dense.weight"], set["pooler.dense.bias"] = w, bias
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, set, safetensors.F32, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cj, err := os.Open(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := modelfiles.ReadConfig(cj, "config.json")
	cj.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := bert.WriteONNX(filepath.Join(dir, modelfiles.ONNX), set, cfg, bert.ONNXOptions{}); err != nil {
		t.Fatal(err)
	}
	texts := []string{"the big red cat sat on the mat", "dogs"}
	g, err := Open(modelfiles.OSDir(dir), Options{Engine: Go, Encoder: transformer.Options{Pooling: encoder.Pooler}})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := g.Encode(texts)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(modelfiles.OSDir(dir), Options{Engine: ORT, ORTLibrary: lib, Encoder: transformer.Options{Threads: 1, Pooling: encoder.Pooler}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if e := m.Embedder().(*ort.Embedder); e.Output().Name != onnx.PoolerOutput {
		t.Errorf("the ort engine reads %s, want %s", e.Output().Name, onnx.PoolerOutput)
	}
	got, _, err := m.Encode(texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		for j := range want[i] {
			if d := math.Abs(float64(got[i][j] - want[i][j])); d > 1e-5 {
				t.Fatalf("text %d value %d: ort %v, go %v", i, j, got[i][j], want[i][j])
			}
		}
	}
}
