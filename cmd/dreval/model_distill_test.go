package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/static"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/retrieval"
)

// distillVocab has the 30 tokens of tinyModelDir's vocabulary.
var distillVocab = []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
	"the", "cat", "sat", "on", "mat", "dog", "##s", "a", "big", "red",
	"blue", "green", "house", "tree", "run", "##ning", "fast", "slow", "up",
	"down", "wing", "lift", "flow", "air", "speed"}

// tinyDistillModel returns tinyModelDir with a tokenizer.json for its
// vocabulary.
func tinyDistillModel(t *testing.T) string {
	t.Helper()
	dir := tinyModelDir(t)
	tok, err := tokenizer.FromVocab(strings.NewReader(strings.Join(distillVocab, "\n")), "vocab.txt", tokenizer.DefaultBertSettings())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tok.Save(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readModelFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, name := range []string{static.ConfigFile, static.WeightsFile, static.TokenizerFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	return files
}

func sameFiles(t *testing.T, a, b map[string][]byte) {
	t.Helper()
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between two distillations", name)
		}
	}
}

func TestModelDistillTinyModel(t *testing.T) {
	src := tinyDistillModel(t)
	work := t.TempDir()
	var outs [2]string
	for i := range outs {
		outs[i] = filepath.Join(work, "static"+string(rune('a'+i)))
		code, stdout, errOut := runCLI(t, "", "model", "distill", "-model", src, "-dims", "4", "-out", outs[i], "-engine", "go", "-batch", "7", "-threads", "1")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(stdout, "30 x 4 F32 table") || !strings.Contains(errOut, "engine go (pure-Go BERT") {
			t.Errorf("stdout %q, stderr %q", stdout, errOut)
		}
	}
	sameFiles(t, readModelFiles(t, outs[0]), readModelFiles(t, outs[1]))

	var cfg map[string]any
	json.Unmarshal(readModelFiles(t, outs[0])[static.ConfigFile], &cfg)
	for k, want := range map[string]any{"model_type": "static", "dims": 4.0, "vocab_size": 30.0, "normalize": true, "engine": "go", "sif_coefficient": 1e-4} {
		if cfg[k] != want {
			t.Errorf("config.json %s = %v, want %v", k, cfg[k], want)
		}
	}

	// The distilled directory is a model: encode runs it as a static model,
	// and a text's vector is the normalised mean of its tokens' rows.
	in := filepath.Join(work, "in.txt")
	os.WriteFile(in, []byte("the big red dogs\n\n"), 0o644)
	npy := filepath.Join(work, "v.npy")
	code, _, errOut := runCLI(t, "", "encode", "-model", outs[0], "-in", in, "-out", npy, "-q")
	if code != 0 || !strings.Contains(errOut, "engine: static (token-table lookup, 4 dims)") {
		t.Fatalf("encode: exit %d: %s", code, errOut)
	}
	m, err := retrieval.ReadNPYFile(npy)
	if err != nil {
		t.Fatal(err)
	}
	enc, _, err := static.Load(modelfiles.OSDir(outs[0]), 0)
	if err != nil {
		t.Fatal(err)
	}
	emb := enc.Embedder().(*static.Embedder)
	want := make([]float64, 4)
	for _, id := range []int32{5, 13, 14, 10, 11} { // the big red dog ##s
		for j, v := range emb.Row(id) {
			want[j] += float64(v)
		}
	}
	var ss float64
	for _, v := range want {
		ss += v * v
	}
	for j := range want {
		if got := float64(m.Row(0)[j]); math.Abs(got-want[j]/math.Sqrt(ss)) > 1e-6 {
			t.Errorf("value %d is %v, want %v", j, got, want[j]/math.Sqrt(ss))
		}
		if m.Row(1)[j] != 0 {
			t.Errorf("empty text: value %d is %v, want 0 (no tokens besides [CLS] [SEP])", j, m.Row(1)[j])
		}
	}
	if code, _, errOut := runCLI(t, "", "encode", "-model", outs[0], "-in", in, "-out", npy, "-engine", "ort"); code != 1 || !strings.Contains(errOut, "runs in Go only") {
		t.Errorf("encode -engine ort on a static model: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "model", "distill", "-model", outs[0], "-out", filepath.Join(work, "x"), "-dims", "2"); code != 1 || !strings.Contains(errOut, "cannot distil a static model") {
		t.Errorf("distilling a static model: exit %d, %q", code, errOut)
	}

	// ONNX Runtime gives the same table up to float rounding.
	lib := ortLibOrSkip(t)
	if code, _, errOut := runCLI(t, "", "model", "export-onnx", "-model", src); code != 0 {
		t.Fatalf("export-onnx: exit %d: %s", code, errOut)
	}
	ortOut := filepath.Join(work, "ort")
	code, _, errOut = runCLI(t, "", "model", "distill", "-model", src, "-dims", "4", "-out", ortOut, "-engine", "ort", "-ort-lib", lib, "-q")
	if code != 0 || !strings.Contains(errOut, "engine ort (ONNX Runtime") {
		t.Fatalf("distill -engine ort: exit %d: %s", code, errOut)
	}
	ortEnc, ortCfg, err := static.Load(modelfiles.OSDir(ortOut), 0)
	if err != nil {
		t.Fatal(err)
	}
	if ortCfg.Engine != "ort" {
		t.Errorf("config engine %q, want ort", ortCfg.Engine)
	}
	ortEmb := ortEnc.Embedder().(*static.Embedder)
	for id := int32(0); id < 30; id++ {
		for j, v := range ortEmb.Row(id) {
			if g := emb.Row(id)[j]; math.Abs(float64(v-g)) > 1e-4*(1+math.Abs(float64(g))) {
				t.Fatalf("id %d value %d: ort %v, go %v", id, j, v, g)
			}
		}
	}
}

func TestModelDistillMiniLMSubsetIsDeterministic(t *testing.T) {
	models := filepath.Dir(sharedtest.ModelDir(t, "minilm"))
	work := t.TempDir()
	var files [2]map[string][]byte
	for i, threads := range []string{"1", "2"} {
		out := filepath.Join(work, threads)
		code, stdout, errOut := runCLI(t, "", "model", "distill", "-models", models, "-model", "minilm", "-dims", "16", "-limit", "200",
			"-engine", "go", "-threads", threads, "-out", out, "-q")
		if code != 0 || !strings.Contains(stdout, "200 x 16 F32 table") {
			t.Fatalf("exit %d: %s%s", code, stdout, errOut)
		}
		files[i] = readModelFiles(t, out)
	}
	sameFiles(t, files[0], files[1])
}

func TestModelDistillErrors(t *testing.T) {
	src := tinyDistillModel(t)
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-model", src, "-dims", "9", "-out", out, "-engine", "go"}, 1, "dims 9 exceeds the model's hidden size 8"},
		{[]string{"-model", src, "-dims", "0"}, 2, "-dims must be at least 1"},
		{[]string{"-model", src, "-dtype", "f8"}, 2, `-dtype "f8" is not supported`},
		{[]string{"-model", src, "-engine", "tpu"}, 2, `-engine "tpu" is not known`},
		{[]string{"-model", src, "-sif", "-1"}, 2, "-sif must not be negative"},
		{[]string{"-model", src, "-out", src}, 1, "is the source model's directory"},
		{[]string{"-model", src, "-out", out, "-engine", "ort", "-ort-lib", "/nonexistent/libonnxruntime.so.1"}, 1, "engine ort: "},
		{[]string{"-model", filepath.Join(src, "nope"), "-out", out}, 1, "not a model directory (it has no config.json"},
		{[]string{"-model", src, "extra"}, 2, "unexpected arguments"},
	} {
		code, _, errOut := runCLI(t, "", append([]string{"model", "distill"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed distillation left an output directory")
	}
}
