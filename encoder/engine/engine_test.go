package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/static"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

var testVocab = []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
	"the", "cat", "sat", "on", "mat", "dog", "##s", "a", "big", "red", "blue"}

func tokenizerJSON(t testing.TB) []byte {
	t.Helper()
	tok, err := tokenizer.FromVocab(strings.NewReader(strings.Join(testVocab, "\n")), "vocab.txt", tokenizer.DefaultBertSettings())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tok.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tinyBERTDir writes a small random BERT model directory (and, when
// withONNX, its model.onnx) and returns it.
func tinyBERTDir(t testing.TB, withONNX bool) string {
	t.Helper()
	return tinyBERT(t, withONNX, 2)
}

// tinyBERTDirSeed is tinyBERTDir without model.onnx, its weights drawn
// with seed.
func tinyBERTDirSeed(t testing.TB, seed uint64) string {
	t.Helper()
	return tinyBERT(t, false, seed)
}

func tinyBERT(t testing.TB, withONNX bool, seed uint64) string {
	t.Helper()
	c := modelfiles.Config{VocabSize: len(testVocab), HiddenSize: 8, NumHiddenLayers: 1, NumAttentionHeads: 2,
		IntermediateSize: 12, HiddenAct: "gelu", MaxPositionEmbeddings: 16, TypeVocabSize: 2, LayerNormEps: 1e-12}
	s := berttest.Weights(berttest.Sizes{Vocab: c.VocabSize, Hidden: c.HiddenSize, Layers: c.NumHiddenLayers,
		Intermediate: c.IntermediateSize, Positions: c.MaxPositionEmbeddings, TypeVocab: c.TypeVocabSize}, 1, seed, "")
	H, I := c.HiddenSize, c.IntermediateSize

	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"model_type": "bert", "vocab_size": c.VocabSize, "hidden_size": H,
		"num_hidden_layers": c.NumHiddenLayers, "num_attention_heads": c.NumAttentionHeads, "intermediate_size": I,
		"hidden_act": "gelu", "max_position_embeddings": c.MaxPositionEmbeddings, "type_vocab_size": 2, "layer_norm_eps": 1e-12})
	var w bytes.Buffer
	if err := safetensors.Write(&w, s, safetensors.F32, nil); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"config.json": cfg, "model.safetensors": w.Bytes(), "tokenizer.json": tokenizerJSON(t)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if withONNX {
		if err := bert.WriteONNX(filepath.Join(dir, modelfiles.ONNX), s, c, bert.ONNXOptions{ProducerVersion: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// hasCgo reports whether this build has the ONNX Runtime engine.
func hasCgo() bool { return !errors.Is(ort.Available(""), ort.ErrNotCompiled) }

// libPath returns the installed ONNX Runtime library, skipping the test
// when there is none (failing under CI=true) or the build has no cgo.
func libPath(t *testing.T) string {
	t.Helper()
	if !hasCgo() {
		t.Skip("built without cgo: no ONNX Runtime engine")
	}
	p := os.Getenv("DREVAL_ORT_LIB")
	if p == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			t.Skip(err)
		}
		p = ort.DefaultLibPath(c)
	}
	if _, err := os.Stat(p); err != nil {
		if sharedtest.InCI() {
			t.Fatalf("ONNX Runtime library %s is absent; run scripts/setup-ort.sh", p)
		}
		t.Skipf("ONNX Runtime library %s is absent; run scripts/setup-ort.sh", p)
	}
	return p
}

func TestOpenGoForced(t *testing.T) {
	dir := tinyBERTDir(t, true)
	m, err := Open(modelfiles.OSDir(dir), Options{Engine: Go, ORTLibrary: "/nonexistent/" + ort.LibName, Encoder: transformer.Options{Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Info.Engine != Go || m.Info.Fallback != "" || m.Info.Threads != 1 || m.Info.Dims != 8 {
		t.Errorf("info %+v, want engine go, 1 thread, no fallback", m.Info)
	}
	if _, ok := m.Embedder().(*bert.Embedder); !ok {
		t.Errorf("embedder %T, want *bert.Embedder", m.Embedder())
	}
	if s := m.Info.String(); !strings.HasPrefix(s, "go (pure-Go BERT forward pass") {
		t.Errorf("String() = %q", s)
	}
}

func TestOpenAutoFallsBackToGo(t *testing.T) {
	dir := tinyBERTDir(t, true)
	m, err := Open(modelfiles.OSDir(dir), Options{ORTLibrary: "/nonexistent/" + ort.LibName})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	want := "not found" // or "already loaded", when another test loaded the real library
	if !hasCgo() {
		want = "built without cgo"
	}
	if m.Info.Engine != Go || !(strings.Contains(m.Info.Fallback, want) || strings.Contains(m.Info.Fallback, "already loaded")) {
		t.Errorf("info %+v, want engine go with a fallback reason containing %q", m.Info, want)
	}
	if !strings.Contains(m.Info.String(), "ONNX Runtime not used: ") {
		t.Errorf("String() = %q does not give the fallback reason", m.Info.String())
	}
}

func TestOpenORTUnavailableIsAnError(t *testing.T) {
	noONNX := tinyBERTDir(t, false)
	bad := "/nonexistent/" + ort.LibName
	_, err := Open(modelfiles.OSDir(noONNX), Options{Engine: ORT, ORTLibrary: bad})
	want := "engine ort: "
	if !hasCgo() {
		want += "this dreval was built without cgo"
	}
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Open(ort, missing library) = %v, want an error starting %q", err, want)
	}
	if hasCgo() && !strings.Contains(err.Error(), bad) {
		t.Errorf("error %q does not name the library path", err)
	}

	lib := libPath(t)
	_, err = Open(modelfiles.OSDir(noONNX), Options{Engine: ORT, ORTLibrary: lib})
	want = fmt.Sprintf("engine ort: %s: no ONNX graph model.onnx or onnx/model.onnx (ONNX graphs in the folder: none); write model.onnx with \"dreval model export-onnx -model %s\"", noONNX, noONNX)
	if err == nil || err.Error() != want {
		t.Fatalf("Open(ort, no model.onnx) = %v, want %q", err, want)
	}
	m, err := Open(modelfiles.OSDir(noONNX), Options{Engine: Auto, ORTLibrary: lib})
	if err != nil {
		t.Fatal(err)
	}
	if m.Info.Engine != Go || !strings.Contains(m.Info.Fallback, "no ONNX graph model.onnx or onnx/model.onnx") {
		t.Errorf("auto without model.onnx: info %+v, want go with the reason", m.Info)
	}
}

func TestOpenAutoPicksORT(t *testing.T) {
	lib := libPath(t)
	dir := tinyBERTDir(t, true)
	m, err := Open(modelfiles.OSDir(dir), Options{Engine: Auto, ORTLibrary: lib, Encoder: transformer.Options{Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Info.Engine != ORT || m.Info.ORTVersion == "" || m.Info.Threads != 1 || m.Info.ONNXPath != filepath.Join(dir, modelfiles.ONNX) {
		t.Fatalf("info %+v, want engine ort", m.Info)
	}
	if s := m.Info.String(); !strings.Contains(s, "ONNX Runtime "+ort.Version()) || !strings.Contains(s, "1 intra-op threads") {
		t.Errorf("String() = %q", s)
	}
	g, err := Open(modelfiles.OSDir(dir), Options{Engine: Go})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"the big red cat sat on the mat", "dogs", ""}
	a, _, err := m.Encode(texts)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := g.Encode(texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		var dot, na, nb float64
		for j := range a[i] {
			dot += float64(a[i][j]) * float64(b[i][j])
			na += float64(a[i][j]) * float64(a[i][j])
			nb += float64(b[i][j]) * float64(b[i][j])
		}
		if c := dot / math.Sqrt(na*nb); math.Abs(c-1) > 1e-5 || math.Abs(math.Sqrt(na/nb)-1) > 1e-4 {
			t.Errorf("text %d: ort and go vectors have cosine %v and norms %v, %v; want the same vector", i, c, math.Sqrt(na), math.Sqrt(nb))
		}
	}
}

func TestOpenStatic(t *testing.T) {
	dir := t.TempDir()
	table := tensor.New(len(testVocab), 3)
	for i := range table.Data {
		table.Data[i] = float32(i%7) - 3
	}
	if err := static.Save(dir, table, tokenizerJSON(t), static.Config{Source: "test"}, safetensors.F32); err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"", Auto, Go} {
		m, err := Open(modelfiles.OSDir(dir), Options{Engine: e, ORTLibrary: "/nonexistent"})
		if err != nil {
			t.Fatalf("engine %q: %v", e, err)
		}
		if m.Info.Engine != Static || m.Static == nil || m.Info.String() != "static (token-table lookup, 3 dims)" {
			t.Errorf("engine %q: info %+v (%s)", e, m.Info, m.Info.String())
		}
		if _, ok := m.Embedder().(*static.Embedder); !ok {
			t.Errorf("embedder %T", m.Embedder())
		}
	}
	_, err := Open(modelfiles.OSDir(dir), Options{Engine: ORT})
	if err == nil || !strings.Contains(err.Error(), "is a static model, a token-table lookup that runs in Go only") {
		t.Errorf("engine ort on a static model: %v", err)
	}
	_, err = Open(modelfiles.OSDir(dir), Options{Encoder: transformer.Options{Pooling: encoder.CLS}})
	if err == nil || !strings.Contains(err.Error(), `pooling "cls" is not supported`) {
		t.Errorf("cls pooling on a static model: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(modelfiles.OSDir(t.TempDir()), Options{}); err == nil || !strings.Contains(err.Error(), "a model directory? \"dreval model get\" installs one") {
		t.Errorf("empty directory: %v", err)
	}
	if _, err := Open(modelfiles.OSDir(tinyBERTDir(t, false)), Options{Engine: "gpu"}); err == nil || !strings.Contains(err.Error(), `engine "gpu" is not known`) {
		t.Errorf("unknown engine: %v", err)
	}
}

// TestOpenORTReadsNoGoWeights checks that the ort engine reads only the
// directory's settings in Go (and a head's weights, which this model has
// none of): a model.safetensors without the transformer's tensors does
// not stop it (the go engine fails on it), and config.json must still
// agree with the graph.
func TestOpenORTReadsNoGoWeights(t *testing.T) {
	lib := libPath(t)
	dir := tinyBERTDir(t, true)
	var empty bytes.Buffer
	if err := safetensors.Write(&empty, tensor.Set{}, safetensors.F32, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors"), empty.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(modelfiles.OSDir(dir), Options{Engine: Go}); err == nil {
		t.Fatal("engine go opened a model.safetensors without weights")
	}
	m, err := Open(modelfiles.OSDir(dir), Options{Engine: ORT, ORTLibrary: lib, Encoder: transformer.Options{Threads: 1}})
	if err != nil {
		t.Fatalf("engine ort with a model.safetensors without weights: %v", err)
	}
	vecs, _, err := m.Encode([]string{"the big red cat"})
	m.Close()
	if err != nil || len(vecs) != 1 || len(vecs[0]) != 8 {
		t.Fatalf("Encode: %d vectors, err %v; want one of 8 values", len(vecs), err)
	}

	cfgPath := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["vocab_size"] = cfg["vocab_size"].(float64) + 1
	b, _ = json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Open(modelfiles.OSDir(dir), Options{Engine: ORT, ORTLibrary: lib})
	if err == nil || !strings.Contains(err.Error(), "the graph's word-embedding table has 16 rows, but the configuration says vocab_size 17 (the configuration is "+cfgPath+")") {
		t.Fatalf("config.json disagreeing with model.onnx: err %v, want it to name %s", err, cfgPath)
	}
}
