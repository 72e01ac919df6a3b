package encoder

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/gradtest"
)

func randVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func to64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// testHeads returns a head of every pooling mode and step, for hidden
// states of dim values.
func testHeads(dim int, r *rand.Rand) map[string]*Head {
	dense := func(in, out int, act Activation) *Dense {
		d := &Dense{W: randVec(r, in*out), B: randVec(r, out), InN: in, OutN: out, Activation: act}
		for i := range d.W {
			d.W[i] /= float32(math.Sqrt(float64(in)))
		}
		return d
	}
	ln := func(n int) *LayerNorm {
		l := &LayerNorm{Gamma: randVec(r, n), Beta: randVec(r, n), Eps: 1e-5}
		for i := range l.Gamma {
			l.Gamma[i] = 1 + 0.3*l.Gamma[i]
		}
		return l
	}
	heads := map[string]*Head{
		"ance":           {Pooling: CLS, Steps: []Step{dense(dim, dim, Identity), ln(dim)}},
		"pooler":         {Pooling: CLS, Steps: []Step{dense(dim, dim, Tanh)}},
		"relu sigmoid":   {Pooling: Mean, Steps: []Step{dense(dim, 9, ReLU), dense(9, 4, Sigmoid)}, Normalize: true},
		"gelu":           {Pooling: Max, Steps: []Step{dense(dim, 5, GELU)}},
		"all modes":      {Pooling: "cls+max+mean+mean_sqrt_len_tokens+weightedmean+lasttoken", Normalize: true},
		"prompt skipped": {Pooling: "mean+max+weightedmean+lasttoken", Skip: 2, ExcludePrompt: true},
		"all skipped":    {Pooling: "mean+max+lasttoken", Skip: 9, ExcludePrompt: true, Normalize: true},
	}
	return heads
}

// TestHeadForwardMatchesApply checks that HeadForward in float32 gives
// Apply's bits for every pooling mode and step.
func TestHeadForwardMatchesApply(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const dim, n = 6, 7
	hidden := randVec(r, n*dim)
	for name, h := range testHeads(dim, r) {
		want := make([]float32, h.Dim(dim))
		h.Apply(want, hidden, dim)
		got, _, err := HeadForward(h, hidden, dim)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: HeadForward %v, Apply %v", name, got, want)
		}
	}
}

// TestHeadBackwardFiniteDifferences checks the backward pass of every
// head (with a cosine score on top) against central finite differences
// of the hidden states in float64 (gradtest's rule, relative error below
// 1e-6).
func TestHeadBackwardFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const dim, n = 6, 7
	for name, h := range testHeads(dim, r) {
		t.Run(name, func(t *testing.T) {
			hidden := to64(randVec(r, n*dim))
			target := to64(randVec(r, h.Dim(dim)))
			score := func(x []float64) float64 {
				emb, _, err := HeadForward(h, x, dim)
				if err != nil {
					t.Fatal(err)
				}
				s, _, err := SimilarityGradient(Cosine, target, emb)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			emb, back, err := HeadForward(h, hidden, dim)
			if err != nil {
				t.Fatal(err)
			}
			_, dEmb, err := SimilarityGradient(Cosine, target, emb)
			if err != nil {
				t.Fatal(err)
			}
			grad := back(dEmb)
			if name == "all skipped" {
				// Nothing is pooled: the embedding is constant.
				if slices.ContainsFunc(grad, func(v float64) bool { return v != 0 }) {
					t.Errorf("gradient %v, want zeros", grad)
				}
				return
			}
			gradtest.Check(t, name, score, hidden, grad, nil, 1e-5, 1e-6)
		})
	}
}

