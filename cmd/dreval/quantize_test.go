package main

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/retrieval"
)

// firstLines returns the first n lines of file.
func firstLines(t *testing.T, file string, n int) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var out []string
	for len(out) < n && sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func rowCosine(a, b []float32) float64 {
	var dot, na, nb float64
	for j := range a {
		dot += float64(a[j]) * float64(b[j])
		na += float64(a[j]) * float64(a[j])
		nb += float64(b[j]) * float64(b[j])
	}
	return dot / math.Sqrt(na*nb)
}

// TestQuantizedMiniLM quantizes the installed MiniLM's graph to int8 and
// to float16 with "dreval model quantize", lays both out as optimum and
// Transformers.js do (onnx/model_quantized.onnx, onnx/model_fp16.onnx),
// encodes real texts with each through ONNX Runtime ("dreval encode
// -engine ort -onnx-file ...") and compares them with the float32 graph's
// embeddings; the pure-Go engine must refuse both graphs, saying to use
// the ort engine.
func TestQuantizedMiniLM(t *testing.T) {
	src := sharedtest.ModelDir(t, "minilm")
	if _, err := os.Stat(filepath.Join(src, "model.onnx")); err != nil {
		t.Skipf("%s has no model.onnx (make setup exports it): %v", src, err)
	}
	var texts []string
	for _, f := range []struct {
		file string
		n    int
	}{{"data/squad-v1.1-dev/queries.jsonl", 50}, {"data/cranfield/corpus.jsonl", 40}, {"data/cacm/corpus.jsonl", 30}, {"data/hotpotqa-dev-100/corpus.jsonl", 30}} {
		texts = append(texts, firstLines(t, sharedtest.Path(t, f.file), f.n)...)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "texts.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(texts, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "minilm")
	if err := os.MkdirAll(filepath.Join(model, "onnx"), 0o755); err != nil {
		t.Fatal(err)
	}
	es, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(model, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []struct{ mode, file, what string }{
		{"int8", "model_quantized.onnx", "int8-quantized (DynamicQuantizeLinear, MatMulInteger)"},
		{"fp16", "model_fp16.onnx", "float16"},
	} {
		out := filepath.Join(model, "onnx", q.file)
		code, _, errOut := runCLI(t, "", "model", "quantize", "-mode", q.mode, filepath.Join(src, "model.onnx"), out)
		if code != 0 || !strings.Contains(errOut, "wrote "+out+" ("+q.what+", ") {
			t.Fatalf("model quantize -mode %s: exit %d:\n%s", q.mode, code, errOut)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		g, err := onnx.Inspect(data)
		if err != nil {
			t.Fatal(err)
		}
		if g.Describe() != q.what {
			t.Errorf("%s: Inspect says %q, want %q", q.file, g.Describe(), q.what)
		}
	}

	q8 := filepath.Join(model, "onnx", "model_quantized.onnx")
	if code, _, errOut := runCLI(t, "", "model", "quantize", q8, filepath.Join(dir, "again.onnx")); code != 1 || !strings.Contains(errOut, q8+": the graph is already int8-quantized") {
		t.Errorf("quantizing an int8 graph: exit %d, %q", code, errOut)
	}

	lib := ortLibOrSkip(t)
	encode := func(engine, onnxFile string) (int, string, *retrieval.Matrix) {
		t.Helper()
		out := filepath.Join(dir, engine+onnxFile+".npy")
		args := []string{"encode", "-model", model, "-in", in, "-out", out, "-engine", engine, "-ort-lib", lib, "-threads", "1", "-q"}
		if onnxFile != "" {
			args = append(args, "-onnx-file", onnxFile)
		}
		code, _, errOut := runCLI(t, "", args...)
		m, _ := retrieval.ReadNPYFile(out)
		return code, errOut, m
	}
	code, errOut, want := encode("ort", "")
	if code != 0 || !strings.Contains(errOut, filepath.Join(model, "model.onnx")+", float32)") {
		t.Fatalf("-engine ort: exit %d:\n%s", code, errOut)
	}
	if want.Rows != len(texts) {
		t.Fatalf("%d rows for %d texts", want.Rows, len(texts))
	}
	for _, q := range []struct {
		variant, file, what string
		min                 float64
	}{
		{"quantized", "model_quantized.onnx", "int8-quantized (DynamicQuantizeLinear, MatMulInteger)", 0.99},
		{"fp16", "model_fp16.onnx", "float16", 0.9999},
	} {
		path := filepath.Join(model, "onnx", q.file)
		code, errOut, got := encode("ort", q.variant)
		if code != 0 || !strings.Contains(errOut, path+", "+q.what+")") {
			t.Fatalf("-engine ort -onnx-file %s: exit %d:\n%s", q.variant, code, errOut)
		}
		worst, sum, wi := 1.0, 0.0, 0
		for i := 0; i < got.Rows; i++ {
			c := rowCosine(got.Row(i), want.Row(i))
			if c < worst || math.IsNaN(c) {
				worst, wi = c, i
			}
			sum += c
		}
		t.Logf("%s: cosine to float32 over %d texts: worst %.7f (text %d), mean %.7f", q.file, got.Rows, worst, wi, sum/float64(got.Rows))
		if !(worst >= q.min) {
			t.Errorf("%s: worst cosine to the float32 graph's embedding %.6f (text %d: %.80s), want >= %v", q.file, worst, wi, texts[wi], q.min)
		}

		code, errOut, _ = encode("go", q.variant)
		wantErr := path + ": the pure-Go engine cannot run this " + q.what + " graph ("
		if code != 1 || !strings.Contains(errOut, wantErr) || !strings.Contains(errOut, "use the ort engine (-engine ort)") {
			t.Errorf("-engine go -onnx-file %s: exit %d, %q; want 1 and %q ... use the ort engine (-engine ort)", q.variant, code, errOut, wantErr)
		}
	}
}

func TestQuantizeErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.onnx")
	os.WriteFile(junk, []byte("not a protobuf"), 0o644)
	out := filepath.Join(dir, "out.onnx")
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{junk}, 2, "want IN.onnx and OUT.onnx, got 1 arguments"},
		{[]string{"-mode", "int4", junk, out}, 2, `-mode "int4": want int8 or fp16`},
		{[]string{"-weights", "int16", junk, out}, 2, `-weights "int16": want uint8 or int8`},
		{[]string{filepath.Join(dir, "none.onnx"), out}, 1, filepath.Join(dir, "none.onnx")},
		{[]string{junk, out}, 1, junk + ": "},
	} {
		code, _, errOut := runCLI(t, "", append([]string{"model", "quantize"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s written despite the errors", out)
	}
}
