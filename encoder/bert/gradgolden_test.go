package bert

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/dreval/dreval/encoder"
)

// gradGolden is testdata/minilm-gradients.json, written by
// scripts/peers/gradients.py with PyTorch's autograd in float64.
type gradGolden struct {
	Hidden int `json:"hidden"`
	Pairs  []struct {
		QueryIDs   []int32     `json:"query_ids"`
		PassageIDs []int32     `json:"passage_ids"`
		Cosine     float64     `json:"cosine"`
		Grad       [][]float64 `json:"grad"`
	} `json:"pairs"`
}

// TestMiniLMGradientMatchesPyTorch is the attack issue's reference
// check: on the real all-MiniLM-L6-v2, the gradient of the cosine of a
// query's and a passage's embeddings with respect to the passage's input
// word embeddings, computed here in float64 (ScoreGradientAt) and in
// float32 (Embedder.ScoreGradient), agrees with PyTorch's autograd to
// 1e-4 relative (float64: 1e-6, the golden keeping 7 significant
// digits), and the cosine to 1e-9.
func TestMiniLMGradientMatchesPyTorch(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: three MiniLM backward passes in float64 (TestMiniLMGradient checks the engine under -short)")
	}
	m := miniLM(t)
	b, err := os.ReadFile(filepath.Join("testdata", "minilm-gradients.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g gradGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Pairs) == 0 || g.Hidden != m.Config().HiddenSize {
		t.Fatalf("golden: %d pairs, hidden %d", len(g.Pairs), g.Hidden)
	}
	emb := &Embedder{Model: m, Head: &encoder.Head{Pooling: encoder.Mean, Normalize: true}}
	for i, p := range g.Pairs {
		tp, err := Record[float64](m, p.QueryIDs, nil)
		if err != nil {
			t.Fatal(err)
		}
		target, _, err := encoder.HeadForward(emb.Head, tp.Hidden, g.Hidden)
		if err != nil {
			t.Fatal(err)
		}
		score, grad, err := ScoreGradientAt(emb, p.PassageIDs, nil, target, encoder.Cosine)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, 0, len(grad))
		for _, row := range p.Grad {
			want = append(want, row...)
		}
		if len(want) != len(grad) {
			t.Fatalf("pair %d: %d gradient values, the golden %d", i, len(grad), len(want))
		}
		if d := math.Abs(score - p.Cosine); d > 1e-9 {
			t.Errorf("pair %d: cosine %.12f, PyTorch %.12f", i, score, p.Cosine)
		}
		if e := relErr(grad, want); e > 1e-6 { // the golden keeps 7 significant digits
			t.Errorf("pair %d: float64 gradient off PyTorch's by %.3g relative", i, e)
		}
		target32 := make([]float32, len(target))
		for j, v := range target {
			target32[j] = float32(v)
		}
		g32, err := emb.ScoreGradient(p.PassageIDs, target32, encoder.Cosine)
		if err != nil {
			t.Fatal(err)
		}
		got32 := make([]float64, len(g32.Grad))
		for j, v := range g32.Grad {
			got32[j] = float64(v)
		}
		if e := relErr(got32, want); e > 1e-4 {
			t.Errorf("pair %d: float32 gradient off PyTorch's by %.3g relative", i, e)
		} else {
			t.Logf("pair %d (%d ids): float32 %.2g relative, float64 %.2g", i, len(p.PassageIDs), e, relErr(grad, want))
		}
	}
}

// relErr is |got - want| / |want| in the L2 norm.
func relErr(got, want []float64) float64 {
	var d, n float64
	for i := range want {
		d += (got[i] - want[i]) * (got[i] - want[i])
		n += want[i] * want[i]
	}
	return math.Sqrt(d / n)
}
