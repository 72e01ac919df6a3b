package bert

import (
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/internal/gradtest"
)

// TestRecordMatchesForward checks Record's forward pass on every family's
// tiny model: in float32 it gives Forward's bits, in float64 the float64
// transcription of Hugging Face's code to 1e-9.
func TestRecordMatchesForward(t *testing.T) {
	for _, c := range familyCases {
		t.Run(c.name, func(t *testing.T) {
			cp, cfg := checkpoint(t, c.layout, c.sizes, 3, c.edit)
			ref := refModel{cfg: cfg, set: maps.Clone(cp.Tensors), prefix: cp.Prefix}
			m, err := New(cfg, cp.Tensors)
			if err != nil {
				t.Fatal(err)
			}
			H := cfg.HiddenSize
			for s, ids := range c.seqs {
				want, err := m.Forward([][]int32{ids})
				if err != nil {
					t.Fatal(err)
				}
				tp, err := Record[float32](m, ids, nil)
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range tp.Hidden {
					if v != want[0][i] {
						t.Fatalf("sequence %d value %d: Record %v, Forward %v", s, i, v, want[0][i])
					}
				}
				tp64, err := Record[float64](m, ids, nil)
				if err != nil {
					t.Fatal(err)
				}
				refHidden, _ := ref.forward(ids)
				for tok, row := range refHidden {
					for i, v := range row {
						if d := math.Abs(tp64.Hidden[tok*H+i] - v); d > 1e-9 {
							t.Fatalf("sequence %d token %d value %d: Record in float64 %v, reference %v", s, tok, i, tp64.Hidden[tok*H+i], v)
						}
					}
				}
			}
		})
	}
}

// gradFamilies are the tiny models the gradient tests run: every family,
// every activation, RoBERTa's and XLM-R's padding ids inside a sequence
// (their positions), and MPNet with distances in the logarithmic
// buckets.
var gradFamilies = []struct {
	name   string
	layout string
	sizes  berttest.Sizes
	edit   func(map[string]any)
	ids    []int32
}{
	{"bert", "bert-base-uncased", berttest.Sizes{}, nil, []int32{2, 7, 9, 11, 40, 41, 17, 3}},
	{"bert-gelu_new", "bert-base-uncased", berttest.Sizes{}, func(c map[string]any) { c["hidden_act"] = "gelu_new" }, []int32{2, 7, 9, 11, 40, 3}},
	{"bert-relu", "bert-base-uncased", berttest.Sizes{}, func(c map[string]any) { c["hidden_act"] = "relu" }, []int32{2, 7, 9, 11, 40, 3}},
	{"roberta", "roberta-base", berttest.Sizes{}, nil, []int32{0, 7, 1, 11, 30, 31, 2}},
	{"xlm-roberta", "xlm-roberta-base", berttest.Sizes{}, func(c map[string]any) { c["pad_token_id"] = 3 }, []int32{0, 7, 3, 11, 5, 2}},
	{"distilbert", "distilbert-base-uncased", berttest.Sizes{}, nil, []int32{2, 7, 9, 11, 40, 41, 3}},
	{"distilbert-relu", "distilbert-base-uncased", berttest.Sizes{}, func(c map[string]any) { c["activation"] = "relu" }, []int32{2, 7, 9, 11, 3}},
	{"mpnet", "all-mpnet-base-v2", berttest.Sizes{Positions: 40}, nil, ramp(24, 64)},
}

// gradHead is a head the gradient tests run, with the similarity it is
// scored with.
type gradHead struct {
	name string
	head func(H int, r *rand.Rand) *encoder.Head
	sim  encoder.Similarity
}

// randDense returns a dense layer of random weights.
func randDense(in, out int, act encoder.Activation, r *rand.Rand) *encoder.Dense {
	d := &encoder.Dense{W: make([]float32, in*out), B: make([]float32, out), InN: in, OutN: out, Activation: act}
	for i := range d.W {
		d.W[i] = float32(r.NormFloat64() / math.Sqrt(float64(in)))
	}
	for i := range d.B {
		d.B[i] = float32(r.NormFloat64() * 0.1)
	}
	return d
}

