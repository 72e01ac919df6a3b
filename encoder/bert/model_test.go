package bert

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

var (
	miniOnce sync.Once
	miniM    *Model
	miniErr  error
)

// miniLM loads all-MiniLM-L6-v2 once per test binary.
func miniLM(t testing.TB) *Model {
	t.Helper()
	dir := sharedtest.ModelDir(t, "minilm")
	miniOnce.Do(func() {
		f, err := os.Open(filepath.Join(dir, "config.json"))
		if err != nil {
			miniErr = err
			return
		}
		defer f.Close()
		cfg, err := modelfiles.ReadConfig(f, "config.json")
		if err != nil {
			miniErr = err
			return
		}
		st, err := safetensors.ReadFile(filepath.Join(dir, "model.fp16.safetensors"))
		if err != nil {
			miniErr = err
			return
		}
		miniM, miniErr = New(cfg, st.Tensors)
	})
	if miniErr != nil {
		t.Fatal(miniErr)
	}
	return miniM
}

func meanNorm(h []float32, dim int) []float32 {
	v := make([]float32, dim)
	n := len(h) / dim
	for t := 0; t < n; t++ {
		for i := range v {
			v[i] += h[t*dim+i]
		}
	}
	var ss float64
	for i := range v {
		v[i] /= float32(n)
		ss += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(ss))
	}
	return v
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

// exampleIDs is "This is an example sentence" as bert-base-uncased ids.
var exampleIDs = []int32{101, 2023, 2003, 2019, 2742, 6251, 102}

// TestMiniLMReference checks the first values of the sentence-transformers
// embedding of "This is an example sentence" (mean pooling, normalised),
// with both matrix-multiply kernels.
func TestMiniLMReference(t *testing.T) {
	m := miniLM(t)
	want := []float32{0.0677, 0.0636, 0.0487, 0.0794}
	for _, kernel := range kernels {
		mm := m.clone()
		mm.gemm = kernel.f
		out, err := mm.Forward([][]int32{exampleIDs})
		if err != nil {
			t.Fatal(err)
		}
		v := meanNorm(out[0], 384)
		for i, w := range want {
			if math.Abs(float64(v[i]-w)) > 1e-4 {
				t.Errorf("%s: v[%d] = %.5f, want %.4f (first values %v)", kernel.name, i, v[i], w, v[:4])
			}
		}
	}
}

// TestBatchInvariance checks that a sequence gives the same vector alone and
// in a batch with longer sequences, with one and several threads.
func TestBatchInvariance(t *testing.T) {
	m := miniLM(t)
	alone, err := m.Forward([][]int32{exampleIDs})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	long := func(n int) []int32 {
		s := []int32{101}
		for len(s) < n-1 {
			s = append(s, int32(1000+r.IntN(29000)))
		}
		return append(s, 102)
	}
	for _, threads := range []int{1, 3} {
		mm := m.clone()
		mm.SetThreads(threads)
		out, err := mm.Forward([][]int32{long(40), exampleIDs, long(100), long(9)})
		if err != nil {
			t.Fatal(err)
		}
		if c := cosine(meanNorm(alone[0], 384), meanNorm(out[1], 384)); c < 0.99999 {
			t.Errorf("threads=%d: cosine alone vs batched = %.7f", threads, c)
		}
	}
}

