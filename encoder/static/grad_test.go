package static

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/internal/gradtest"
)

// TestScoreGradientFiniteDifferences checks the closed-form gradient in
// float64 against central finite differences on every coordinate (step
// 1e-5; gradtest's rule with relative error below 1e-6, the same sign
// above the noise threshold), for both similarities and sequences with
// skipped and repeated ids; the float32 gradient against the float64 one
// (relative error below 1e-5); and the score against EmbedIDs' vector.
func TestScoreGradientFiniteDifferences(t *testing.T) {
	table := randomTable(24, 6, 3)
	e, err := New(table, []int32{0, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		name string
		ids  []int32
		sim  encoder.Similarity
	}{
		{"cos", []int32{2, 5, 6, 7, 3}, encoder.Cosine},
		{"dot", []int32{2, 5, 6, 7, 3}, encoder.Dot},
		{"repeated ids", []int32{2, 9, 9, 10, 9, 3}, encoder.Cosine},
		{"one token", []int32{2, 11, 3}, encoder.Dot},
		{"padding inside", []int32{2, 12, 0, 13, 0, 3}, encoder.Cosine},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := make([]float64, e.Dim())
			target32 := make([]float32, e.Dim())
			for i := range target {
				target[i] = r.NormFloat64()
				target32[i] = float32(target[i])
			}
			inputs := make([]float64, len(c.ids)*e.Dim())
			for p, id := range c.ids {
				for j, v := range e.Row(id) {
					inputs[p*e.Dim()+j] = float64(v)
				}
			}
			_, grad, err := scoreGradient(e, c.ids, inputs, target, c.sim, true)
			if err != nil {
				t.Fatal(err)
			}
			f := func(x []float64) float64 {
				s, _, err := scoreGradient(e, c.ids, x, target, c.sim, false)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			// The skipped ids' rows take no part: their finite
			// differences are 0, as is their gradient.
			var coords []int
			for p, id := range c.ids {
				if !e.skip[id] {
					for j := range e.Dim() {
						coords = append(coords, p*e.Dim()+j)
					}
				}
			}
			res := gradtest.Check(t, "float64 gradient", f, inputs, grad, coords, 1e-5, 1e-6)
			for p, id := range c.ids {
				if e.skip[id] {
					for _, v := range grad[p*e.Dim() : (p+1)*e.Dim()] {
						if v != 0 {
							t.Errorf("position %d (skipped id %d): gradient %v, want 0", p, id, v)
						}
					}
				}
			}
			g32, err := e.ScoreGradient(c.ids, target32, c.sim)
			if err != nil {
				t.Fatal(err)
			}
			if rel := gradtest.RelErr(g32.Grad, grad); rel >= 1e-5 {
				t.Errorf("the float32 gradient is %.3g from the float64 one (relative)", rel)
			}
			vec, err := e.EmbedIDs([][]int32{c.ids})
			if err != nil {
				t.Fatal(err)
			}
			want, _, _ := encoder.SimilarityGradient(c.sim, target32, vec[0])
			if float32(g32.Score) != want {
				t.Errorf("score %v, want %v (EmbedIDs' vector)", g32.Score, want)
			}
			t.Logf("%d coordinates: relative error %.2g (noise %.2g, threshold %.2g, %d signed)", res.Checked, res.RelErr, res.Noise, res.Threshold, res.Signed)
		})
	}
}

// TestScoreGradientOnlySkipped checks that a sequence of skipped ids
// scores 0 with a zero gradient, and the errors.
func TestScoreGradientOnlySkipped(t *testing.T) {
	e, err := New(randomTable(10, 4, 1), []int32{0, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.ScoreGradient([]int32{2, 3}, []float32{1, 2, 3, 4}, encoder.Cosine)
	if err != nil {
		t.Fatal(err)
	}
	if g.Score != 0 || math.Abs(float64(g.Grad[0]))+math.Abs(float64(g.Grad[7])) != 0 {
		t.Errorf("score %v, gradient %v; want 0 and zeros", g.Score, g.Grad)
	}
	for _, c := range []struct {
		ids    []int32
		target []float32
		want   string
	}{
		{nil, make([]float32, 4), "static: the sequence has no ids"},
		{[]int32{2, 10}, make([]float32, 4), "static: position 1: token id 10 is outside the vocabulary [0, 10)"},
		{[]int32{5}, make([]float32, 3), "encoder: a target of 3 values against an embedding of 4"},
	} {
		if _, err := e.ScoreGradient(c.ids, c.target, encoder.Cosine); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error with %q", c.ids, err, c.want)
		}
	}
}
