// Package torchbert materialises the tiny PyTorch BERT of
// encoder/transformer/testdata/torch-bert for tests. scripts/torchckpt-golden/gen.py
// saved it there with PyTorch (pytorch_model.bin, its legacy form,
// plain.bin, dense.bin) and wrote the same values as text, tensors.json:
// each safetensors file's tensors with dtype, shape and values. Dir writes
// those safetensors files from the text, so that the repository holds no
// weight files of its own making beyond PyTorch's reference checkpoints.
package torchbert

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// tensorText is one tensor of tensors.json.
type tensorText struct {
	DType  string    `json:"dtype"`
	Shape  []int64   `json:"shape"`
	Values []float64 `json:"values"`
}

// Dir copies the files of src (encoder/transformer/testdata/torch-bert) into a
// temporary directory, writes there each safetensors file tensors.json
// describes, and returns the directory.
func Dir(t testing.TB, src string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	var files map[string]map[string]tensorText
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "tensors.json" {
			if err := json.Unmarshal(b, &files); err != nil {
				t.Fatalf("%s: %v", filepath.Join(src, e.Name()), err)
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(files) == 0 {
		t.Fatalf("%s: no tensors.json", src)
	}
	for name, tensors := range files {
		b, err := safetensors(tensors)
		if err != nil {
			t.Fatalf("%s: %s: %v", src, name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// safetensors lays tensors out as gen.py's write_safetensors does: a JSON
// header of dtype, shape and data offsets (tensors in name order), padded
// with spaces to a multiple of 8, then the little-endian values.
func safetensors(tensors map[string]tensorText) ([]byte, error) {
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	slices.Sort(names)
	header := map[string]any{}
	var data []byte
	for _, n := range names {
		tt := tensors[n]
		numel := int64(1)
		for _, d := range tt.Shape {
			numel *= d
		}
		if numel != int64(len(tt.Values)) {
			return nil, fmt.Errorf("tensor %s: shape %v holds %d values, not %d", n, tt.Shape, numel, len(tt.Values))
		}
		start := len(data)
		for _, v := range tt.Values {
			switch tt.DType {
			case "F32":
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32(v)))
			case "I64":
				data = binary.LittleEndian.AppendUint64(data, uint64(int64(v)))
			default:
				return nil, fmt.Errorf("tensor %s: dtype %q (want F32 or I64)", n, tt.DType)
			}
		}
		header[n] = map[string]any{"dtype": tt.DType, "shape": tt.Shape, "data_offsets": []int{start, len(data)}}
	}
	h, err := json.Marshal(header)
	if err != nil {
		return nil, err
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	return append(append(out, h...), data...), nil
}
