//go:build cgo && unix

package ort

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/modelfiles"
)

// TestGenericInputs runs graphs whose inputs differ from the plain
// export's: int32 ids and mask, and an extra position_ids input, each fed
// as the graph declares it and giving the plain graph's embeddings.
func TestGenericInputs(t *testing.T) {
	lib := libPath(t)
	cp, err := berttest.New("bert-base-uncased", berttest.Sizes{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := cp.ConfigJSON()
	cfg, err := modelfiles.ReadConfig(bytes.NewReader(js), "config.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := bert.ExportONNX(cp.Tensors, cfg, bert.ONNXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, edit func(m *onnx.Model)) string {
		t.Helper()
		mm, err := onnx.Decode(m.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(mm)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, mm.Marshal(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ids := [][]int32{ramp(5, cfg.VocabSize), ramp(9, cfg.VocabSize), {2, 3}}
	plain, err := Open(write("plain.onnx", nil), lib, Options{Threads: 1, Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	want, err := plain.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		edit   func(m *onnx.Model)
		inputs string
	}{
		{"int32.onnx", func(m *onnx.Model) {
			for _, in := range m.Graph.Inputs {
				in.ElemType = onnx.Int32
			}
		}, "input_ids INT32,attention_mask INT32,token_type_ids INT32"},
		{"position-ids.onnx", func(m *onnx.Model) {
			m.Graph.Inputs = append(m.Graph.Inputs, &onnx.ValueInfo{Name: onnx.PositionIDs, ElemType: onnx.Int64, Dims: []onnx.Dim{{Param: "batch"}, {Param: "sequence"}}})
		}, "input_ids INT64,attention_mask INT64,token_type_ids INT64,position_ids INT64"},
	} {
		e, err := Open(write(tt.name, tt.edit), lib, Options{Threads: 1, Config: &cfg})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var got []string
		for _, in := range e.Graph().Inputs {
			got = append(got, in.Name+" "+onnx.DataTypeName(in.ElemType))
		}
		if strings.Join(got, ",") != tt.inputs {
			t.Errorf("%s: inputs %v, want %s", tt.name, got, tt.inputs)
		}
		vecs, err := e.EmbedIDs(ids)
		e.Close()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for i := range vecs {
			for j := range vecs[i] {
				if d := math.Abs(float64(vecs[i][j] - want[i][j])); d > 1e-6 {
					t.Fatalf("%s: sequence %d value %d: %v, want %v", tt.name, i, j, vecs[i][j], want[i][j])
				}
			}
		}
	}
	// Without the configuration, a graph the pure-Go reader refuses
	// cannot be run: Open says what it needs.
	q := write("fused.onnx", func(m *onnx.Model) {
		m.Graph.Nodes = append(m.Graph.Nodes, &onnx.Node{Name: "x", OpType: "Identity", Domain: "com.microsoft", Inputs: []string{onnx.LastHiddenState}, Outputs: []string{"unused"}})
	})
	if _, err := Open(q, lib, Options{Threads: 1}); err == nil || !strings.Contains(err.Error(), q+": the model's configuration (config.json) is needed to run this graph") {
		t.Errorf("fused graph without a configuration: %v", err)
	}
}