func TestForwardBadInput(t *testing.T) {
	m := miniLM(t)
	long := make([]int32, 513)
	for _, c := range []struct {
		seqs [][]int32
		want string
	}{
		{[][]int32{exampleIDs, {}}, "sequence 1: no tokens"},
		{[][]int32{{101, 30522, 102}}, "sequence 0: position 1: token id 30522 is outside"},
		{[][]int32{{101, -1}}, "token id -1"},
		{[][]int32{long}, "513 tokens, more than the model's 512"},
	} {
		if _, err := m.Forward(c.seqs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
	out, err := m.Forward(nil)
	if err != nil || len(out) != 0 {
		t.Errorf("empty batch: %v, %v", out, err)
	}
}

// tinyConfig and tinyWeights build a small random model for tests that
// need no installed model.
func tinyConfig() modelfiles.Config {
	return modelfiles.Config{VocabSize: 50, HiddenSize: 8, NumHiddenLayers: 2, NumAttentionHeads: 2,
		IntermediateSize: 12, HiddenAct: "gelu", MaxPositionEmbeddings: 16, TypeVocabSize: 2, LayerNormEps: 1e-12}
}

func tinyWeights(c modelfiles.Config, prefix string) tensor.Set {
	return berttest.Weights(berttest.Sizes{Vocab: c.VocabSize, Hidden: c.HiddenSize, Layers: c.NumHiddenLayers,
		Intermediate: c.IntermediateSize, Positions: c.MaxPositionEmbeddings, TypeVocab: c.TypeVocabSize}, 5, 6, prefix)
}

func TestNewAcceptsBertPrefix(t *testing.T) {
	c := tinyConfig()
	a, err := New(c, tinyWeights(c, ""))
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(c, tinyWeights(c, "bert."))
	if err != nil {
		t.Fatal(err)
	}
	oa, _ := a.Forward([][]int32{{1, 2, 3}})
	ob, _ := b.Forward([][]int32{{1, 2, 3}})
	for i := range oa[0] {
		if oa[0][i] != ob[0][i] {
			t.Fatalf("prefixed weights give a different result at %d", i)
		}
	}
}

func TestNewNamesMissingOrMisshapenTensor(t *testing.T) {
	c := tinyConfig()
	w := tinyWeights(c, "")
	delete(w, "encoder.layer.1.intermediate.dense.bias")
	if _, err := New(c, w); err == nil || !strings.Contains(err.Error(), `"encoder.layer.1.intermediate.dense.bias" is missing (expected shape [12])`) {
		t.Errorf("missing tensor: %v", err)
	}
	w = tinyWeights(c, "")
	w["embeddings.word_embeddings.weight"] = tensor.New(49, 8)
	if _, err := New(c, w); err == nil || !strings.Contains(err.Error(), `"embeddings.word_embeddings.weight" has shape [49 8], expected [50 8]`) {
		t.Errorf("misshapen tensor: %v", err)
	}
}

// TestKernelsAgreeOnModel runs the tiny model with both kernels.
func TestKernelsAgreeOnModel(t *testing.T) {
	c := tinyConfig()
	m, err := New(c, tinyWeights(c, ""))
	if err != nil {
		t.Fatal(err)
	}
	seqs := [][]int32{{1, 2, 3, 4, 5}, {7}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 11}}
	a, _ := m.Forward(seqs)
	m.gemm = gemmPortable
	b, _ := m.Forward(seqs)
	for s := range a {
		for i := range a[s] {
			if a[s][i] != b[s][i] {
				t.Fatalf("seq %d value %d: native %v, portable %v", s, i, a[s][i], b[s][i])
			}
		}
	}
}

// TestThreadsGiveSameBits runs the tiny model with 1 and 3 goroutines.
func TestThreadsGiveSameBits(t *testing.T) {
	c := tinyConfig()
	m, err := New(c, tinyWeights(c, ""))
	if err != nil {
		t.Fatal(err)
	}
	seqs := [][]int32{{1, 2, 3, 4, 5, 6, 7, 8, 9}, {7}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 11, 12, 13}, {4, 4}}
	m.SetThreads(1)
	a, _ := m.Forward(seqs)
	m3 := m.clone()
	m3.SetThreads(3)
	b, _ := m3.Forward(seqs)
	for s := range a {
		for i := range a[s] {
			if a[s][i] != b[s][i] {
				t.Fatalf("seq %d value %d: 1 thread %v, 3 threads %v", s, i, a[s][i], b[s][i])
			}
		}
	}
}