// randLayerNorm returns a layer norm of random weights.
func randLayerNorm(n int, r *rand.Rand) *encoder.LayerNorm {
	l := &encoder.LayerNorm{Gamma: make([]float32, n), Beta: make([]float32, n), Eps: 1e-5}
	for i := range l.Gamma {
		l.Gamma[i] = float32(1 + 0.3*r.NormFloat64())
		l.Beta[i] = float32(0.1 * r.NormFloat64())
	}
	return l
}

func simpleHead(p encoder.Pooling, normalize bool) func(int, *rand.Rand) *encoder.Head {
	return func(int, *rand.Rand) *encoder.Head { return &encoder.Head{Pooling: p, Normalize: normalize} }
}

func denseHead(p encoder.Pooling, act encoder.Activation, out int, normalize bool) func(int, *rand.Rand) *encoder.Head {
	return func(H int, r *rand.Rand) *encoder.Head {
		in := p.Width(H)
		return &encoder.Head{Pooling: p, Steps: []encoder.Step{randDense(in, out, act, r)}, Normalize: normalize}
	}
}

// gradHeads are the heads of the published layouts, and every pooling
// mode and activation.
var gradHeads = []gradHead{
	{"mean-normalized-cos", simpleHead(encoder.Mean, true), encoder.Cosine}, // sentence-transformers, e5
	{"mean-cos", simpleHead(encoder.Mean, false), encoder.Cosine},           // BERT without pooling files
	{"mean-dot", simpleHead(encoder.Mean, false), encoder.Dot},              // Contriever
	{"cls-dot", simpleHead(encoder.CLS, false), encoder.Dot},                // DPR
	{"ance-dot", func(H int, r *rand.Rand) *encoder.Head { // ANCE: cls, dense, layernorm
		return &encoder.Head{Pooling: encoder.CLS, Steps: []encoder.Step{randDense(H, H, encoder.Identity, r), randLayerNorm(H, r)}}
	}, encoder.Dot},
	{"pooler-tanh-cos", denseHead(encoder.CLS, encoder.Tanh, 8, false), encoder.Cosine}, // supervised SimCSE
	{"dpr-projection-dot", denseHead(encoder.CLS, encoder.Identity, 6, false), encoder.Dot},
	{"max-cos", simpleHead(encoder.Max, false), encoder.Cosine},
	{"mean_sqrt_len-dot", simpleHead(encoder.MeanSqrtLen, false), encoder.Dot},
	{"weightedmean-normalized-dot", simpleHead(encoder.WeightedMean, true), encoder.Dot},
	{"lasttoken-cos", simpleHead(encoder.LastToken, false), encoder.Cosine},
	{"cls+max+mean-normalized-cos", simpleHead(encoder.Pooling("cls+max+mean"), true), encoder.Cosine},
	{"dense-relu-normalized-dot", denseHead(encoder.Mean, encoder.ReLU, 12, true), encoder.Dot},
	{"dense-sigmoid-cos", denseHead(encoder.Mean, encoder.Sigmoid, 5, false), encoder.Cosine},
	{"dense-gelu-dot", denseHead(encoder.Mean, encoder.GELU, 7, false), encoder.Dot},
	{"mean-prompt-skipped-normalized-cos", func(int, *rand.Rand) *encoder.Head {
		return &encoder.Head{Pooling: encoder.Mean, ExcludePrompt: true, Skip: 2, Normalize: true}
	}, encoder.Cosine},
}

