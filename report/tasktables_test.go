package report

import (
	"math"
	"strings"
	"testing"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
)

// fakeTaskResults builds results by hand: two datasets, models a and b,
// rates 5% and 20% with two seeds, answer accuracy, dureader scores and
// average drops with known values.
func fakeTaskResults() *results.Results {
	res := &results.Results{
		Conventions: []results.Measures{
			{Convention: metrics.ConventionST, Names: []string{"ndcg@10"}},
			{Convention: metrics.ConventionDuReader, Names: []string{"MRR@10"}},
		},
		AnswerModes: []string{"string"},
		Config:      results.ConfigSummary{Rates: []float64{0, 0.05, 0.2}, Seeds: []uint64{1, 2}, Perturbation: "idshift"},
	}
	// clean ndcg@10 per model; drop per rate = 0.1*rate*(model factor).
	clean := map[string]float64{"a": 0.6, "b": 0.4}
	factor := map[string]float64{"a": 1, "b": 3}
	for _, dn := range []string{"d1", "d2"} {
		ds := &results.DatasetResult{Name: dn, Judged: 10, Docs: 20,
			Answers: &results.AnswerSummary{Source: "answers", Questions: 10, Unanswerable: []string{"q9", "q10"}}}
		for _, mn := range []string{"a", "b"} {
			m := &results.ModelResult{Model: mn,
				Clean: &results.RunResult{Means: results.Values{metrics.ConventionST: {"ndcg@10": clean[mn]}, metrics.ConventionDuReader: {"MRR@10": clean[mn] / 2}},
					Answers: map[string]*results.AnswerAccuracy{"string": {Ks: []int{1, 5}, Accuracy: []float64{0.3, 0.7}}}}}
			for _, rate := range []float64{0.05, 0.2} {
				d := rate * factor[mn]
				m.Rates = append(m.Rates, &results.RateSummary{Rate: rate, Seeds: []uint64{1, 2},
					Stats: results.Stats{
						metrics.ConventionST:       {"ndcg@10": {Mean: clean[mn] - d, SD: 0.01, N: 2}},
						metrics.ConventionDuReader: {"MRR@10": {Mean: clean[mn]/2 - d, SD: 0.02, N: 2}},
					},
					Answers:    map[string][]results.Stat{"string": {{Mean: 0.3 - d, N: 2, SD: 0.03}, {Mean: 0.7 - d, N: 2, SD: 0.04}}},
					AnswerDrop: map[string][]results.Comparison{"string": {{MeanDiff: results.Float(-d), PRandomization: 0.01}, {MeanDiff: results.Float(-d), PRandomization: 0.5}}},
					Drop:       results.Comparisons{metrics.ConventionST: {"ndcg@10": {MeanDiff: results.Float(-d), PRandomization: 0.001}}},
				})
			}
			ds.Models = append(ds.Models, m)
		}
		res.Datasets = append(res.Datasets, ds)
	}
	for _, mn := range []string{"a", "b"} {
		for _, rate := range []float64{0.05, 0.2} {
			d := rate * factor[mn]
			p := 0.001
			if mn == "a" && rate == 0.05 {
				p = 0.3
			}
			res.Average = append(res.Average, &results.AverageDrop{Model: mn, Rate: rate, Measure: "ndcg@10", Clean: clean[mn], Perturbed: clean[mn] - d,
				Drop: results.Float(d), Relative: results.Float(d / clean[mn]), Pooled: results.Comparison{PRandomization: results.Float(p)}, Datasets: 2})
		}
	}
	return res
}

