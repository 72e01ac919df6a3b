package ortweb_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/ortweb"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/internal/retrievertest"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

// exported returns what bert.ExportONNX and Marshal write for the settings'
// transformer, as "dreval model export-onnx" does.
func exported(t *testing.T, s *transformer.Settings, producer string) []byte {
	t.Helper()
	w, err := transformer.ReadWeights(s.Transformer, s.Weights, nil)
	if err != nil {
		t.Fatal(err)
	}
	prefix, err := bert.DetectPrefix(s.Config, w.Tensors)
	if err != nil {
		t.Fatal(err)
	}
	m, err := bert.ExportONNX(w.Tensors, s.Config, bert.ONNXOptions{ProducerVersion: producer, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	return m.Marshal()
}

// sameModel checks that two ONNX files hold the same model: version,
// producer, opsets, nodes in order, inputs and outputs, and the same
// initializers (by name, bit for bit), whatever their order.
func sameModel(t *testing.T, got, want []byte) { sameModelNodes(t, got, want, true) }

// sameModelNodes is sameModel, comparing the nodes only when nodes is
// set (an older exporter wrote the same computation in another order).
func sameModelNodes(t *testing.T, got, want []byte, nodes bool) {
	t.Helper()
	g, err := onnx.Decode(got)
	if err != nil {
		t.Fatalf("the built graph does not decode: %v", err)
	}
	w, err := onnx.Decode(want)
	if err != nil {
		t.Fatal(err)
	}
	if g.IRVersion != w.IRVersion || g.ProducerName != w.ProducerName || (nodes && g.ProducerVersion != w.ProducerVersion) || !reflect.DeepEqual(g.Opsets, w.Opsets) {
		t.Errorf("model fields: got %d %q %q %v, want %d %q %q %v", g.IRVersion, g.ProducerName, g.ProducerVersion, g.Opsets, w.IRVersion, w.ProducerName, w.ProducerVersion, w.Opsets)
	}
	if (nodes && !reflect.DeepEqual(g.Graph.Nodes, w.Graph.Nodes)) || len(g.Graph.Nodes) != len(w.Graph.Nodes) || !reflect.DeepEqual(g.Graph.Inputs, w.Graph.Inputs) || !reflect.DeepEqual(g.Graph.Outputs, w.Graph.Outputs) || g.Graph.Name != w.Graph.Name {
		t.Errorf("the graphs' nodes, inputs or outputs differ")
	}
	byName := func(m *onnx.Model) map[string]*onnx.Tensor {
		out := map[string]*onnx.Tensor{}
		for _, x := range m.Graph.Initializers {
			out[x.Name] = x
		}
		return out
	}
	gi, wi := byName(g), byName(w)
	if len(gi) != len(wi) || len(gi) != len(g.Graph.Initializers) {
		t.Fatalf("%d initializers (%d names), want %d", len(g.Graph.Initializers), len(gi), len(wi))
	}
	for name, x := range wi {
		y := gi[name]
		if y == nil {
			t.Errorf("initializer %s is missing", name)
			continue
		}
		if y.DataType != x.DataType || !reflect.DeepEqual(y.Dims, x.Dims) || !bytes.Equal(y.RawData, x.RawData) {
			t.Errorf("initializer %s differs", name)
		}
	}
}

// TestBuildGraphEveryFamily builds the graph of a tiny checkpoint of every
// family from its weights and checks it is the model the exporter
// writes, and that package onnx's own reader reads the same weights from
// it as from the exporter's file.
func TestBuildGraphEveryFamily(t *testing.T) {
	for _, layout := range []string{"bert", "roberta", "distilbert", "mpnet", "ance-sentence-transformers"} {
		t.Run(layout, func(t *testing.T) {
			dir := t.TempDir()
			retrievertest.Write(t, layout, dir, 7)
			s, err := transformer.ReadSettings(modelfiles.OSDir(dir), transformer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			g, err := ortweb.BuildGraph(s, "test")
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Parts) < 4 || g.Source != "exported from "+s.Weights {
				t.Errorf("%d parts from %q; want the structure and every weight apart, exported from the weights", len(g.Parts), g.Source)
			}
			file := g.Bytes()
			if len(file) != g.Size {
				t.Fatalf("Size %d, the parts hold %d bytes", g.Size, len(file))
			}
			want := exported(t, s, "test")
			if len(file) != len(want) {
				t.Errorf("%d bytes, the exporter writes %d", len(file), len(want))
			}
			sameModel(t, file, want)
			got, _, err := bert.ReadONNX(file)
			if err != nil {
				t.Fatalf("package onnx cannot read the built graph: %v", err)
			}
			ref, _, err := bert.ReadONNX(want)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(ref) {
				t.Fatalf("%d weights read back, %d from the exporter's file", len(got), len(ref))
			}
			for name, x := range ref {
				if y := got[name]; y == nil || !reflect.DeepEqual(y.Data, x.Data) || !reflect.DeepEqual(y.Shape, x.Shape) {
					t.Errorf("weight %s read back differs", name)
				}
			}
		})
	}
}

// TestBuildGraphUsesModelONNX: a transformer folder with model.onnx runs
// that graph, as the native ort engine does.
func TestBuildGraphUsesModelONNX(t *testing.T) {
	dir := t.TempDir()
	retrievertest.Write(t, "bert", dir, 3)
	s, err := transformer.ReadSettings(modelfiles.OSDir(dir), transformer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := exported(t, s, "on disk")
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), want, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := ortweb.BuildGraph(s, "test")
	if err != nil {
		t.Fatal(err)
	}
	if g.Source != "model.onnx" || !bytes.Equal(g.Bytes(), want) {
		t.Errorf("source %q, %d bytes; want model.onnx as it is", g.Source, g.Size)
	}
}

// TestBuildGraphMiniLM checks the graph the browser builds from the
// installed all-MiniLM-L6-v2's fp16 safetensors: the model "dreval model
// export-onnx" writes, and the weights of the model.onnx "make setup"
// exported for the native engine, bit for bit.
func TestBuildGraphMiniLM(t *testing.T) {
	dir := sharedtest.ModelDir(t, "minilm")
	onDisk, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		if sharedtest.InCI() {
			t.Fatal(err)
		}
		t.Skipf("%v (make setup exports it)", err)
	}
	// The folder without its graph, as the browser receives it.
	s, err := transformer.ReadSettings(modelfiles.OSDir(withoutONNX(t, dir)), transformer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := ortweb.BuildGraph(s, "test")
	if err != nil {
		t.Fatal(err)
	}
	if g.Source != "exported from model.fp16.safetensors" {
		t.Errorf("source %q", g.Source)
	}
	file := g.Bytes()
	sameModel(t, file, exported(t, s, "test"))
	sameModelNodes(t, file, onDisk, false)
	t.Logf("%d pieces, %d bytes (model.onnx: %d)", len(g.Parts), g.Size, len(onDisk))
}

// TestNewPlan checks which graphs the engine feeds and reads.
func TestNewPlan(t *testing.T) {
	i64 := func(names ...string) []ortweb.Value {
		var out []ortweb.Value
		for _, n := range names {
			out = append(out, ortweb.Value{Name: n, Type: "int64", Tensor: true, Rank: 2})
		}
		return out
	}
	hidden := []ortweb.Value{{Name: "last_hidden_state", Type: "float32", Tensor: true, Rank: 3}, {Name: "pooler_output", Type: "float32", Tensor: true, Rank: 2}}
	for _, tc := range []struct {
		name    string
		in, out []ortweb.Value
		want    string // the plan, or the error's start
	}{
		{"bert", i64("input_ids", "attention_mask", "token_type_ids"), hidden, "input_ids:0 attention_mask:1 token_type_ids:2 -> last_hidden_state"},
		{"roberta", i64("input_ids", "attention_mask"), hidden, "input_ids:0 attention_mask:1 -> last_hidden_state"},
		{"positions, int32", []ortweb.Value{{Name: "input_ids", Type: "int32", Tensor: true, Rank: 2}, {Name: "position_ids", Type: "int32", Tensor: true, Rank: -1}}, hidden, "input_ids:0/32 position_ids:3/32 -> last_hidden_state"},
		{"st export fp16", i64("input_ids", "attention_mask"), []ortweb.Value{{Name: "token_embeddings", Type: "float16", Tensor: true, Rank: 3}, {Name: "sentence_embedding", Type: "float16", Tensor: true, Rank: 2}}, "input_ids:0 attention_mask:1 -> token_embeddings/16"},
		{"unknown input", i64("input_ids", "pixel_values"), hidden, `the graph has an input "pixel_values"`},
		{"float input", []ortweb.Value{{Name: "input_ids", Type: "float32", Tensor: true, Rank: 2}}, hidden, "the graph's input input_ids is float32"},
		{"no ids", i64("attention_mask"), hidden, "the graph's inputs are attention_mask, without input_ids"},
		{"pooled only", i64("input_ids"), []ortweb.Value{{Name: "sentence_embedding", Type: "float32", Tensor: true, Rank: 2}}, "the graph's outputs are sentence_embedding (float32)"},
		{"int8 output", i64("input_ids"), []ortweb.Value{{Name: "last_hidden_state", Type: "int8", Tensor: true, Rank: 3}}, "the graph's output last_hidden_state is a int8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ortweb.NewPlan(tc.in, tc.out)
			var got string
			if err != nil {
				got = err.Error()
			} else {
				for _, in := range p.Inputs {
					got += fmt.Sprintf("%s:%d", in.Name, in.Feed)
					if in.Int32 {
						got += "/32"
					}
					got += " "
				}
				got += "-> " + p.Output
				if p.Float16 {
					got += "/16"
				}
			}
			if len(got) < len(tc.want) || got[:len(tc.want)] != tc.want {
				t.Errorf("got %q, want %q...", got, tc.want)
			}
		})
	}
}

// TestFeedsAndHidden checks the padded batch and the unpadding.
func TestFeedsAndHidden(t *testing.T) {
	p := &ortweb.Plan{Inputs: []ortweb.Input{{Name: "input_ids", Feed: ortweb.FeedIDs}, {Name: "attention_mask", Feed: ortweb.FeedMask, Int32: true},
		{Name: "token_type_ids", Feed: ortweb.FeedTokenTypes}, {Name: "position_ids", Feed: ortweb.FeedPositions}}, Output: "last_hidden_state"}
	width, data := p.Feeds([][]int32{{0, 5, 2}, {0, 7}}, ortweb.Padding{PadID: 1, PositionOffset: 2})
	if width != 3 || len(data) != 4 {
		t.Fatalf("width %d, %d inputs", width, len(data))
	}
	ints := func(b []byte, size int) []int64 {
		var out []int64
		for i := 0; i < len(b); i += size {
			v := int64(0)
			for k := size - 1; k >= 0; k-- {
				v = v<<8 | int64(b[i+k])
			}
			out = append(out, v)
		}
		return out
	}
	for i, want := range [][]int64{{0, 5, 2, 0, 7, 1}, {1, 1, 1, 1, 1, 0}, {0, 0, 0, 0, 0, 0}, {2, 3, 4, 2, 3, 1}} {
		size := 8
		if p.Inputs[i].Int32 {
			size = 4
		}
		if got := ints(data[i], size); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", p.Inputs[i].Name, got, want)
		}
	}
	// Two sequences of 3 and 2 tokens, width 3, 2 values each.
	var raw []byte
	for i := 0; i < 12; i++ {
		raw = append(raw, f32bytes(float32(i))...)
	}
	h, err := p.Hidden(raw, []int{3, 2}, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h, [][]float32{{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9}}) {
		t.Errorf("unpadded %v", h)
	}
	if _, err := p.Hidden(raw[:40], []int{3, 2}, 3, 2); err == nil {
		t.Error("a short output was accepted")
	}
	half := &ortweb.Plan{Output: "token_embeddings", Float16: true}
	h, err = half.Hidden([]byte{0x00, 0x3c, 0x00, 0xc0}, []int{1}, 1, 2) // 1.0, -2.0
	if err != nil || !reflect.DeepEqual(h, [][]float32{{1, -2}}) {
		t.Errorf("float16: %v %v", h, err)
	}
}

func f32bytes(f float32) []byte {
	u := math.Float32bits(f)
	return []byte{byte(u), byte(u >> 8), byte(u >> 16), byte(u >> 24)}
}

// withoutONNX returns a folder linking to every file of dir but
// model.onnx.
func withoutONNX(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "model.onnx" {
			continue
		}
		if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(out, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