// TestGradientFiniteDifferences checks the gradient of the score with
// respect to the input embeddings, in float64, against central finite
// differences on every coordinate (step 1e-5; gradtest's rule: relative
// error below 1e-3, the same sign on every coordinate above the noise
// threshold max(10·noise, 1e-6·max|d|)), for every family's tiny model
// (and every activation) under the published heads with their
// similarity, and for one family under every head. It checks the float32
// gradient against the float64 one too (relative error below 1e-3).
func TestGradientFiniteDifferences(t *testing.T) {
	for _, fam := range gradFamilies {
		for _, hd := range gradHeads {
			if fam.name != "bert" && hd.name != "mean-normalized-cos" && hd.name != "cls-dot" && hd.name != "ance-dot" {
				continue
			}
			t.Run(fam.name+"/"+hd.name, func(t *testing.T) {
				cp, cfg := checkpoint(t, fam.layout, fam.sizes, 5, fam.edit)
				m, err := New(cfg, cp.Tensors)
				if err != nil {
					t.Fatal(err)
				}
				r := rand.New(rand.NewPCG(11, uint64(len(hd.name))))
				H := cfg.HiddenSize
				emb := &Embedder{Model: m, Head: hd.head(H, r)}
				target := make([]float64, emb.Dim())
				for i := range target {
					target[i] = r.NormFloat64()
				}
				checkGradient(t, emb, fam.ids, target, hd.sim, nil, 1e-5)
			})
		}
	}
}