func TestTaskTableShapes(t *testing.T) {
	res := fakeTaskResults()
	ds := res.Datasets[0]
	for _, tc := range []struct {
		name   string
		table  *Table
		header string
		rows   int
		cells  map[[2]int]string // row, column -> cell text
		inCap  string
	}{
		{"answers", AnswerTable(res, ds), "Model Run Top-1 Top-5", 6,
			map[[2]int]string{{0, 2}: "0.3000", {1, 2}: "0.2500 ± 0.0300", {5, 3}: "0.1000 ± 0.0400"}, "2 of them have answers the collection declares not passage spans"},
		{"answers-drop", AnswerDropTable(res, ds), "Model Rate ΔTop-1 ΔTop-5", 4,
			map[[2]int]string{{0, 2}: "-0.0500 (p=0.0100)", {3, 3}: "-0.6000 (p=0.5000)"}, "hit@k"},
		{"dureader", DuReaderTable(res, ds), "Model Run MRR@10", 6,
			map[[2]int]string{{0, 2}: "0.3000", {2, 2}: "0.1000 ± 0.0200"}, "first 50 ids"},
		{"table 3", AverageDropTable(res, []float64{0.05, 0.2}), "Model Rate drop NDCG@10 rel. NDCG@10", 4,
			map[[2]int]string{{0, 2}: "+0.0500 (p=0.3000)", {0, 3}: "8.3%", {3, 2}: "+0.6000 (p=0.0010)", {3, 3}: "150.0%"}, "pooled"},
		{"table 3, 20% only", AverageDropTable(res, []float64{0.2}), "Model Rate drop NDCG@10 rel. NDCG@10", 2,
			map[[2]int]string{{1, 1}: "20%"}, "clean minus perturbed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.table == nil {
				t.Fatal("no table")
			}
			if got := strings.Join(tc.table.Header, " "); got != tc.header {
				t.Errorf("header %q, want %q", got, tc.header)
			}
			if len(tc.table.Rows) != tc.rows {
				t.Fatalf("%d rows, want %d", len(tc.table.Rows), tc.rows)
			}
			for at, want := range tc.cells {
				if got := tc.table.Rows[at[0]][at[1]].String(); got != want {
					t.Errorf("cell %v = %q, want %q", at, got, want)
				}
			}
			if !strings.Contains(tc.table.Caption, tc.inCap) {
				t.Errorf("caption %q lacks %q", tc.table.Caption, tc.inCap)
			}
		})
	}
}

func TestTaskTablesAbsent(t *testing.T) {
	res := fakeTaskResults()
	res.Conventions, res.Average = res.Conventions[:1], nil
	res.Datasets[0].Answers = nil
	if DuReaderTable(res, res.Datasets[0]) != nil || AnswerTable(res, res.Datasets[0]) != nil || AverageDropTable(res, nil) != nil {
		t.Error("tables made from results that do not hold their numbers")
	}
}

func TestRelCellNaN(t *testing.T) {
	if got := relCell(math.NaN()).String(); got != "–" {
		t.Errorf("relative change of a zero clean value shows %q", got)
	}
}

func TestFindings(t *testing.T) {
	res := fakeTaskResults()
	f := Findings(res)
	want := []string{
		"(a) Ranking by clean effectiveness (NDCG@10, mean over 2 datasets): a (0.6000) > b (0.4000).",
		"(b) Ranking by change at 20% (NDCG@10, perturbed minus clean, largest drop first): b (-0.6000), a (-0.2000).",
		"(c) Drop grows with rate (NDCG@10 drop at 20% larger than at 5%): holds for: a (5%: -0.0500, 20%: -0.2000); b (5%: -0.1500, 20%: -0.6000); does not hold for: none.",
		"(d) All models are affected (a significant NDCG@10 drop at 20%, paired randomization test, p < 0.05): affected: a (-0.2000, p=0.0010); b (-0.6000, p=0.0010); not shown to be affected: none.",
	}
	if len(f) != len(want) {
		t.Fatalf("%d findings, want %d: %q", len(f), len(want), f)
	}
	for i := range want {
		if f[i] != want[i] {
			t.Errorf("finding %d:\n got %s\nwant %s", i, f[i], want[i])
		}
	}
	// A model whose drop shrinks and is not significant is reported so.
	for _, a := range res.Average {
		if a.Model == "b" && a.Rate == 0.2 {
			a.Drop, a.Pooled.PRandomization = 0.01, 0.4
		}
	}
	f = Findings(res)
	if !strings.Contains(f[2], "does not hold for: b (5%: -0.1500, 20%: -0.0100)") || !strings.Contains(f[3], "not shown to be affected: b (-0.0100, p=0.4000)") {
		t.Errorf("findings after the change:\n%s\n%s", f[2], f[3])
	}
	// With one dataset the dataset's own paired comparison is used.
	one := fakeTaskResults()
	one.Datasets, one.Average = one.Datasets[:1], nil
	f = Findings(one)
	if !strings.Contains(f[3], "b (-0.6000, p=0.0010)") {
		t.Errorf("one dataset: %s", f[3])
	}
}
