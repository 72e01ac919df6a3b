package experiment_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/memfs"
	"github.com/dreval/dreval/internal/modeltest"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

func TestOpenBM25(t *testing.T) {
	dir := sharedtest.ModelDir(t, "minilm")
	tests := []struct {
		analyzer experiment.Analyzer
		text     string
		want     string
		err      string
	}{
		{"", "Caramelizing onions", "cara ##mel ##izing onions", ""},
		{"wordpiece", "Caramelizing onions", "cara ##mel ##izing onions", ""},
		{"words", "Caramelizing onions!", "caramelizing onions", ""},
		{"stems", "", "", "unknown BM25 analyser"},
	}
	tok, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		m, err := experiment.OpenBM25("bm25", tok, tt.analyzer)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("analyser %q: got %v, want %q", tt.analyzer, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(m.Analyzer(tt.text), " "); got != tt.want {
			t.Errorf("analyser %q: %q -> %q, want %q", tt.analyzer, tt.text, got, tt.want)
		}
	}
	_, err = experiment.DefaultRegistry().Open(context.Background(), "bm25", experiment.ModelOptions{ModelsDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "install minilm") {
		t.Errorf("missing tokenizer: got %v, want a hint to install minilm", err)
	}
}

// TestOpenDenseEngines opens minilm with the Go engine and, when ONNX
// Runtime is installed, with it (from a copy of the model directory with
// model.onnx exported): both embed the same ids to nearly the same
// vectors, and the engine is part of the fingerprint.
func TestOpenDenseEngines(t *testing.T) {
	if testing.Short() {
		t.Skip("loads MiniLM")
	}
	dir := sharedtest.ModelDir(t, "minilm")
	goModel, err := experiment.OpenDense("minilm", modelfiles.OSDir(dir), experiment.ModelOptions{Engine: "go"})
	if err != nil {
		t.Fatal(err)
	}
	ids := [][]int32{goModel.Query.Tokenizer.EncodeIDs("how do stars twinkle"), goModel.Query.Tokenizer.EncodeIDs("a")}
	want, err := goModel.Query.Embedder.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	again, err := experiment.OpenDense("minilm", modelfiles.OSDir(dir), experiment.ModelOptions{Engine: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if again.Fingerprint != goModel.Fingerprint || goModel.Engine != "go" {
		t.Errorf("fingerprints %q %q, engine %q", goModel.Fingerprint, again.Fingerprint, goModel.Engine)
	}
	c, _ := os.UserCacheDir()
	lib := ort.DefaultLibPath(c)
	if err := ort.Available(lib); err != nil {
		t.Skipf("ONNX Runtime is not usable here: %v", err)
	}
	// The model directory with model.onnx exported beside its weights.
	withONNX := modeltest.ONNXDir(t, "minilm", append(modeltest.Settings(t, "minilm"), "config.json", "tokenizer.json", "model.fp16.safetensors")...)
	auto, err := experiment.OpenDense("minilm", modelfiles.OSDir(withONNX), experiment.ModelOptions{Engine: "auto", OrtLibrary: lib})
	if err != nil {
		t.Fatal(err)
	}
	defer auto.Close()
	if auto.Engine != "ort" {
		t.Fatalf("auto chose %q with ONNX Runtime and model.onnx present: %q", auto.Engine, auto.Notes)
	}
	if auto.Fingerprint == goModel.Fingerprint {
		t.Errorf("the ort and go engines share the fingerprint %q", auto.Fingerprint)
	}
	// The go model relabelled as computed by ONNX Runtime elsewhere (the
	// browser's model when "dreval serve" encodes) has the ort model's
	// fingerprints.
	relabelled, err := goModel.WithEngine("ort")
	if err != nil {
		t.Fatal(err)
	}
	if relabelled.Fingerprint != auto.Fingerprint || relabelled.Query.Fingerprint != auto.Query.Fingerprint ||
		relabelled.Document.Fingerprint != auto.Document.Fingerprint || relabelled.Engine != "ort" || relabelled.Document.Engine != "ort" {
		t.Errorf("WithEngine(ort): %q %q %q, want the ort model's %q %q %q", relabelled.Fingerprint, relabelled.Query.Fingerprint,
			relabelled.Document.Fingerprint, auto.Fingerprint, auto.Query.Fingerprint, auto.Document.Fingerprint)
	}
	if same, err := goModel.WithEngine("go"); err != nil || same.Fingerprint != goModel.Fingerprint || same.Document.Fingerprint != goModel.Document.Fingerprint {
		t.Errorf("WithEngine(go) of a go model changed its fingerprint: %v", err)
	}
	got, err := auto.Query.Embedder.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		var dot float64
		for j := range want[i] {
			dot += float64(want[i][j]) * float64(got[i][j])
		}
		if math.Abs(dot-1) > 1e-4 {
			t.Errorf("sequence %d: cosine between the go and ort vectors %v, want ~1", i, dot)
		}
	}
	// Without model.onnx, auto runs on Go and says why.
	fallback, err := experiment.OpenDense("minilm", modelfiles.OSDir(dir), experiment.ModelOptions{Engine: "auto", OrtLibrary: lib})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil && (fallback.Engine != "go" || !strings.Contains(strings.Join(fallback.Notes, " "), "ONNX Runtime not used")) {
		t.Errorf("auto without model.onnx: engine %q, notes %q", fallback.Engine, fallback.Notes)
	}
	if _, err := experiment.OpenDense("minilm", modelfiles.OSDir(withONNX), experiment.ModelOptions{Engine: "ort", OrtLibrary: filepath.Join(t.TempDir(), "nolib.so")}); err == nil {
		t.Error("engine ort with a missing library: no error")
	}
}

func TestRegistryDirectoryModel(t *testing.T) {
	r := experiment.NewRegistry()
	var opened string
	r.RegisterDir(func(_ context.Context, dir string, _ experiment.ModelOptions) (*experiment.Model, error) {
		opened = dir
		return nil, os.ErrNotExist
	})
	dir := t.TempDir()
	if _, err := r.Open(context.Background(), dir, experiment.ModelOptions{}); err == nil || opened != dir {
		t.Errorf("directory model: opened %q, err %v", opened, err)
	}
	if _, err := r.Open(context.Background(), filepath.Join(dir, "absent"), experiment.ModelOptions{}); err == nil || !strings.Contains(err.Error(), "or a model directory") {
		t.Errorf("absent directory: %v", err)
	}
}

// TestOpenDenseONNXOnly opens MiniLM from a directory whose weights are
// model.onnx alone (with config.json, and without: the configuration is
// then read from the graph): the go engine gives the safetensors model's
// vectors bit for bit, under a fingerprint of its own.
func TestOpenDenseONNXOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("loads MiniLM")
	}
	dir := sharedtest.ModelDir(t, "minilm")
	ref, err := experiment.OpenDense("minilm", modelfiles.OSDir(dir), experiment.ModelOptions{Engine: "go"})
	if err != nil {
		t.Fatal(err)
	}
	ids := [][]int32{ref.Query.Tokenizer.EncodeIDs("how do stars twinkle"), ref.Query.Tokenizer.EncodeIDs("a")}
	want, err := ref.Query.Embedder.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	fingerprints := map[string]string{ref.Fingerprint: "safetensors"}
	for _, withConfig := range []bool{true, false} {
		files := []string{"tokenizer.json"}
		if withConfig {
			files = append(files, "config.json")
		}
		m := modeltest.ONNXDir(t, "minilm", append(modeltest.Settings(t, "minilm"), files...)...)
		om, err := experiment.OpenDense("minilm", modelfiles.OSDir(m), experiment.ModelOptions{Engine: "go"})
		if err != nil {
			t.Fatalf("config.json %v: %v", withConfig, err)
		}
		got, err := om.Query.Embedder.EmbedIDs(ids)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			for j := range want[i] {
				if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
					t.Fatalf("config.json %v: sequence %d element %d: %v from model.onnx, %v from safetensors", withConfig, i, j, got[i][j], want[i][j])
				}
			}
		}
		if prev, dup := fingerprints[om.Fingerprint]; dup {
			t.Errorf("config.json %v: fingerprint %q is also %s's", withConfig, om.Fingerprint, prev)
		}
		fingerprints[om.Fingerprint] = fmt.Sprintf("config.json %v", withConfig)
	}
}

