package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/internal/torchbert"
)

// runExportONNX runs "dreval model export-onnx args..." in-process.
func runExportONNX(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	err = modelExportONNX.run(env, subFlagSet(env, modelExportONNX), args)
	return out.String(), errb.String(), err
}

// tinyModelDir writes a two-layer BERT model directory (config.json and
// F16 safetensors with random weights).
func tinyModelDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfg := map[string]any{
		"vocab_size": 30, "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
		"intermediate_size": 16, "hidden_act": "gelu", "max_position_embeddings": 12,
		"type_vocab_size": 2, "layer_norm_eps": 1e-12, "model_type": "bert",
	}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	set := berttest.Weights(berttest.Sizes{Vocab: 30, Hidden: 8, Layers: 2, Intermediate: 16, Positions: 12, TypeVocab: 2}, 1, 2, "")
	f, err := os.Create(filepath.Join(dir, "model.fp16.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := safetensors.Write(f, set, safetensors.F16, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestModelExportONNX(t *testing.T) {
	dir := tinyModelDir(t)
	for _, opset := range []string{"14", "17"} {
		out := filepath.Join(t.TempDir(), "model.onnx")
		stdout, stderr, err := runExportONNX(t, "-model", dir, "-out", out, "-opset", opset)
		if err != nil {
			t.Fatalf("opset %s: %v (stderr %q)", opset, err, stderr)
		}
		if !strings.Contains(stdout, "opset "+opset+", 2 layers, hidden 8, 2 heads); read back: 37 tensors identical") {
			t.Errorf("stdout %q", stdout)
		}
		set, info, err := bert.ReadONNXFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := strconv.Atoi(opset); len(set) != 37 || info.Opset != int64(n) {
			t.Errorf("read %d tensors, info %+v", len(set), info)
		}
	}
}

func TestModelExportONNXDefaultOut(t *testing.T) {
	dir := tinyModelDir(t)
	if _, _, err := runExportONNX(t, "-model", dir); err != nil {
		t.Fatal(err)
	}
	if _, _, err := bert.ReadONNXFile(filepath.Join(dir, "model.onnx")); err != nil {
		t.Fatal(err)
	}
}

func TestModelExportONNXErrors(t *testing.T) {
	dir := tinyModelDir(t)
	out := filepath.Join(t.TempDir(), "m.onnx")
	for _, c := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{"-out", out}, true, "-model is required"},
		{[]string{"-model", dir, "-out", out, "-opset", "13"}, true, "-opset 13 is not supported (use 14 to 21)"},
		{[]string{"-model", dir, "-out", out, "extra"}, true, "unexpected arguments"},
		{[]string{"-model", "nosuchmodel", "-models", t.TempDir(), "-out", out}, false, "nosuchmodel a model directory?"},
		{[]string{"-model", t.TempDir(), "-out", out}, false, "not a model directory (it has no config.json"},
	} {
		_, _, err := runExportONNX(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
			continue
		}
		if isUsage := strings.HasPrefix(err.Error(), errUsage.Error()); isUsage != c.usage {
			t.Errorf("%v: usage error = %v, want %v", c.args, isUsage, c.usage)
		}
	}

	// A directory with config.json but no weights.
	empty := t.TempDir()
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.json"))
	os.WriteFile(filepath.Join(empty, "config.json"), cfg, 0o644)
	if _, _, err := runExportONNX(t, "-model", empty, "-out", out); err == nil || !strings.Contains(err.Error(), "holds no weights to export (expected one of [model.safetensors model.fp16.safetensors pytorch_model.bin])") {
		t.Errorf("error %v", err)
	}
}

// TestModelExportONNXPyTorch exports a BERT whose weights PyTorch saved
// as pytorch_model.bin (encoder/transformer/testdata/torch-bert, written by
// scripts/torchckpt-golden/gen.py) and checks the graph holds the tensors
// of model.safetensors of the same values, bit for bit; the checkpoint's
// int64 position_ids are left out.
func TestModelExportONNXPyTorch(t *testing.T) {
	src := torchbert.Dir(t, filepath.Join("..", "..", "encoder", "transformer", "testdata", "torch-bert"))
	export := func(from, to string) (tensor.Set, string) {
		t.Helper()
		dir := t.TempDir()
		for f, as := range map[string]string{"config.json": "config.json", from: to} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, as), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		stdout, _, err := runExportONNX(t, "-model", dir)
		if err != nil {
			t.Fatalf("%s: %v", from, err)
		}
		set, _, err := bert.ReadONNXFile(filepath.Join(dir, "model.onnx"))
		if err != nil {
			t.Fatal(err)
		}
		return set, stdout
	}
	want, _ := export("plain.safetensors", "model.safetensors")
	got, stdout := export("plain.bin", "pytorch_model.bin")
	if !strings.Contains(stdout, "1 layers, hidden 8, 2 heads); read back: 21 tensors identical to pytorch_model.bin") {
		t.Errorf("stdout %q", stdout)
	}
	if n, err := sameWeights(got, want); err != nil || n != 21 {
		t.Errorf("the graphs from pytorch_model.bin and model.safetensors differ: %d tensors, %v", n, err)
	}
}

// TestModelExportONNXMiniLM exports the installed all-MiniLM-L6-v2 by name.
func TestModelExportONNXMiniLM(t *testing.T) {
	models := filepath.Dir(sharedtest.ModelDir(t, "minilm"))
	out := filepath.Join(t.TempDir(), "minilm.onnx")
	stdout, _, err := runExportONNX(t, "-models", models, "-model", "minilm", "-out", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "opset 14, 6 layers, hidden 384, 12 heads); read back: 103 tensors identical to model.fp16.safetensors") {
		t.Errorf("stdout %q", stdout)
	}
}

// TestModelExportONNXEveryLayout exports a tiny checkpoint in each
// published layout (prefixes and heads included): the graph holds the
// encoder of the checkpoint's family, and the heads are named as left
// out.
func TestModelExportONNXEveryLayout(t *testing.T) {
	for _, layout := range berttest.Layouts() {
		t.Run(layout, func(t *testing.T) {
			cp, err := berttest.New(layout, berttest.Sizes{}, 3)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), layout)
			if err := cp.Write(dir); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, err := runExportONNX(t, "-model", dir)
			if err != nil {
				t.Fatalf("%v (stderr %q)", err, stderr)
			}
			if !strings.Contains(stdout, "model.onnx ("+cp.Family+", ") || !strings.Contains(stdout, "tensors identical to model.safetensors") {
				t.Errorf("stdout %q", stdout)
			}
			var heads []string
			for _, name := range cp.Tensors.Names() {
				if !strings.HasPrefix(name, cp.Prefix) || !(strings.Contains(name, "embeddings.") || strings.Contains(name, "encoder.") || strings.Contains(name, "transformer.") || strings.Contains(name, "pooler.")) {
					heads = append(heads, name)
				}
			}
			if len(heads) > 0 && !strings.Contains(stdout, "left out of the graph (not the encoder's): "+strings.Join(heads, ", ")) {
				t.Errorf("stdout %q does not name the heads %v", stdout, heads)
			}
			_, info, err := bert.ReadONNXFile(filepath.Join(dir, "model.onnx"))
			if err != nil {
				t.Fatal(err)
			}
			if string(info.Family) != cp.Family {
				t.Errorf("graph family %q, want %q", info.Family, cp.Family)
			}
		})
	}
}