// checkGradient checks ScoreGradientAt in float64 against finite
// differences of ScoreAt on coords (nil: all) at step h, and the float32
// gradient against the float64 one on every coordinate.
func checkGradient(t *testing.T, emb *Embedder, ids []int32, target []float64, sim encoder.Similarity, coords []int, h float64) {
	t.Helper()
	H := emb.Model.Config().HiddenSize
	inputs := make([]float64, len(ids)*H)
	for p, id := range ids {
		for i, v := range emb.Model.WordEmbeddings()[int(id)*H : (int(id)+1)*H] {
			inputs[p*H+i] = float64(v)
		}
	}
	score, grad, err := ScoreGradientAt(emb, ids, inputs, target, sim)
	if err != nil {
		t.Fatal(err)
	}
	f := func(x []float64) float64 {
		s, err := ScoreAt(emb, ids, x, target, sim)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	res := gradtest.Check(t, "float64 gradient", f, inputs, grad, coords, h, 1e-6)

	target32 := make([]float32, len(target))
	for i, v := range target {
		target32[i] = float32(v)
	}
	g32, err := emb.ScoreGradient(ids, target32, sim)
	if err != nil {
		t.Fatal(err)
	}
	rel32 := gradtest.RelErr(g32.Grad, grad)
	if rel32 >= 1e-3 {
		t.Errorf("the float32 gradient is %.3g from the float64 one (relative), not below 1e-3", rel32)
	}
	if d := math.Abs(g32.Score - score); d > 1e-4*max(1, math.Abs(score)) {
		t.Errorf("float32 score %v, float64 %v", g32.Score, score)
	}
	t.Logf("score %.6g; %d coordinates: relative error %.2g (noise %.2g, threshold %.2g, %d signed, max |d| %.3g); float32 vs float64 %.2g",
		score, res.Checked, res.RelErr, res.Noise, res.Threshold, res.Signed, res.MaxAbs, rel32)
}

// TestGradientKernelsAndThreads checks that the float32 gradient has the
// same bits with either kernel and with 1 or 3 goroutines.
func TestGradientKernelsAndThreads(t *testing.T) {
	cp, cfg := checkpoint(t, "all-mpnet-base-v2", berttest.Sizes{Positions: 40, Hidden: 32, Heads: 4, Intermediate: 40}, 7, nil)
	m, err := New(cfg, cp.Tensors)
	if err != nil {
		t.Fatal(err)
	}
	ids := ramp(23, 64)
	r := rand.New(rand.NewPCG(1, 2))
	target := make([]float32, 32)
	for i := range target {
		target[i] = float32(r.NormFloat64())
	}
	grad := func(m *Model) []float32 {
		e := &Embedder{Model: m, Head: &encoder.Head{Pooling: encoder.Mean, Normalize: true}}
		g, err := e.ScoreGradient(ids, target, encoder.Cosine)
		if err != nil {
			t.Fatal(err)
		}
		return g.Grad
	}
	m.SetThreads(1)
	want := grad(m)
	for _, c := range []struct {
		name    string
		threads int
		kernel  gemmFunc
	}{{"3 threads", 3, gemmNative}, {"portable kernel", 2, gemmPortable}} {
		mm := m.clone()
		mm.SetThreads(c.threads)
		mm.gemm = c.kernel
		for i, v := range grad(mm) {
			if v != want[i] {
				t.Fatalf("%s: value %d is %v, %v with 1 thread and the native kernel", c.name, i, v, want[i])
			}
		}
	}
}

// TestTransposeInto checks the backward pass's transposed weights against
// packing the transposed matrix, padding included, for sizes that fill
// whole blocks and sizes that do not.
func TestTransposeInto(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	m := &Model{threads: 2}
	var dst panels
	for _, sz := range [][2]int{{5, 7}, {16, 32}, {33, 20}, {48, 17}, {1, 1}} {
		n, k := sz[0], sz[1]
		w := randSlice(r, n*k)
		wt := make([]float32, k*n)
		for j := range n {
			for p := range k {
				wt[p*n+j] = w[j*k+p]
			}
		}
		want := pack(wt, k, n)
		m.transposeInto(&dst, pack(w, n, k))
		if dst.n != want.n || dst.k != want.k || !slices.Equal(dst.data, want.data) {
			t.Errorf("%d×%d: the transposed panels differ from packing the transpose", n, k)
		}
	}
}

// TestGradientBadInput checks the errors of Record, Backward and the
// score's gradient.
func TestGradientBadInput(t *testing.T) {
	cp, cfg := checkpoint(t, "bert-base-uncased", berttest.Sizes{}, 1, nil)
	m, err := New(cfg, cp.Tensors)
	if err != nil {
		t.Fatal(err)
	}
	e := &Embedder{Model: m, Head: &encoder.Head{Pooling: encoder.Mean}}
	for _, c := range []struct {
		name   string
		ids    []int32
		inputs []float32
		target []float32
		sim    encoder.Similarity
		want   string
	}{
		{"no ids", nil, nil, make([]float32, 8), encoder.Cosine, "bert: no tokens"},
		{"bad id", []int32{2, 64}, nil, make([]float32, 8), encoder.Cosine, "bert: position 1: token id 64 is outside the vocabulary [0, 64)"},
		{"too long", ramp(17, 64), nil, make([]float32, 8), encoder.Cosine, "bert: 17 tokens, more than the model's 16 positions"},
		{"inputs", []int32{2, 3}, make([]float32, 15), make([]float32, 8), encoder.Cosine, "bert: 15 input embedding values for 2 tokens of 8"},
		{"target", []int32{2, 3}, nil, make([]float32, 7), encoder.Cosine, "encoder: a target of 7 values against an embedding of 8"},
		{"similarity", []int32{2, 3}, nil, make([]float32, 8), "l2", `encoder: similarity "l2" is not supported`},
	} {
		_, _, err := ScoreGradientAt(e, c.ids, c.inputs, c.target, c.sim)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	tp, err := Record[float32](m, []int32{2, 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tp.Backward(make([]float32, 3)); err == nil || !strings.Contains(err.Error(), "bert: a gradient of 3 values for hidden states of 2 tokens of 8") {
		t.Errorf("Backward of a short gradient: %v", err)
	}
}

// TestMiniLMGradient checks the gradient of all-MiniLM-L6-v2 (mean
// pooling, normalised, cosine) for a 12-token passage against a query's
// vector: in float64 against finite differences (step 1e-5, gradtest's
// rule with relative error below 1e-6) on a sample of 12 coordinates (the
// 6 largest, 6 at random), and the float32 gradient against the float64
// one on every coordinate (relative error below 1e-3). It is skipped when
// the model is not installed (failed under CI=true).
func TestMiniLMGradient(t *testing.T) {
	m := miniLM(t)
	emb := &Embedder{Model: m, Head: &encoder.Head{Pooling: encoder.Mean, Normalize: true}}
	// "what is the capital of france" and a passage of 12 ids.
	query := []int32{101, 2054, 2003, 1996, 3007, 1997, 2605, 102}
	ids := []int32{101, 3000, 2003, 1996, 3007, 1998, 2922, 2103, 1997, 2605, 1012, 102}
	qv, err := emb.EmbedIDs([][]int32{query})
	if err != nil {
		t.Fatal(err)
	}
	target := make([]float64, len(qv[0]))
	for i, v := range qv[0] {
		target[i] = float64(v)
	}
	g, err := emb.ScoreGradient(ids, qv[0], encoder.Cosine)
	if err != nil {
		t.Fatal(err)
	}
	// The sample: the 6 largest coordinates of the float32 gradient and
	// 6 drawn at random.
	var coords []int
	taken := map[int]bool{}
	for range 6 {
		best := -1
		for i, v := range g.Grad {
			if !taken[i] && (best < 0 || math.Abs(float64(v)) > math.Abs(float64(g.Grad[best]))) {
				best = i
			}
		}
		taken[best] = true
		coords = append(coords, best)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for len(coords) < 12 {
		if i := r.IntN(len(g.Grad)); !taken[i] {
			taken[i] = true
			coords = append(coords, i)
		}
	}
	checkGradient(t, emb, ids, target, encoder.Cosine, coords, 1e-5)
}

// TestBackwardMemoryMiniLM checks what the gradient of one 50-token
// passage of all-MiniLM-L6-v2 costs in memory beside the model: the first
// gradient allocates all its buffers (the tape, the backward pass's
// gradients, a transposed weight matrix), under 24 MiB. It logs the
// model's own heap and what later gradients allocate (their buffers come
// from the pools: under 1 MB once each goroutine's pool holds one). Skipped
// when the model is not installed (failed under CI=true).
func TestBackwardMemoryMiniLM(t *testing.T) {
	m := miniLM(t).clone() // fresh buffer pools
	emb := &Embedder{Model: m, Head: &encoder.Head{Pooling: encoder.Mean, Normalize: true}}
	ids := ramp(50, 30000)
	ids[0], ids[49] = 101, 102
	target := make([]float32, 384)
	target[0] = 1
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := emb.ScoreGradient(ids, target, encoder.Cosine); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	first := after.TotalAlloc - before.TotalAlloc
	model := before.HeapAlloc
	for range 4 {
		if _, err := emb.ScoreGradient(ids, target, encoder.Cosine); err != nil {
			t.Fatal(err)
		}
	}
	const n = 8
	runtime.ReadMemStats(&before)
	for range n {
		if _, err := emb.ScoreGradient(ids, target, encoder.Cosine); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	t.Logf("heap in use with the model loaded: %.1f MB; the first gradient allocates %.2f MB, later ones %.2f MB each",
		float64(model)/1e6, float64(first)/1e6, float64(after.TotalAlloc-before.TotalAlloc)/n/1e6)
	if first > 24<<20 {
		t.Errorf("the first gradient allocates %d bytes, want under 24 MiB", first)
	}
}

// BenchmarkBackwardMiniLM50 measures the gradient of all-MiniLM-L6-v2's
// cosine score (mean pooling, normalised) for one 50-token passage with
// respect to its input embeddings: the forward pass kept (Record), the
// head's and the score's backward, and the transformer's backward, on
// Threads goroutines (GOMAXPROCS), in float32. It reports the time (and
// the CPU time, cpu-ms/op) and the bytes allocated per gradient.
func BenchmarkBackwardMiniLM50(b *testing.B) {
	m := miniLM(b)
	emb := &Embedder{Model: m, Head: &encoder.Head{Pooling: encoder.Mean, Normalize: true}}
	r := rand.New(rand.NewPCG(5, 6))
	ids := []int32{101}
	for len(ids) < 49 {
		ids = append(ids, int32(1000+r.IntN(29000)))
	}
	ids = append(ids, 102)
	q, err := emb.EmbedIDs([][]int32{{101, 2054, 2003, 1996, 3007, 1997, 2605, 102}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuSeconds()
	for b.Loop() {
		if _, err := emb.ScoreGradient(ids, q[0], encoder.Cosine); err != nil {
			b.Fatal(err)
		}
	}
	// The CPU time, less moved than the wall time by other jobs on a
	// shared machine.
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(cpu*1e3/float64(b.N), "cpu-ms/op")
	}
}
