package transformer

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/internal/modeltest"
	"github.com/dreval/dreval/modelfiles"
)

// writeFiles writes name -> contents into dir.
func writeFiles(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// onnxDir writes a model directory holding dir's tokenizer.json, the
// weights in set exported as model.onnx, and config.json when cfgJSON is
// not nil.
func onnxDir(t testing.TB, set tensor.Set, cfg modelfiles.Config, cfgJSON, tokJSON []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := bert.WriteONNX(filepath.Join(dir, modelfiles.ONNX), set, cfg, bert.ONNXOptions{ProducerVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"tokenizer.json": tokJSON}
	if cfgJSON != nil {
		files["config.json"] = cfgJSON
	}
	writeFiles(t, dir, files)
	return dir
}

// sameVectors fails unless a and b hold the same float32 bits.
func sameVectors(t *testing.T, what string, a, b [][]float32) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d vectors, want %d", what, len(a), len(b))
	}
	for i := range a {
		for j := range a[i] {
			if math.Float32bits(a[i][j]) != math.Float32bits(b[i][j]) {
				t.Fatalf("%s: vector %d element %d is %v, want %v (same bits)", what, i, j, a[i][j], b[i][j])
			}
		}
	}
}

// TestLoadONNXMiniLM exports the installed MiniLM (fp16 safetensors,
// decoded to float32, which the export writes unchanged) as model.onnx and
// checks that Load gives bit-identical embeddings from the graph, with
// config.json and with the configuration read from the graph.
func TestLoadONNXMiniLM(t *testing.T) {
	st := []string{"modules.json", "1_Pooling/config.json", "sentence_bert_config.json", "config_sentence_transformers.json"}
	withCfg := modeltest.ONNXDir(t, "minilm", append([]string{"config.json", "tokenizer.json"}, st...)...)
	noCfg := modeltest.ONNXDir(t, "minilm", append([]string{"tokenizer.json"}, st...)...)

	texts := []string{"This is an example sentence", "what is the boiling point of water at high altitude", "a"}
	ref, _, err := miniLM(t).Encode(texts)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{withCfg, noCfg} {
		e, err := Load(modelfiles.OSDir(dir), Options{})
		if err != nil {
			t.Fatalf("Load(%s): %v", dir, err)
		}
		if e.MaxLength() != miniLM(t).MaxLength() {
			t.Errorf("%s: max length %d, want %d", dir, e.MaxLength(), miniLM(t).MaxLength())
		}
		got, _, err := e.Encode(texts)
		if err != nil {
			t.Fatal(err)
		}
		sameVectors(t, dir, got, ref)
		if w, err := modelfiles.OSDir(dir).WeightFile(); err != nil || filepath.Base(w) != modelfiles.ONNX {
			t.Errorf("%s.WeightFile() = %q, %v; want model.onnx", dir, w, err)
		}
	}
}

var tinyVocab = []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat"}

// tinyBERT returns a small random BERT: its weights, configuration,
// config.json and tokenizer.json.
func tinyBERT(t testing.TB) (tensor.Set, modelfiles.Config, []byte, []byte) {
	t.Helper()
	c := modelfiles.Config{VocabSize: len(tinyVocab), HiddenSize: 8, NumHiddenLayers: 1, NumAttentionHeads: 2,
		IntermediateSize: 12, HiddenAct: "gelu", MaxPositionEmbeddings: 16, TypeVocabSize: 2, LayerNormEps: 1e-12, ModelType: "bert"}
	s := berttest.Weights(berttest.Sizes{Vocab: c.VocabSize, Hidden: c.HiddenSize, Layers: c.NumHiddenLayers,
		Intermediate: c.IntermediateSize, Positions: c.MaxPositionEmbeddings, TypeVocab: c.TypeVocabSize}, 3, 4, "")
	cfgJSON, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.FromVocab(strings.NewReader(strings.Join(tinyVocab, "\n")), "vocab.txt", tokenizer.DefaultBertSettings())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tok.Save(&b); err != nil {
		t.Fatal(err)
	}
	return s, c, cfgJSON, b.Bytes()
}

