//go:build cgo && !js

package ort

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

var tmpDir string

func TestMain(m *testing.M) {
	var err error
	if tmpDir, err = os.MkdirTemp("", "dreval-ort-test"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmpDir)
	os.Exit(code)
}

// libPath returns the ONNX Runtime library for tests: $DREVAL_ORT_LIB, or
// where scripts/setup-ort.sh installs it. The test is skipped when it is
// absent (failed under CI=true).
func libPath(t testing.TB) string {
	t.Helper()
	p := os.Getenv("DREVAL_ORT_LIB")
	if p == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			t.Skip(err)
		}
		p = DefaultLibPath(c)
	}
	if _, err := os.Stat(p); err != nil {
		msg := fmt.Sprintf("ONNX Runtime library %s is absent; run scripts/setup-ort.sh", p)
		if sharedtest.InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

type miniLMFixture struct {
	cfg      modelfiles.Config
	st       *safetensors.File
	onnx     string // exported graph, opset 14
	onnx17   string // exported graph, opset 17
	err      error
	modelDir string
}

var (
	fixOnce sync.Once
	fix     miniLMFixture
)

// miniLM exports the installed all-MiniLM-L6-v2 to ONNX once per test
// binary.
func miniLM(t testing.TB) *miniLMFixture {
	t.Helper()
	dir := sharedtest.ModelDir(t, "minilm")
	fixOnce.Do(func() {
		fix.modelDir = dir
		f, err := os.Open(filepath.Join(dir, "config.json"))
		if err != nil {
			fix.err = err
			return
		}
		defer f.Close()
		if fix.cfg, fix.err = modelfiles.ReadConfig(f, "config.json"); fix.err != nil {
			return
		}
		if fix.st, fix.err = safetensors.ReadFile(filepath.Join(dir, "model.fp16.safetensors")); fix.err != nil {
			return
		}
		fix.onnx = filepath.Join(tmpDir, "minilm-opset14.onnx")
		if fix.err = bert.WriteONNX(fix.onnx, fix.st.Tensors, fix.cfg, bert.ONNXOptions{Opset: 14}); fix.err != nil {
			return
		}
		fix.onnx17 = filepath.Join(tmpDir, "minilm-opset17.onnx")
		fix.err = bert.WriteONNX(fix.onnx17, fix.st.Tensors, fix.cfg, bert.ONNXOptions{Opset: 17})
	})
	if fix.err != nil {
		t.Fatal(fix.err)
	}
	return &fix
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// TestExampleSentence checks ONNX Runtime on the exported graph against the
// sentence-transformers reference embedding of "This is an example
// sentence" (mean pooled, normalised), for both export opsets.
func TestExampleSentence(t *testing.T) {
	lib := libPath(t)
	m := miniLM(t)
	ids := [][]int32{{101, 2023, 2003, 2019, 2742, 6251, 102}}
	for _, path := range []string{m.onnx, m.onnx17} {
		e, err := New(path, lib, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		vecs, err := e.EmbedIDs(ids)
		if err != nil {
			t.Fatal(err)
		}
		v := vecs[0]
		if len(v) != 384 {
			t.Fatalf("dim %d, want 384", len(v))
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(math.Sqrt(n)-1) > 1e-5 {
			t.Errorf("norm %v, want 1", math.Sqrt(n))
		}
		for i, w := range []float32{0.0677, 0.0636, 0.0487, 0.0794} {
			if math.Abs(float64(v[i]-w)) > 1e-4 {
				t.Errorf("%s: v[%d] = %.5f, want %.4f", filepath.Base(path), i, v[i], w)
			}
		}
	}
}

// TestPaddingInvariance embeds a short sequence alone and in a batch with a
// longer one (so it is padded): the vectors must agree.
func TestPaddingInvariance(t *testing.T) {
	lib := libPath(t)
	e, err := New(miniLM(t).onnx, lib, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	short := []int32{101, 2023, 2003, 2019, 2742, 6251, 102}
	long := []int32{101, 1996, 4248, 2829, 4419, 14523, 2058, 1996, 13971, 3899, 1998, 2059, 2009, 2253, 2188, 102}
	alone, err := e.EmbedIDs([][]int32{short})
	if err != nil {
		t.Fatal(err)
	}
	e.BatchSize = 2
	both, err := e.EmbedIDs([][]int32{long, short})
	if err != nil {
		t.Fatal(err)
	}
	if c := cosine(alone[0], both[1]); c < 0.99999 {
		t.Errorf("padded and unpadded embeddings differ: cosine %v", c)
	}
}

func TestCLSPoolingAndForward(t *testing.T) {
	lib := libPath(t)
	e, err := New(miniLM(t).onnx, lib, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ids := [][]int32{{101, 2023, 2003, 102}, {101, 7592, 102}}
	hidden, err := e.Forward(ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hidden {
		if len(h) != len(ids[i])*384 {
			t.Fatalf("sequence %d: %d hidden values, want %d", i, len(h), len(ids[i])*384)
		}
	}
	e.Head = &encoder.Head{Pooling: encoder.CLS, Normalize: true}
	vecs, err := e.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ids {
		cls := append([]float32(nil), hidden[i][:384]...)
		encoder.Normalize(cls)
		if c := cosine(cls, vecs[i]); c < 0.999999 {
			t.Errorf("sequence %d: CLS pooling cosine to the first hidden row %v", i, c)
		}
	}
}

func TestBadInput(t *testing.T) {
	lib := libPath(t)
	m := miniLM(t)
	e, err := New(m.onnx, lib, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	long := make([]int32, 513)
	for _, c := range []struct {
		ids  [][]int32
		want string
	}{
		{[][]int32{{101, 102}, {}}, "sequence 1 has no ids"},
		{[][]int32{{101, 30522, 102}}, "sequence 0 position 1: token id 30522 is outside the vocabulary [0, 30522)"},
		{[][]int32{{101, -1, 102}}, "token id -1"},
		{[][]int32{long}, "513 tokens, more than the model's 512 positions"},
	} {
		if _, err := e.EmbedIDs(c.ids); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error = %v, want one containing %q", err, c.want)
		}
	}

	garbage := filepath.Join(t.TempDir(), "garbage.onnx")
	os.WriteFile(garbage, []byte("not an onnx file"), 0o644)
	valid, _ := os.ReadFile(m.onnx)
	truncated := filepath.Join(t.TempDir(), "truncated.onnx")
	os.WriteFile(truncated, valid[:len(valid)/2], 0o644)
	for _, c := range []struct {
		path, lib, want string
	}{
		{garbage, lib, "not a valid ONNX model"},
		{truncated, lib, "not a valid ONNX model"},
		{filepath.Join(t.TempDir(), "missing.onnx"), lib, "no such file"},
		{m.onnx, filepath.Join(t.TempDir(), "libonnxruntime.so.1"), "already loaded"},
	} {
		if _, err := New(c.path, c.lib, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%s, %s): error = %v, want one containing %q", filepath.Base(c.path), c.lib, err, c.want)
		}
	}
	if _, err := New(m.onnx, lib, -1); err == nil {
		t.Error("New accepted a negative thread count")
	}
}

// readTexts returns up to n "text" fields of a BEIR jsonl file.
func readTexts(t testing.TB, path string, n int) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() && len(out) < n {
		var rec struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, rec.Text)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestThreeEnginesAgree embeds 1,000 real texts (950 SQuAD questions and
// 50 Cranfield abstracts cut to 64 tokens) with the pure-Go encoder on the
// safetensors weights, the pure-Go encoder on the weights read back from the
// exported ONNX file, and ONNX Runtime on that file: every text's vectors
// must agree pairwise at cosine >= 0.9999.
func TestThreeEnginesAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds 1,000 texts three times")
	}
	lib := libPath(t)
	m := miniLM(t)
	texts := readTexts(t, filepath.Join(sharedtest.Path(t, "data/squad-v1.1-dev"), "queries.jsonl"), 950)
	texts = append(texts, readTexts(t, filepath.Join(sharedtest.Path(t, "data/cranfield"), "corpus.jsonl"), 50)...)
	if len(texts) != 1000 {
		t.Fatalf("read %d texts, want 1000", len(texts))
	}
	enc, err := transformer.Load(modelfiles.OSDir(m.modelDir), transformer.Options{MaxLength: 64})
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := enc.Tokenize(texts)

	fromSafetensors, err := enc.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	set, info, err := bert.ReadONNXFile(m.onnx)
	if err != nil {
		t.Fatal(err)
	}
	if err := info.CheckConfig(m.cfg); err != nil {
		t.Fatal(err)
	}
	model, err := bert.New(m.cfg, set)
	if err != nil {
		t.Fatal(err)
	}
	fromONNX, err := (&bert.Embedder{Model: model, Head: &encoder.Head{Pooling: encoder.Mean, Normalize: true}}).EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(m.onnx, lib, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	fromORT, err := e.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	worst := map[string]float64{"go-safetensors/go-onnx": 1, "go-safetensors/ort": 1, "go-onnx/ort": 1}
	for i := range texts {
		for pair, c := range map[string]float64{
			"go-safetensors/go-onnx": cosine(fromSafetensors[i], fromONNX[i]),
			"go-safetensors/ort":     cosine(fromSafetensors[i], fromORT[i]),
			"go-onnx/ort":            cosine(fromONNX[i], fromORT[i]),
		} {
			worst[pair] = min(worst[pair], c)
			if c < 0.9999 {
				t.Errorf("text %d (%d ids): %s cosine %.6f < 0.9999", i, len(ids[i]), pair, c)
			}
		}
	}
	t.Logf("lowest cosine over %d texts: %v", len(texts), worst)
}

// TestAvailableReportsMissingLibrary runs in a child process, since a
// process loads ONNX Runtime once: a missing file and a file that is not a
// library must each give a clear error, not a crash.
func TestAvailableReportsMissingLibrary(t *testing.T) {
	if os.Getenv("DREVAL_ORT_CHILD") == "1" {
		dir := t.TempDir()
		fake := filepath.Join(dir, LibName)
		os.WriteFile(fake, []byte("not a shared library"), 0o644)
		for _, c := range []struct{ path, want string }{
			{filepath.Join(dir, "missing", LibName), "not found; install it with scripts/setup-ort.sh"},
			{fake, "loading ONNX Runtime from " + fake},
			{"", "no ONNX Runtime library path given"},
		} {
			if err := Available(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Available(%q) = %v, want an error containing %q", c.path, err, c.want)
			}
		}
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestAvailableReportsMissingLibrary$", "-test.v")
	cmd.Env = append(os.Environ(), "DREVAL_ORT_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestAvailableReportsMissingLibrary") {
		t.Fatalf("child process: %v\n%s", err, out)
	}
}

func TestDefaultLibPath(t *testing.T) {
	if got, want := DefaultLibPath("/home/u/.cache"), "/home/u/.cache/dreval/lib/libonnxruntime.so.1"; got != want {
		t.Errorf("DefaultLibPath = %q, want %q", got, want)
	}
}

// TestOptimize: the graph Optimize writes carries ONNX Runtime's fused
// operators (the com.microsoft domain) and gives the embeddings of the
// graph it was made from; a file that is not a graph is refused, naming
// it.
func TestOptimize(t *testing.T) {
	lib := libPath(t)
	m := miniLM(t)
	out := filepath.Join(t.TempDir(), "optimized.onnx")
	if err := Optimize(m.onnx, out, lib); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	g, err := onnx.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Opsets["com.microsoft"]; !ok {
		t.Errorf("the optimized graph imports %v: no com.microsoft operators, so nothing was fused", g.Opsets)
	}
	ids := [][]int32{{101, 2023, 2003, 2019, 2742, 6251, 102}, {101, 7592, 102}, {101, 1996, 4248, 2829, 4419, 14523, 2058, 1996, 13971, 3899, 1012, 102}}
	embed := func(path string) [][]float32 {
		e, err := Open(path, lib, Options{Threads: 1, Config: &m.cfg})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		v, err := e.EmbedIDs(ids)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	want, got := embed(m.onnx), embed(out)
	for i := range want {
		if c := cosine(want[i], got[i]); c < 0.999999 {
			t.Errorf("sequence %d: cosine %.8f between the optimized graph's embedding and the original's, want >= 0.999999", i, c)
		}
	}

	bad := filepath.Join(t.TempDir(), "not.onnx")
	if err := os.WriteFile(bad, []byte("not a graph"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Optimize(bad, filepath.Join(t.TempDir(), "x.onnx"), lib); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("Optimize of a file that is no graph: %v, want an error naming %s", err, bad)
	}
}
