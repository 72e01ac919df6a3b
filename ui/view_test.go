package ui

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/results"
)

var (
	fakeOnce sync.Once
	fakeRes  *results.Results
	fakeErr  error
)

// fakeResults runs the experiment on the demo with experimenttest's fake
// dense model: rates 0, 0.1 and 0.5, two seeds.
func fakeResults(t *testing.T) *results.Results {
	t.Helper()
	fakeOnce.Do(func() {
		c, err := dataset.Demo("test")
		if err != nil {
			fakeErr = err
			return
		}
		reg, _ := experimenttest.Registry(experimenttest.ForCollection(c))
		fakeRes, fakeErr = experiment.Run(context.Background(), experiment.Config{
			Collections: []*dataset.Collection{c},
			Models:      []string{"fake"},
			Registry:    reg,
			Rates:       []float64{0, 0.1, 0.5},
			Seeds:       2,
			K:           20,
			Resamples:   500,
			Examples:    1000,
		}, nil)
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return fakeRes
}

// cells returns the text of every element with data-field=name in html,
// in document order.
func cells(html, field string) []string {
	re := regexp.MustCompile(`data-field="` + field + `"[^>]*>([^<]*)<`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(html, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestResultsTableRendersEveryMeasure(t *testing.T) {
	res := fakeResults(t)
	rs := res.Datasets[0].Models[0].Rates[0] // rate 0.1
	for _, trec := range []bool{false, true} {
		table, err := NewResultsTable(res, Selection{Rate: 0.1, AllConventions: trec})
		if err != nil {
			t.Fatal(err)
		}
		html, err := Render(table)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(html, "<html") || strings.Contains(html, "<body") {
			t.Errorf("Render returned a whole document, want a fragment: %.80s", html)
		}
		want := len(res.Measures(metrics.ConventionST))
		if trec {
			want += len(res.Measures(metrics.ConventionTREC))
		}
		for _, field := range []string{"clean", "perturbed", "diff", "ci_low", "ci_high", "p_randomization", "p_ttest", "n"} {
			if got := len(cells(html, field)); got != want {
				t.Errorf("trec=%v: %d %s cells, want %d", trec, got, field, want)
			}
		}
		// The first row is the first st measure, rounded to 4 decimals.
		m := res.Measures(metrics.ConventionST)[0]
		c := rs.Drop[metrics.ConventionST][m]
		if got, want := cells(html, "clean")[0], strconv.FormatFloat(float64(c.MeanA), 'f', 4, 64); got != want {
			t.Errorf("%s clean: %s, want %s", m, got, want)
		}
		if got := cells(html, "perturbed")[0]; got != report.Num(float64(c.MeanB)) {
			t.Errorf("%s perturbed: %s, want %s", m, got, report.Num(float64(c.MeanB)))
		}
		if !strings.Contains(html, `data-measure="`+m+`"`) {
			t.Errorf("no row for %s", m)
		}
		// The caption gives the realised fraction of changed tokens.
		if rs.ChangedFraction.Mean <= 0 {
			t.Fatalf("the fake run changed no tokens at 10%%")
		}
		if want := fmt.Sprintf("%.1f%% of the query tokens changed", 100*rs.ChangedFraction.Mean); !strings.Contains(table.Caption, want) {
			t.Errorf("caption %q lacks %q", table.Caption, want)
		}
	}
}

func TestResultsTableUnknownRate(t *testing.T) {
	_, err := NewResultsTable(fakeResults(t), Selection{Rate: 0.3})
	if err == nil || !strings.Contains(err.Error(), "rate 0.3 was not run") {
		t.Errorf("error %v, want one saying rate 0.3 was not run", err)
	}
}

// points returns the attributes of every circle of class point in html.
func points(html string) []map[string]string {
	var out []map[string]string
	for _, m := range regexp.MustCompile(`<circle class="point"([^>]*)>`).FindAllStringSubmatch(html, -1) {
		attrs := map[string]string{}
		for _, a := range regexp.MustCompile(`([a-z-]+)="([^"]*)"`).FindAllStringSubmatch(m[1], -1) {
			attrs[a[1]] = a[2]
		}
		out = append(out, attrs)
	}
	return out
}

func TestRateChartHasOnePointPerRate(t *testing.T) {
	res := fakeResults(t)
	chart, err := NewRateChart(res, Selection{}, "ndcg@10")
	if err != nil {
		t.Fatal(err)
	}
	html, err := Render(chart)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, "<svg") {
		t.Fatalf("no inline SVG in %.200s", html)
	}
	pts := points(html)
	if len(pts) != 3 {
		t.Fatalf("%d points, want 3 (rates 0, 0.1, 0.5)", len(pts))
	}
	mr := res.Datasets[0].Models[0]
	want := []struct{ rate, mean string }{
		{"0", report.Num(mr.Clean.Means[metrics.ConventionST]["ndcg@10"])},
		{"0.1", report.Num(mr.Rates[0].Stats[metrics.ConventionST]["ndcg@10"].Mean)},
		{"0.5", report.Num(mr.Rates[1].Stats[metrics.ConventionST]["ndcg@10"].Mean)},
	}
	for i, p := range pts {
		if p["data-rate"] != want[i].rate || p["data-mean"] != want[i].mean || p["data-model"] != "fake" {
			t.Errorf("point %d: %v, want rate %s mean %s", i, p, want[i].rate, want[i].mean)
		}
	}
	if _, err := NewRateChart(res, Selection{}, "nonsense"); err == nil {
		t.Error("a chart of an unknown measure: no error")
	}
}

// TestRateChartShowsTokensChanged: the chart gives, beside each rate
// asked, the fraction of query tokens the perturbation really changed
// (the results' changed_fraction), under the axis and in each point.
func TestRateChartShowsTokensChanged(t *testing.T) {
	res := fakeResults(t)
	mr := res.Datasets[0].Models[0]
	chart, err := NewRateChart(res, Selection{}, "ndcg@10")
	if err != nil {
		t.Fatal(err)
	}
	html, err := Render(chart)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0.0000", strconv.FormatFloat(mr.Rates[0].ChangedFraction.Mean, 'f', 4, 64), strconv.FormatFloat(mr.Rates[1].ChangedFraction.Mean, 'f', 4, 64)}
	for i, p := range points(html) {
		if p["data-changed"] != want[i] {
			t.Errorf("point %d: data-changed %q, want %q", i, p["data-changed"], want[i])
		}
	}
	row := regexp.MustCompile(`class="changed"[^>]*>([^<]*)<`).FindAllStringSubmatch(html, -1)
	var got []string
	for _, m := range row {
		got = append(got, m[1])
	}
	wantRow := []string{"0%", percent(mr.Rates[0].ChangedFraction.Mean), percent(mr.Rates[1].ChangedFraction.Mean)}
	if !slices.Equal(got, wantRow) {
		t.Errorf("the row of tokens changed is %q, want %q", got, wantRow)
	}
	if mr.Rates[1].ChangedFraction.Mean <= mr.Rates[0].ChangedFraction.Mean {
		t.Fatalf("the fake run changed %v of the tokens at 50%%, %v at 10%%: nested draws change more at a higher rate",
			mr.Rates[1].ChangedFraction.Mean, mr.Rates[0].ChangedFraction.Mean)
	}
	for _, s := range []string{"tokens changed", "really changed at each rate"} {
		if !strings.Contains(html, s) {
			t.Errorf("the chart does not say %q:\n%s", s, html)
		}
	}
	// A chart whose series changed nothing (no rates) has no such row.
	bare := &RateChart{Measure: "ndcg@10", Label: "NDCG@10", Title: "x", Series: []ChartSeries{{Model: "m", Points: []ChartPoint{{Rate: 0, Mean: 0.5}}}}}
	if h, err := Render(bare); err != nil || strings.Contains(h, `class="changed"`) {
		t.Errorf("a chart with no tokens changed shows the row (err %v)", err)
	}
}

func TestInspectorSortsByDamage(t *testing.T) {
	res := fakeResults(t)
	in, err := NewInspector(res, Selection{Rate: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	ds := res.Datasets[0]
	if len(in.Rows) != len(ds.Qrels) {
		t.Fatalf("%d rows, want one per judged query (%d)", len(in.Rows), len(ds.Qrels))
	}
	prev := math.Inf(1)
	for _, r := range in.Rows {
		if r.Damage == "n/a" {
			prev = math.Inf(-1)
			continue
		}
		d, err := strconv.ParseFloat(r.Damage, 64)
		if err != nil {
			t.Fatalf("query %s: damage %q", r.ID, r.Damage)
		}
		if d > prev+1e-9 {
			t.Errorf("query %s (damage %v) after a query with damage %v: not sorted", r.ID, d, prev)
		}
		prev = d
		if r.Decoded == "" || r.Perturbed == "" {
			t.Errorf("query %s has no decoded text", r.ID)
		}
		if r.Before == "" || r.After == "" {
			t.Errorf("query %s has no ranks", r.ID)
		}
	}
	html, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(html, "<tr data-query="); got != len(in.Rows) {
		t.Errorf("rendered %d query rows, want %d", got, len(in.Rows))
	}
}

func TestInspectorRanks(t *testing.T) {
	// A query with two relevant documents, one retrieved at rank 3; a
	// judged non-relevant document retrieved first.
	res := &results.Results{
		Conventions: []results.Measures{{Convention: metrics.ConventionST, Names: []string{"ndcg@10"}}},
		Config:      results.ConfigSummary{Rates: []float64{0, 0.1}},
		Datasets: []*results.DatasetResult{{
			Name:  "d",
			Qrels: metrics.Qrels{"q": {"a": 1, "b": 2, "n": 0}},
			Models: []*results.ModelResult{{
				Model: "m",
				Clean: &results.RunResult{
					Run:      metrics.Run{"q": {{DocID: "n"}, {DocID: "x"}, {DocID: "b"}}},
					PerQuery: map[string]results.Values{"q": {metrics.ConventionST: {"ndcg@10": 0.5}}},
				},
				Perturbed: []*results.RunResult{{
					Rate: 0.1, Seed: 1,
					Run:      metrics.Run{"q": {{DocID: "b"}, {DocID: "a"}}},
					PerQuery: map[string]results.Values{"q": {metrics.ConventionST: {"ndcg@10": 0.75}}},
				}},
				Rates: []*results.RateSummary{{Rate: 0.1, Seeds: []uint64{1}}},
			}},
		}},
	}
	in, err := NewInspector(res, Selection{Rate: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	r := in.Rows[0]
	if r.Before != "3, -" || r.After != "1, 2" || r.Damage != "-0.2500" {
		t.Errorf("before %q after %q damage %q, want \"3, -\" \"1, 2\" \"-0.2500\"", r.Before, r.After, r.Damage)
	}
	if want := []string{"3 → 1", "- → 2"}; !slices.Equal(r.Moves, want) {
		t.Errorf("moves %q, want %q", r.Moves, want)
	}
	var before, after []string
	for _, d := range r.TopBefore {
		before = append(before, d.Label())
	}
	for _, d := range r.TopAfter {
		after = append(after, d.Label())
	}
	if want := []string{"1. n (judged not relevant)", "2. x", "3. b (relevant, grade 2)"}; !slices.Equal(before, want) {
		t.Errorf("top before %q, want %q", before, want)
	}
	if want := []string{"1. b (relevant, grade 2)", "2. a (relevant, grade 1)"}; !slices.Equal(after, want) {
		t.Errorf("top after %q, want %q", after, want)
	}
	html, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<span class="move">3 → 1</span>`, `<li class="rel" data-doc="b">1. b (relevant, grade 2)</li>`} {
		if !strings.Contains(html, want) {
			t.Errorf("the inspector's HTML lacks %s", want)
		}
	}
}

func TestWordDiff(t *testing.T) {
	for _, c := range []struct {
		a, b     string
		changedA []string
		changedB []string
	}{
		{"[CLS] how big is a mcdouble [SEP]", "[unused100] how big is a mc darioble [SEP]", []string{"[CLS] ", "mcdouble "}, []string{"[unused100] ", "mc ", "darioble "}},
		{"same words", "same words", nil, nil},
		{"", "new", nil, []string{"new"}},
		{"a b a", "a a", []string{"b "}, nil},
	} {
		pa, pb := wordDiff(c.a, c.b)
		changed := func(ps []Part) (out []string) {
			for _, p := range ps {
				if p.Changed {
					out = append(out, p.Text)
				}
			}
			return out
		}
		if got := changed(pa); !slices.Equal(got, c.changedA) {
			t.Errorf("wordDiff(%q, %q): changed before %q, want %q", c.a, c.b, got, c.changedA)
		}
		if got := changed(pb); !slices.Equal(got, c.changedB) {
			t.Errorf("wordDiff(%q, %q): changed after %q, want %q", c.a, c.b, got, c.changedB)
		}
		var joined strings.Builder
		for _, p := range pa {
			joined.WriteString(p.Text)
		}
		if joined.String() != strings.Join(strings.Fields(c.a), " ") {
			t.Errorf("wordDiff(%q): the parts join to %q", c.a, joined.String())
		}
	}
}

func TestMetricsView(t *testing.T) {
	qrels := metrics.Qrels{"q1": {"d1": 1}, "q2": {"d2": 1}}
	run := metrics.Run{"q1": {{DocID: "d1", Score: 2}, {DocID: "d3", Score: 1}}, "q3": {{DocID: "d1", Score: 1}}}
	res, err := metrics.Evaluate(qrels, run, metrics.DefaultMeasures(metrics.ConventionTREC), metrics.Options{Convention: metrics.ConventionTREC, RelLevel: 1})
	if err != nil {
		t.Fatal(err)
	}
	v := NewMetricsView("my.run", res, "map all 1.0000 <b>\n")
	html, err := Render(v)
	if err != nil {
		t.Fatal(err)
	}
	vals := cells(html, "value")
	if len(vals) != len(res.Measures) {
		t.Fatalf("%d values, want %d", len(vals), len(res.Measures))
	}
	for i, m := range res.Measures {
		if m.String() == "num_q" && vals[i] != "1" {
			t.Errorf("num_q shown as %q, want 1", vals[i])
		}
		if m.String() == "map" && vals[i] != "1.0000" {
			t.Errorf("map shown as %q, want 1.0000", vals[i])
		}
	}
	if !strings.Contains(html, "&lt;b&gt;") {
		t.Error("the CLI text is not escaped")
	}
	for _, note := range []string{"1 run queries are not in the qrels", "1 qrels queries are not in the run"} {
		if !strings.Contains(html, note) {
			t.Errorf("no note %q", note)
		}
	}
}