// TestLoadONNXTiny checks that a tiny model loads the same from
// safetensors, from model.onnx with config.json and from model.onnx
// alone, and that safetensors weights win when both are there.
func TestLoadONNXTiny(t *testing.T) {
	set, cfg, cfgJSON, tokJSON := tinyBERT(t)
	stDir := t.TempDir()
	var w bytes.Buffer
	if err := safetensors.Write(&w, set, safetensors.F32, nil); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, stDir, map[string][]byte{"config.json": cfgJSON, "tokenizer.json": tokJSON, "model.safetensors": w.Bytes()})
	withCfg := onnxDir(t, set, cfg, cfgJSON, tokJSON)
	noCfg := onnxDir(t, set, cfg, nil, tokJSON)
	both := onnxDir(t, set, cfg, cfgJSON, tokJSON)
	writeFiles(t, both, map[string][]byte{"model.safetensors": w.Bytes()})

	texts := []string{"the cat sat on the mat", "mat", "dog"}
	encode := func(dir string) [][]float32 {
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
	ref := encode(stDir)
	for _, dir := range []string{withCfg, noCfg, both} {
		sameVectors(t, dir, encode(dir), ref)
	}
	if wf, _ := modelfiles.OSDir(both).WeightFile(); filepath.Base(wf) != "model.safetensors" {
		t.Errorf("WeightFile with both = %s, want model.safetensors", wf)
	}
}

func TestLoadONNXErrors(t *testing.T) {
	set, cfg, cfgJSON, tokJSON := tinyBERT(t)
	mismatched := cfg
	mismatched.IntermediateSize = 16
	badCfg, _ := json.Marshal(mismatched)
	heads := cfg
	heads.NumAttentionHeads = 4
	badHeads, _ := json.Marshal(heads)
	for _, tc := range []struct {
		name  string
		setup func(dir string) // changes a complete ONNX model directory
		want  []string
	}{
		{"mismatched config", func(dir string) { writeFiles(t, dir, map[string][]byte{"config.json": badCfg}) },
			[]string{modelfiles.ONNX, "config.json", `"intermediate_size" is 16 but the ONNX weights have 12`}},
		{"mismatched heads", func(dir string) { writeFiles(t, dir, map[string][]byte{"config.json": badHeads}) },
			[]string{modelfiles.ONNX, `"num_attention_heads" is 4`}},
		{"no tokenizer", func(dir string) { os.Remove(filepath.Join(dir, "tokenizer.json")) },
			[]string{"no tokenizer.json, vocab.json+merges.txt, sentencepiece .model or vocab.txt"}}, // compared ignoring case
		{"truncated graph", func(dir string) {
			p := filepath.Join(dir, modelfiles.ONNX)
			b := readFile(t, p)
			writeFiles(t, dir, map[string][]byte{modelfiles.ONNX: b[:len(b)/2]})
		}, []string{modelfiles.ONNX}},
		{"not a graph", func(dir string) { writeFiles(t, dir, map[string][]byte{modelfiles.ONNX: []byte("{}")}) },
			[]string{modelfiles.ONNX}},
		{"no weights", func(dir string) { os.Remove(filepath.Join(dir, modelfiles.ONNX)) },
			[]string{"holds no weights", "model.safetensors", modelfiles.ONNX}},
		{"no config, no graph", func(dir string) {
			os.Remove(filepath.Join(dir, modelfiles.ONNX))
			os.Remove(filepath.Join(dir, "config.json"))
		}, []string{"config.json", "model directory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := onnxDir(t, set, cfg, cfgJSON, tokJSON)
			tc.setup(dir)
			_, err := Load(modelfiles.OSDir(dir), Options{})
			if err == nil {
				t.Fatal("Load succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(w)) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestConfigFromONNX(t *testing.T) {
	full := bert.ONNXInfo{Vocab: 10, Hidden: 8, Layers: 1, Intermediate: 12, MaxPositions: 16, TypeVocab: 2, Heads: 2, Epsilon: 1e-12}
	cfg, err := ConfigFromONNX(&full, "m.onnx")
	if err != nil {
		t.Fatal(err)
	}
	if err := full.CheckConfig(cfg); err != nil || cfg.NumAttentionHeads != 2 || cfg.HiddenAct != "gelu" {
		t.Errorf("config %+v: %v", cfg, err)
	}
	for _, tc := range []struct {
		name string
		edit func(*bert.ONNXInfo)
		want []string
	}{
		{"no heads", func(i *bert.ONNXInfo) { i.Heads = 0 }, []string{"m.onnx", "no config.json", "attention head count"}},
		{"no epsilon", func(i *bert.ONNXInfo) { i.Epsilon = 0 }, []string{"m.onnx", "layer-norm epsilon"}},
		{"neither", func(i *bert.ONNXInfo) { i.Heads, i.Epsilon = 0, 0 }, []string{"attention head count", "nor the layer-norm epsilon"}},
		{"heads do not divide", func(i *bert.ONNXInfo) { i.Heads = 3 }, []string{"m.onnx", "not a multiple"}},
	} {
		in := full
		tc.edit(&in)
		_, err := ConfigFromONNX(&in, "m.onnx")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tc.name, err, w)
			}
		}
	}
}
