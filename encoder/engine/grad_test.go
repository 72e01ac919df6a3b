package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/internal/gradtest"
	"github.com/dreval/dreval/internal/retrievertest"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

// TestRetrieverGradients checks the gradient API on every published
// retriever layout as the Go engine opens it (internal/retrievertest: each
// family, its head, prompts and score, one or two towers, real
// tokenizers): each side's embedder is an encoder.Differentiable, and the
// gradient of a query's score against a document's vector, and of a
// passage's against a query's (each moved at random), agrees with central finite differences in
// float64 on every coordinate of the input embeddings (step 1e-5;
// gradtest's rule with relative error below 1e-6, signs above the noise
// threshold).
func TestRetrieverGradients(t *testing.T) {
	query, passage := "what is the capital of France?", "Paris is the capital and most populous city of France."
	for i, l := range retrievertest.Layouts() {
		t.Run(l.Name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), l.Name)
			retrievertest.Write(t, l.Name, dir, uint64(20+i))
			r, err := OpenRetriever(modelfiles.OSDir(dir), RetrieverOptions{Options: Options{Engine: Go}})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			vecs := map[string][]float32{}
			for side, text := range map[string]string{Query: query, Document: passage} {
				enc, _ := r.Side(side)
				v, _, err := enc.Encode([]string{text})
				if err != nil {
					t.Fatal(err)
				}
				vecs[side] = v[0]
			}
			for side, text := range map[string]string{Query: query, Document: passage} {
				enc, _ := r.Side(side)
				other := Document
				if side == Document {
					other = Query
				}
				ids := enc.EncodeIDs(text)
				d, ok := enc.Embedder().(encoder.Differentiable)
				if !ok {
					t.Fatalf("%s side: the embedder %T is not differentiable", side, enc.Embedder())
				}
				// The other side's vector, moved at random: the tiny
				// random models embed every text nearly alike (cosines
				// of 0.99999), where the cosine's gradient nearly
				// vanishes and the finite differences are mostly noise.
				target := slices.Clone(vecs[other])
				var norm float64
				for _, v := range target {
					norm += float64(v) * float64(v)
				}
				for i := range target {
					target[i] += float32(math.Sqrt(norm/float64(len(target))) * rng.NormFloat64())
				}
				g, err := d.ScoreGradient(ids, target, r.Score)
				if err != nil {
					t.Fatal(err)
				}
				emb := enc.Embedder().(*bert.Embedder)
				checkInputGradient(t, fmt.Sprintf("%s side, score %s", side, r.Score), emb, ids, target, r.Score, g)
			}
		})
	}
}

// checkInputGradient checks g, the float32 gradient, and the float64 one
// of emb's score against finite differences in float64.
func checkInputGradient(t *testing.T, what string, emb *bert.Embedder, ids []int32, target32 []float32, sim encoder.Similarity, g *encoder.Gradient) {
	t.Helper()
	table, dim := emb.InputEmbeddings()
	inputs := make([]float64, len(ids)*dim)
	for p, id := range ids {
		for j, v := range table[int(id)*dim : (int(id)+1)*dim] {
			inputs[p*dim+j] = float64(v)
		}
	}
	target := make([]float64, len(target32))
	for i, v := range target32 {
		target[i] = float64(v)
	}
	_, grad, err := bert.ScoreGradientAt(emb, ids, inputs, target, sim)
	if err != nil {
		t.Fatal(err)
	}
	f := func(x []float64) float64 {
		s, err := bert.ScoreAt(emb, ids, x, target, sim)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	res := gradtest.Check(t, what, f, inputs, grad, nil, 1e-5, 1e-6)
	if rel := gradtest.RelErr(g.Grad, grad); rel >= 1e-3 {
		t.Errorf("%s: the float32 gradient is %.3g from the float64 one (relative)", what, rel)
	}
	t.Logf("%s: %d tokens, %d coordinates: relative error %.2g (noise %.2g, threshold %.2g, %d signed)", what, len(ids), res.Checked, res.RelErr, res.Noise, res.Threshold, res.Signed)
}

// TestStaticGradientInstalled checks that the installed static model
// (make setup) opens as a differentiable embedder whose score is the
// retriever's: skipped when it is not installed (failed under CI=true).
func TestStaticGradientInstalled(t *testing.T) {
	r, err := OpenRetriever(modelfiles.OSDir(sharedtest.ModelDir(t, "static")), RetrieverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	q, _, err := r.Query.Encode([]string{"what is the capital of France?"})
	if err != nil {
		t.Fatal(err)
	}
	ids := r.Document.EncodeIDs("Paris is the capital and most populous city of France.")
	d, ok := r.Document.Embedder().(encoder.Differentiable)
	if !ok {
		t.Fatalf("the static embedder %T is not differentiable", r.Document.Embedder())
	}
	g, err := d.ScoreGradient(ids, q[0], r.Score)
	if err != nil {
		t.Fatal(err)
	}
	v, err := d.EmbedIDs([][]int32{ids})
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := encoder.SimilarityGradient(r.Score, q[0], v[0])
	if float32(g.Score) != want {
		t.Errorf("score %v, want the retriever's %v", g.Score, want)
	}
	table, dim := d.InputEmbeddings()
	if len(g.Grad) != len(ids)*dim || len(table)%dim != 0 {
		t.Errorf("a gradient of %d values for %d tokens of %d", len(g.Grad), len(ids), dim)
	}
}
