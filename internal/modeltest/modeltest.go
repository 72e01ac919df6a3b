// Package modeltest prepares model directories for tests from the
// installed models (internal/sharedtest finds them): the same model with
// its weights as an ONNX graph, for the loaders and engines that read one.
package modeltest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

// safetensorsFiles are the weight files of an installed model, in the
// order the loaders take them.
var safetensorsFiles = []string{"model.safetensors", "model.fp16.safetensors"}

// ONNXDir returns a new directory, named name+"-onnx", holding the
// installed model name's safetensors weights exported as model.onnx
// (float32: fp16 weights are decoded, then written unchanged) and copies
// of the listed files of the installed model (say "tokenizer.json",
// "config.json"; copies, not links, which a browser's folder upload
// would skip). It skips t, or fails it under CI, when the model is
// not installed.
func ONNXDir(t testing.TB, name string, files ...string) string {
	t.Helper()
	src := sharedtest.ModelDir(t, name)
	cfgPath := filepath.Join(src, "config.json")
	f, err := os.Open(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := modelfiles.ReadConfig(f, cfgPath)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var st *safetensors.File
	for _, w := range safetensorsFiles {
		if p := filepath.Join(src, w); fileExists(p) {
			if st, err = safetensors.ReadFile(p); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if st == nil {
		t.Fatalf("%s holds none of %s", src, strings.Join(safetensorsFiles, ", "))
	}
	dir := filepath.Join(t.TempDir(), name+"-onnx")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := bert.WriteONNX(filepath.Join(dir, "model.onnx"), st.Tensors, cfg, bert.ONNXOptions{ProducerVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Settings returns the sentence-transformers settings files of the
// installed model name (modules.json, 1_Pooling/config.json,
// sentence_bert_config.json, config_sentence_transformers.json: those it
// has), for ONNXDir copies that must embed as the model does.
func Settings(t testing.TB, name string) []string {
	t.Helper()
	src := sharedtest.ModelDir(t, name)
	var out []string
	for _, f := range []string{"modules.json", "1_Pooling/config.json", "sentence_bert_config.json", "config_sentence_transformers.json"} {
		if fileExists(filepath.Join(src, filepath.FromSlash(f))) {
			out = append(out, f)
		}
	}
	return out
}
