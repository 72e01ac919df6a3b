//go:build !js

package transformer

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dreval/dreval/internal/torchbert"
	"github.com/dreval/dreval/modelfiles"
)

// torchBERT returns testdata/torch-bert (scripts/torchckpt-golden/gen.py)
// with its safetensors files written from tensors.json (internal/torchbert):
// a tiny random BERT saved by PyTorch as pytorch_model.bin (zip format) and
// pytorch_model.legacy.bin (legacy format), and the same values as
// model.safetensors.
func torchBERT(t testing.TB) string { return torchbert.Dir(t, "testdata/torch-bert") }

// torchDir writes a model directory with config.json, tinyBERT's
// tokenizer and the files named (path in the directory -> file of
// torchBERT).
func torchDir(t *testing.T, files map[string]string) string {
	t.Helper()
	_, _, _, tokJSON := tinyBERT(t)
	src := torchBERT(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"tokenizer.json": tokJSON, "config.json": readFile(t, filepath.Join(src, "config.json"))})
	for to, from := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, map[string][]byte{to: readFile(t, filepath.Join(src, from))})
	}
	return dir
}

func encodeDir(t *testing.T, dir string, texts []string) [][]float32 {
	t.Helper()
	e, err := Load(modelfiles.OSDir(dir), Options{})
	if err != nil {
		t.Fatalf("Load(%s): %v", dir, err)
	}
	v, _, err := e.Encode(texts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestReadWeightsPyTorch: the checkpoint PyTorch saved reads to the same
// tensors as the safetensors file of the same values, in both formats;
// the tied decoder weight is the word embeddings' storage read twice, and
// the int64 position_ids are skipped.
func TestReadWeightsPyTorch(t *testing.T) {
	d := modelfiles.OSDir(torchBERT(t))
	st, err := ReadWeights(d, "model.safetensors", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"pytorch_model.bin", "pytorch_model.legacy.bin"} {
		w, err := ReadWeights(d, file, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(w.Tensors.Names(), st.Tensors.Names()) {
			t.Fatalf("%s: tensors %v, want %v", file, w.Tensors.Names(), st.Tensors.Names())
		}
		for name, want := range st.Tensors {
			got := w.Tensors[name]
			if !slices.Equal(got.Shape, want.Shape) || !slices.EqualFunc(got.Data, want.Data, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
				t.Errorf("%s: %s differs from model.safetensors", file, name)
			}
		}
		if !slices.Equal(w.Skipped, []string{"bert.embeddings.position_ids (int64)"}) || !slices.Equal(st.Skipped, []string{"bert.embeddings.position_ids (I64)"}) {
			t.Errorf("%s: skipped %v (safetensors: %v)", file, w.Skipped, st.Skipped)
		}
		names, err := WeightNames(d, file)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(names, "bert.embeddings.position_ids") || len(names) != len(st.Tensors)+1 {
			t.Errorf("%s: WeightNames = %v", file, names)
		}
		head, err := ReadWeights(d, file, func(n string) bool { return strings.HasPrefix(n, "norm.") })
		if err != nil || !slices.Equal(head.Tensors.Names(), []string{"norm.bias", "norm.weight"}) {
			t.Errorf("%s: reading norm.*: %v, %v", file, head, err)
		}
	}
}

// TestLoadPyTorch loads the tiny BERT from pytorch_model.bin in both
// formats and from model.safetensors: identical embeddings, the same
// head (ANCE's embeddingHead and norm, found by the tensors' names), and
// safetensors preferred when both are there.
func TestLoadPyTorch(t *testing.T) {
	texts := []string{"the cat sat on the mat", "mat", "dog"}
	stDir := torchDir(t, map[string]string{"model.safetensors": "model.safetensors"})
	ref := encodeDir(t, stDir, texts)
	for _, c := range []struct {
		name  string
		files map[string]string
	}{
		{"zip", map[string]string{"pytorch_model.bin": "pytorch_model.bin"}},
		{"legacy", map[string]string{"pytorch_model.bin": "pytorch_model.legacy.bin"}},
		{"both", map[string]string{"pytorch_model.bin": "pytorch_model.legacy.bin", "model.safetensors": "model.safetensors"}},
		{"graph beside", map[string]string{"pytorch_model.bin": "pytorch_model.bin", "model.onnx": "config.json"}}, // not a graph: never read
	} {
		dir := torchDir(t, c.files)
		sameVectors(t, c.name, encodeDir(t, dir, texts), ref)
		s, err := ReadSettings(modelfiles.OSDir(dir), Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := "pytorch_model.bin"
		if c.name == "both" {
			want = "model.safetensors"
		}
		if s.Weights != want || s.Layout != "ANCE" {
			t.Errorf("%s: weights %s, layout %s; want %s, ANCE", c.name, s.Weights, s.Layout, want)
		}
	}
	// The browser app's in-memory directory.
	dir := torchDir(t, map[string]string{"pytorch_model.bin": "pytorch_model.bin"})
	mem := mapFS(t, dir, "models/torch")
	e, err := Load(modelfiles.FSDir(mem, "models/torch"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := e.Encode(texts)
	if err != nil {
		t.Fatal(err)
	}
	sameVectors(t, "in memory", v, ref)
}

// TestLoadDenseModulePyTorch: a sentence-transformers Dense module's
// weights read from pytorch_model.bin give what model.safetensors gives.
func TestLoadDenseModulePyTorch(t *testing.T) {
	texts := []string{"the cat", "on the mat"}
	module := func(weights, from string) string {
		dir := torchDir(t, map[string]string{"model.safetensors": "model.safetensors", "2_Dense/" + weights: from})
		writeFiles(t, dir, map[string][]byte{
			"modules.json": []byte(`[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},
				{"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"},
				{"idx":2,"name":"2","path":"2_Dense","type":"sentence_transformers.models.Dense"}]`),
		})
		if err := os.Mkdir(filepath.Join(dir, "1_Pooling"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, map[string][]byte{
			"1_Pooling/config.json": []byte(`{"word_embedding_dimension": 8, "pooling_mode_mean_tokens": true}`),
			"2_Dense/config.json":   []byte(`{"in_features": 8, "out_features": 4, "bias": true, "activation_function": "torch.nn.modules.activation.Tanh"}`),
		})
		return dir
	}
	ref := encodeDir(t, module("model.safetensors", "dense.safetensors"), texts)
	if len(ref[0]) != 4 {
		t.Fatalf("embeddings of %d values, want the Dense module's 4", len(ref[0]))
	}
	sameVectors(t, "2_Dense/pytorch_model.bin", encodeDir(t, module("pytorch_model.bin", "dense.bin"), texts), ref)

	noWeights := module("README.md", "config.json")
	if _, err := Load(modelfiles.OSDir(noWeights), Options{}); err == nil || !strings.Contains(err.Error(), "2_Dense: the module's weights are missing (expected one of model.safetensors, model.fp16.safetensors, pytorch_model.bin)") {
		t.Errorf("a Dense module without weights: %v", err)
	}
}

// TestLoadPyTorchErrors: a checkpoint that is not one, or that names a
// global other than a state dict's, fails with an error naming the file.
func TestLoadPyTorchErrors(t *testing.T) {
	_, _, cfgJSON, tokJSON := tinyBERT(t)
	evil := readFile(t, filepath.Join("..", "torchckpt", "testdata", "evil.bin"))
	for _, c := range []struct {
		name string
		bin  []byte
		want string
	}{
		{"not a checkpoint", []byte("version https://git-lfs.github.com/spec/v1\noid sha256:..."), "m/pytorch_model.bin: not a PyTorch checkpoint"},
		{"code", evil, "m/pytorch_model.bin: evil/data.pkl: pickle opcode GLOBAL at byte"},
		{"empty", nil, "m/pytorch_model.bin: 0 bytes, too short for a PyTorch checkpoint"},
	} {
		mem := fstest.MapFS{"m/config.json": {Data: cfgJSON}, "m/tokenizer.json": {Data: tokJSON}, "m/pytorch_model.bin": {Data: c.bin}}
		_, err := Load(modelfiles.FSDir(mem, "m"), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := ReadWeights(modelfiles.OSDir(torchBERT(t)), "config.json", nil); err == nil || !strings.Contains(err.Error(), "config.json is not a weights file dreval reads") {
		t.Errorf("ReadWeights of config.json: %v", err)
	}
}

// TestPyTorchRefusedWithoutReader: a build without the PyTorch reader
// (the browser app) refuses a checkpoint saying what it reads instead.
func TestPyTorchRefusedWithoutReader(t *testing.T) {
	saved := pytorch
	pytorch = nil
	t.Cleanup(func() { pytorch = saved })
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"pytorch_model.bin": []byte("PK not read")})
	for _, err := range []error{
		func() error { _, err := ReadWeights(modelfiles.OSDir(dir), "pytorch_model.bin", nil); return err }(),
		func() error { _, err := WeightNames(modelfiles.OSDir(dir), "pytorch_model.bin"); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "pytorch_model.bin is a PyTorch checkpoint, which the browser app does not read") {
			t.Errorf("without the reader: %v", err)
		}
	}
}