// TestFingerprintKnownDigests: a model's fingerprint is the same whether
// its files' digests are hashed here or known to the file system (the
// browser's memfs.PutWithSHA256), and a known digest is what the
// fingerprint takes (a different one gives a different fingerprint).
func TestFingerprintKnownDigests(t *testing.T) {
	dir := sharedtest.ModelDir(t, "static")
	ref, err := experiment.OpenDense("static", modelfiles.OSDir(dir), experiment.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	open := func(sumOf func(name string, b []byte) string) *experiment.Model {
		t.Helper()
		m := &memfs.FS{}
		for _, f := range []string{"config.json", "model.safetensors", "tokenizer.json"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := m.PutWithSHA256("m/"+f, b, sumOf(f, b)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := experiment.OpenDense("static", modelfiles.FSDir(m, "m"), experiment.ModelOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	sum := func(_ string, b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	known := open(sum)
	if known.Document.Fingerprint != ref.Document.Fingerprint || known.Query.Fingerprint != ref.Query.Fingerprint {
		t.Errorf("fingerprint with known digests %s / %s, hashed %s / %s", known.Query.Fingerprint, known.Document.Fingerprint, ref.Query.Fingerprint, ref.Document.Fingerprint)
	}
	other := open(func(name string, b []byte) string {
		if name == "config.json" {
			return strings.Repeat("0", 64)
		}
		return sum(name, b)
	})
	if other.Document.Fingerprint == ref.Document.Fingerprint {
		t.Errorf("a different known digest of config.json left the fingerprint %s", ref.Document.Fingerprint)
	}
}
