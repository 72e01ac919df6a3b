package results

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/dreval/dreval/metrics"
)

func TestNewStat(t *testing.T) {
	for _, tc := range []struct {
		xs       []float64
		mean, sd float64
	}{
		{nil, 0, 0},
		{[]float64{0.5}, 0.5, 0},
		{[]float64{1, 2, 3, 4}, 2.5, math.Sqrt(5.0 / 3)},
	} {
		s := NewStat(tc.xs)
		if s.N != len(tc.xs) || math.Abs(s.Mean-tc.mean) > 1e-15 || math.Abs(s.SD-tc.sd) > 1e-15 {
			t.Errorf("NewStat(%v) = %+v, want mean %v sd %v", tc.xs, s, tc.mean, tc.sd)
		}
	}
}

// TestValuesKeyedByConventionName checks the JSON form of values keyed by
// convention: the conventions' names as keys, read back to the same
// values, and an unknown name refused.
func TestValuesKeyedByConventionName(t *testing.T) {
	rr := RunResult{Name: "r", Means: Values{}, Queries: map[metrics.Convention]int{metrics.ConventionST: 3}}
	rr.Means.Set(metrics.ConventionST, "ndcg@10", 0.25)
	rr.Means.Set(metrics.ConventionDuReader, "MRR@10", 0.5)
	b, err := json.Marshal(rr)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"means":{"dureader":{"MRR@10":0.5},"st":{"ndcg@10":0.25}}`, `"queries":{"st":3}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
	var back RunResult
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if v, ok := back.Means.Get(metrics.ConventionDuReader, "MRR@10"); !ok || v != 0.5 {
		t.Errorf("read back %v %v", v, ok)
	}
	if _, ok := back.Means.Get(metrics.ConventionTREC, "map"); ok {
		t.Error("a value of a convention never set")
	}
	if err := json.Unmarshal([]byte(`{"means":{"nonsense":{"x":1}}}`), &back); err == nil || !strings.Contains(err.Error(), "nonsense") {
		t.Errorf("an unknown convention read without an error naming it: %v", err)
	}
}

func TestResultsMeasures(t *testing.T) {
	r := &Results{Conventions: []Measures{{Convention: metrics.ConventionST, Names: []string{"ndcg@10"}}}}
	if got := r.Measures(metrics.ConventionST); len(got) != 1 || !r.Scored(metrics.ConventionST) {
		t.Errorf("st measures %v", got)
	}
	if r.Measures(metrics.ConventionTREC) != nil || r.Scored(metrics.ConventionTREC) {
		t.Error("trec was not scored")
	}
}

func TestComparisonNaNIsNull(t *testing.T) {
	b, err := json.Marshal(NoComparison())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"mean_a":null,"mean_b":null,"mean_diff":null,"p_randomization":null,"p_ttest":null,"ci_low":null,"ci_high":null,"n":0}`; string(b) != want {
		t.Errorf("%s, want %s", b, want)
	}
	var c Comparison
	if err := json.Unmarshal(b, &c); err != nil || !math.IsNaN(float64(c.PTTest)) {
		t.Errorf("read back %+v, %v", c, err)
	}
}

func TestAnswerHit(t *testing.T) {
	a := &AnswerAccuracy{FirstHit: map[string]int{"q1": 3, "q2": 0}}
	for _, tc := range []struct {
		q     string
		k     int
		hit   float64
		known bool
	}{{"q1", 3, 1, true}, {"q1", 2, 0, true}, {"q2", 100, 0, true}, {"q3", 1, 0, false}} {
		if h, ok := a.Hit(tc.q, tc.k); h != tc.hit || ok != tc.known {
			t.Errorf("Hit(%s, %d) = %v, %v", tc.q, tc.k, h, ok)
		}
	}
}

func TestKeepExamples(t *testing.T) {
	var exs []Example
	for _, rate := range []float64{0.1, 0.2} {
		for q := range 4 {
			exs = append(exs, Example{QueryID: string(rune('a' + q)), Rate: rate, Seed: 1})
		}
	}
	r := &Results{Datasets: []*DatasetResult{{Models: []*ModelResult{{Model: "m", Examples: exs}}}}}
	kept := r.KeepExamples(2)
	got := kept.Datasets[0].Models[0].Examples
	if len(got) != 4 || got[0].QueryID != "a" || got[1].QueryID != "b" || got[2].Rate != 0.2 || got[3].QueryID != "b" {
		t.Errorf("kept %+v", got)
	}
	if len(r.Datasets[0].Models[0].Examples) != 8 {
		t.Error("KeepExamples changed the results it copied")
	}
}
