package metrics

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestSentenceTransformersUnitCase reproduces sentence-transformers' own
// InformationRetrievalEvaluator unit test: embeddings are sums of one-hot
// keyword vectors, scores are their cosine similarities, and the expected
// values are the ones its test asserts.
func TestSentenceTransformersUnitCase(t *testing.T) {
	keywords := []string{"pokemon", "car", "vehicle", "fruit", "vegetable"}
	queries := []string{"What is a pokemon?", "What is a vegetable?", "What is a fruit?", "What is a vehicle?", "What is a car?"}
	corpus := []string{"A pokemon is a fictional creature", "A vegetable is a plant", "A fruit is a plant", "A vehicle is a machine", "A car is a vehicle"}
	relevant := map[int][]int{0: {0}, 1: {1}, 2: {2}, 3: {3, 4}, 4: {4}}

	embed := func(s string) []float64 {
		v := make([]float64, len(keywords))
		for i, kw := range keywords {
			if strings.Contains(strings.ToLower(s), kw) {
				v[i] = 1
			}
		}
		return v
	}
	cosine := func(a, b []float64) float64 {
		var dot, na, nb float64
		for i := range a {
			dot += a[i] * b[i]
			na += a[i] * a[i]
			nb += b[i] * b[i]
		}
		if na == 0 || nb == 0 {
			return 0
		}
		return dot / math.Sqrt(na*nb)
	}

	qrels := Qrels{}
	for q, docs := range relevant {
		qrels[strconv.Itoa(q)] = map[string]int{}
		for _, d := range docs {
			qrels[strconv.Itoa(q)][strconv.Itoa(d)] = 1
		}
	}
	run := Run{}
	for qi, q := range queries {
		qe := embed(q)
		for di, d := range corpus {
			run[strconv.Itoa(qi)] = append(run[strconv.Itoa(qi)], ScoredDoc{DocID: strconv.Itoa(di), Score: cosine(qe, embed(d))})
		}
	}
	ms, err := ParseMeasures([]string{"accuracy@1,3", "precision@1,3", "recall@1,3", "ndcg@3", "mrr@3", "map@5"}, ConventionST)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Evaluate(qrels, run, ms, Options{Convention: ConventionST})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"accuracy@1": 1, "accuracy@3": 1,
		"precision@1": 1, "precision@3": 0.4,
		"recall@1": 0.9, "recall@3": 1,
		"ndcg@3": 1, "mrr@3": 1, "map@5": 1,
	}
	for name, w := range want {
		got, ok := res.Mean(name)
		if !ok || math.Abs(got-w) > 1e-12 {
			t.Errorf("%s = %v (computed %v), sentence-transformers asserts %v", name, got, ok, w)
		}
	}
	if res.NumQ != 5 {
		t.Errorf("NumQ = %d, want 5", res.NumQ)
	}
}
