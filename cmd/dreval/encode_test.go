package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/retrieval"
)

func TestEncodeWritesNPY(t *testing.T) {
	models := filepath.Dir(sharedtest.ModelDir(t, "minilm"))
	dir := t.TempDir()
	in := filepath.Join(dir, "docs.jsonl")
	os.WriteFile(in, []byte(`{"_id":"1","title":"","text":"This is an example sentence"}

{"_id":"2","title":"A title","text":"and its text"}
{"_id":"3","text":""}
`), 0o644)
	out := filepath.Join(dir, "docs.npy")
	code, _, errOut := runCLI(t, "", "encode", "-models", models, "-model", "minilm", "-engine", "go", "-in", in, "-out", out, "-threads", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "engine: go") || !strings.Contains(errOut, "0 truncated") {
		t.Errorf("stderr does not name the engine and truncation count:\n%s", errOut)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The .npy v1.0 header as numpy writes it: magic, version, header
	// length, then the dict padded with spaces to a multiple of 64 bytes.
	if !bytes.HasPrefix(raw, []byte("\x93NUMPY\x01\x00")) {
		t.Fatalf("bad magic: %q", raw[:8])
	}
	hlen := int(raw[8]) | int(raw[9])<<8
	header := string(raw[10 : 10+hlen])
	if (10+hlen)%64 != 0 || !strings.HasPrefix(header, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 384), }") || !strings.HasSuffix(header, "\n") {
		t.Errorf("header %q (length %d)", header, hlen)
	}
	if len(raw) != 10+hlen+3*384*4 {
		t.Errorf("file is %d bytes, want %d", len(raw), 10+hlen+3*384*4)
	}
	m, err := retrieval.ReadNPYFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []float32{0.0677, 0.0636, 0.0487, 0.0794} {
		if math.Abs(float64(m.Row(0)[i]-w)) > 1e-4 {
			t.Errorf("row 0 value %d = %v, want %v", i, m.Row(0)[i], w)
		}
	}
	if py := pythonWithNumpy(); py != "" {
		cmd := exec.Command(py, "-c", `import numpy, sys
a = numpy.load(sys.argv[1])
assert a.dtype == numpy.float32 and a.shape == (3, 384) and a.flags["C_CONTIGUOUS"], (a.dtype, a.shape)
print("%.4f %.4f" % (a[0, 0], numpy.linalg.norm(a[1])))`, out)
		got, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(got)) != "0.0677 1.0000" {
			t.Errorf("numpy.load: %s %v", got, err)
		}
	} else {
		t.Log("numpy is not installed; checked the header bytes only")
	}
}

func TestEncodePlainLinesAndTruncation(t *testing.T) {
	models := filepath.Dir(sharedtest.ModelDir(t, "minilm"))
	dir := t.TempDir()
	out := filepath.Join(dir, "x.npy")
	stdin := "first line\n\n" + strings.Repeat("long ", 50) + "\n"
	code, _, errOut := runCLI(t, stdin, "encode", "-models", models, "-in", "-", "-out", out, "-max-len", "16", "-pool", "cls", "-batch", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "1 truncated to 16 ids") {
		t.Errorf("truncation not reported:\n%s", errOut)
	}
	m, err := retrieval.ReadNPYFile(out)
	if err != nil || m.Rows != 3 {
		t.Fatalf("%v rows, %v; want 3 (the empty line is a text)", m, err)
	}
}

func TestEncodeErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"text\": \"ok\"}\n{\"id\": 1}\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-out", "x.npy"}, 2, "-in is required"},
		{[]string{"-in", "x"}, 2, "-out is required"},
		{[]string{"-in", "x", "-out", "y", "-engine", "cuda"}, 2, `-engine "cuda" is not known (known: auto, go, ort)`},
		{[]string{"-in", "x", "-out", "y", "-pool", "median"}, 2, `pooling "median" is not known`},
		{[]string{"-in", "x", "-out", "y", "-batch", "0"}, 2, "-batch must be at least 1"},
		{[]string{"-in", "x", "-out", "y", "-models", dir, "-model", "nope"}, 1, `model "nope" is not installed`},
		{[]string{"-in", bad, "-out", "y", "-model", dir}, 1, "not a model directory"},
	} {
		code, _, errOut := runCLI(t, "", append([]string{"encode"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	models := filepath.Dir(sharedtest.ModelDir(t, "minilm"))
	code, _, errOut := runCLI(t, "", "encode", "-models", models, "-in", bad, "-out", filepath.Join(dir, "y.npy"))
	if code != 1 || !strings.Contains(errOut, "bad.jsonl:2: the object has neither") {
		t.Errorf("bad jsonl: exit %d, %q", code, errOut)
	}
}

// pythonWithNumpy returns a python3 that can import numpy, or "".
func pythonWithNumpy() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if py, err := exec.LookPath(p); err == nil && exec.Command(py, "-c", "import numpy").Run() == nil {
			return py
		}
	}
	return ""
}

// cgoORT reports whether this build has the ONNX Runtime engine.
func cgoORT() bool { return !errors.Is(ort.Available(""), ort.ErrNotCompiled) }

func TestEncodeEngineSelection(t *testing.T) {
	src := sharedtest.ModelDir(t, "minilm")
	// A model directory of our own, so model.onnx can be added to it.
	model := filepath.Join(t.TempDir(), "minilm")
	os.Mkdir(model, 0o755)
	for _, name := range []string{"config.json", "tokenizer.json", "model.fp16.safetensors"} {
		if err := os.Symlink(filepath.Join(src, name), filepath.Join(model, name)); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte("This is an example sentence\nanother one\n"), 0o644)
	encode := func(engine, lib string) (int, string, *retrieval.Matrix) {
		t.Helper()
		out := filepath.Join(dir, engine+".npy")
		os.Remove(out)
		code, _, errOut := runCLI(t, "", "encode", "-model", model, "-in", in, "-out", out, "-engine", engine, "-ort-lib", lib, "-threads", "1", "-q")
		m, _ := retrieval.ReadNPYFile(out)
		return code, errOut, m
	}

	code, errOut, goVecs := encode("go", "/nonexistent/libonnxruntime.so.1")
	if code != 0 || !strings.Contains(errOut, "engine: go (pure-Go BERT forward pass") || strings.Contains(errOut, "not used") {
		t.Fatalf("-engine go: exit %d:\n%s", code, errOut)
	}
	code, errOut, _ = encode("ort", "/nonexistent/libonnxruntime.so.1")
	want := "ONNX Runtime library /nonexistent/libonnxruntime.so.1 not found"
	if !cgoORT() {
		want = "built without cgo"
	}
	// Another test of this binary may have loaded the real library already.
	if code != 1 || !strings.Contains(errOut, "dreval encode: engine ort: ") || !(strings.Contains(errOut, want) || strings.Contains(errOut, "already loaded from")) {
		t.Errorf("-engine ort without the library: exit %d, %q; want 1 and %q", code, errOut, want)
	}
	code, errOut, _ = encode("auto", "/nonexistent/libonnxruntime.so.1")
	if code != 0 || !strings.Contains(errOut, "engine: go (") || !strings.Contains(errOut, "ONNX Runtime not used: ") {
		t.Errorf("-engine auto without the library: exit %d:\n%s", code, errOut)
	}

	lib := ortLibOrSkip(t)
	code, errOut, _ = encode("ort", lib)
	if code != 1 || !strings.Contains(errOut, "no ONNX graph model.onnx or onnx/model.onnx (ONNX graphs in the folder: none); write model.onnx with \"dreval model export-onnx -model ") {
		t.Errorf("-engine ort without model.onnx: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "model", "export-onnx", "-model", model); code != 0 {
		t.Fatalf("export-onnx: exit %d: %s", code, errOut)
	}
	for _, engine := range []string{"auto", "ort"} {
		code, errOut, vecs := encode(engine, lib)
		if code != 0 || !strings.Contains(errOut, "engine: ort (ONNX Runtime "+ort.Version()+", 1 intra-op threads") {
			t.Fatalf("-engine %s with model.onnx: exit %d:\n%s", engine, code, errOut)
		}
		for i := 0; i < vecs.Rows; i++ {
			var dot, na, nb float64
			for j, v := range vecs.Row(i) {
				w := goVecs.Row(i)[j]
				dot, na, nb = dot+float64(v)*float64(w), na+float64(v)*float64(v), nb+float64(w)*float64(w)
			}
			if c := dot / math.Sqrt(na*nb); math.Abs(c-1) > 1e-4 || math.Abs(math.Sqrt(na/nb)-1) > 1e-4 {
				t.Errorf("-engine %s: text %d has cosine %v and norm ratio %v with the go engine's vector", engine, i, c, math.Sqrt(na/nb))
			}
		}
	}
}