// TestSimilarityGradient checks both similarities against finite
// differences, the zero vector's cosine, and the errors.
func TestSimilarityGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	target, emb := to64(randVec(r, 5)), to64(randVec(r, 5))
	for _, sim := range []Similarity{Cosine, Dot} {
		_, grad, err := SimilarityGradient(sim, target, emb)
		if err != nil {
			t.Fatal(err)
		}
		f := func(x []float64) float64 {
			s, _, _ := SimilarityGradient(sim, target, x)
			return s
		}
		gradtest.Check(t, string(sim), f, emb, grad, nil, 1e-5, 1e-6)
	}
	s, g, err := SimilarityGradient(Cosine, []float32{1, 2}, []float32{0, 0})
	if err != nil || s != 0 || g[0] != 0 || g[1] != 0 {
		t.Errorf("cosine with the zero vector: %v %v %v; want 0, zeros", s, g, err)
	}
	if _, _, err := SimilarityGradient(Cosine, []float32{1}, []float32{1, 2}); err == nil || !strings.Contains(err.Error(), "a target of 1 values against an embedding of 2") {
		t.Errorf("lengths: %v", err)
	}
	if _, _, err := SimilarityGradient("l2", []float32{1}, []float32{1}); err == nil || !strings.Contains(err.Error(), `similarity "l2" is not supported`) {
		t.Errorf("similarity: %v", err)
	}
}

// TestHeadForwardRefuses checks HeadForward's errors: a step without a
// backward pass, an unknown pooling, hidden states of the wrong size.
func TestHeadForwardRefuses(t *testing.T) {
	for _, c := range []struct {
		h      *Head
		hidden int
		want   string
	}{
		{&Head{Pooling: Mean, Steps: []Step{opaqueStep{}}}, 8, "head step 1 (opaque 4->4) has no backward pass"},
		{&Head{Pooling: "median"}, 8, `pooling "median" is not known`},
		{&Head{Pooling: Mean}, 7, "token vectors of 4 values, got 7 values"},
		{&Head{Pooling: Mean}, 0, "token vectors of 4 values, got 0 values"},
	} {
		if _, _, err := HeadForward(c.h, make([]float32, c.hidden), 4); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.h, err, c.want)
		}
	}
}

type opaqueStep struct{}

func (opaqueStep) In() int                { return 4 }
func (opaqueStep) Out() int               { return 4 }
func (opaqueStep) Apply(dst, x []float32) { copy(dst, x) }
func (opaqueStep) String() string         { return "opaque 4->4" }

// TestTopFlips checks the candidates against scoring every substitution
// by hand: best first, ties by id, the current id and skipped ids left
// out; and the errors.
func TestTopFlips(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const vocab, dim = 50, 4
	table := randVec(r, vocab*dim)
	copy(table[20*dim:21*dim], table[30*dim:31*dim]) // a tie: ids 20 and 30
	g := &Gradient{IDs: []int32{3, 30, 7}, Dim: dim, Grad: randVec(r, 3*dim)}
	skip := func(id int32) bool { return id < 3 }
	for pos := range g.IDs {
		got, err := TopFlips(g, table, pos, 6, skip)
		if err != nil {
			t.Fatal(err)
		}
		var want []Flip
		cur := g.IDs[pos]
		for v := range int32(vocab) {
			if v == cur || v < 3 {
				continue
			}
			var gain float64
			for c := range dim {
				gain += (float64(table[int(v)*dim+c]) - float64(table[int(cur)*dim+c])) * float64(g.Grad[pos*dim+c])
			}
			want = append(want, Flip{ID: v, Gain: float32(gain)})
		}
		slices.SortStableFunc(want, func(a, b Flip) int {
			if a.Gain != b.Gain {
				if a.Gain > b.Gain {
					return -1
				}
				return 1
			}
			return int(a.ID - b.ID)
		})
		want = want[:6]
		for i := range want {
			if got[i].ID != want[i].ID || math.Abs(float64(got[i].Gain-want[i].Gain)) > 1e-6 {
				t.Errorf("position %d: flips %v, want %v", pos, got, want)
				break
			}
		}
	}
	all, err := TopFlips(g, table, 0, 1000, nil)
	if err != nil || len(all) != vocab-1 {
		t.Errorf("k beyond the vocabulary: %d flips, %v; want %d", len(all), err, vocab-1)
	}
	for _, c := range []struct {
		table []float32
		pos   int
		want  string
	}{
		{table[:len(table)-1], 0, "a table of 199 values is not rows of the gradient's 4"},
		{table, 3, "position 3 is outside the sequence's 3"},
		{table[:8], 1, "the id 30 at position 1 is outside the table's 2 rows"},
	} {
		if _, err := TopFlips(g, c.table, c.pos, 5, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error with %q", err, c.want)
		}
	}
}
