package report_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/report/reporttest"
	"github.com/dreval/dreval/results"
)

// fakeResults returns reporttest.Results.
func fakeResults(t *testing.T) (one, two *results.Results) { return reporttest.Results(t) }

func TestMainTableShape(t *testing.T) {
	res, _ := fakeResults(t)
	ds := res.Datasets[0]
	tab := report.MainTable(res, ds)
	wantHeader := []string{"Model", "Run", "Acc@1", "Prec@1", "Rec@1", "NDCG@10", "MRR@10", "MAP@100"}
	if strings.Join(tab.Header, ",") != strings.Join(wantHeader, ",") {
		t.Fatalf("header %q, want %q", tab.Header, wantHeader)
	}
	if len(tab.Rows) != 2*3 {
		t.Fatalf("%d rows, want 2 models x (clean + 2 rates)", len(tab.Rows))
	}
	for i, row := range tab.Rows {
		m := ds.Models[i/3]
		if row[0].Text != m.Model {
			t.Errorf("row %d model %q, want %q", i, row[0].Text, m.Model)
		}
		for j, name := range res.Measures(st) {
			c := row[2+j]
			if i%3 == 0 {
				if row[1].Text != "clean" || c.Mean != m.Clean.Means[st][name] || c.HasSD {
					t.Errorf("row %d %s: %+v, want clean %v without sd", i, name, c, m.Clean.Means[st][name])
				}
				continue
			}
			rs := m.Rates[i%3-1]
			if row[1].Text != report.RateLabel(rs.Rate) || c.Mean != rs.Stats[st][name].Mean || c.SD != rs.Stats[st][name].SD || !c.HasSD {
				t.Errorf("row %d %s: %+v, want %v ± %v", i, name, c, rs.Stats[st][name].Mean, rs.Stats[st][name].SD)
			}
		}
	}
	var md bytes.Buffer
	if err := tab.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| fake | perturbed 5% | ") || !strings.Contains(md.String(), " ± ") {
		t.Errorf("markdown lacks the perturbed rows:\n%s", md.String())
	}
}

func TestCSVReadsBack(t *testing.T) {
	res, _ := fakeResults(t)
	tab := report.DropTable(res, res.Datasets[0])
	var b bytes.Buffer
	if err := tab.CSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+len(tab.Rows) {
		t.Fatalf("%d records, want %d", len(recs), 1+len(tab.Rows))
	}
	// Header: Model, Rate, Changed tokens, its sd, then diff and p per measure.
	if recs[0][5] != "ΔAcc@1 p" {
		t.Errorf("header %q", recs[0])
	}
	m := res.Datasets[0].Models[0]
	got, err := strconv.ParseFloat(recs[1][6], 64)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(m.Rates[0].Drop[st]["precision@1"].MeanDiff); got != want {
		t.Errorf("CSV diff %v, want %v at full precision", got, want)
	}
}

func TestLaTeX(t *testing.T) {
	res, _ := fakeResults(t)
	var b bytes.Buffer
	if err := report.ConventionTable(res, res.Datasets[0], trec).LaTeX(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{`\toprule`, `ndcg\_cut\_10`, `\pm`, `\midrule`, `\end{table}`} {
		if !strings.Contains(s, want) {
			t.Errorf("LaTeX lacks %q:\n%s", want, s)
		}
	}
}

func TestCellFormats(t *testing.T) {
	tests := []struct {
		c    report.Cell
		want string
	}{
		{report.NumCell(0.5), "0.5000"},
		{report.StatCell(results.Stat{Mean: 0.25, SD: 0.01, N: 3}), "0.2500 ± 0.0100"},
		{report.StatCell(results.Stat{Mean: 0.25, N: 1}), "0.2500"},
		{report.DiffCell(results.Comparison{MeanDiff: -0.125, PRandomization: 0.00001}), "-0.1250 (p<0.0001)"},
		{report.DiffCell(results.Comparison{MeanDiff: 0.125, PRandomization: 0.5}), "+0.1250 (p=0.5000)"},
		{report.DiffCell(results.Comparison{MeanDiff: results.Float(math.NaN()), PRandomization: results.Float(math.NaN())}), "n/a (p=n/a)"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.c, got, tt.want)
		}
	}
}

// TestRunFilesScoreAsReported is the promise of the run files: scoring
// them with package metrics gives the numbers of results.json.
func TestRunFilesScoreAsReported(t *testing.T) {
	res, _ := fakeResults(t)
	ds := res.Datasets[0]
	var qb bytes.Buffer
	if err := report.WriteQrels(&qb, ds.Qrels); err != nil {
		t.Fatal(err)
	}
	qrels, err := metrics.ReadQrels(&qb, "qrels")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ds.Models {
		for _, rr := range append([]*results.RunResult{m.Clean}, m.Perturbed...) {
			var b bytes.Buffer
			if err := report.WriteRun(&b, rr.Run, rr.Name); err != nil {
				t.Fatal(err)
			}
			for _, cm := range res.Conventions {
				conv, want := cm.Convention, rr.Means[cm.Convention]
				ms, err := metrics.ParseMeasures(cm.Names, conv)
				if err != nil {
					t.Fatal(err)
				}
				got, err := metrics.EvaluateReader(qrels, bytes.NewReader(b.Bytes()), report.RunFile(res, ds, rr), ms, metrics.Options{Convention: conv, Complete: true})
				if err != nil {
					t.Fatal(err)
				}
				if got.RunTag != rr.Name {
					t.Errorf("run tag %q, want %q", got.RunTag, rr.Name)
				}
				for i, m := range ms {
					if got.All[i] != want[m.String()] {
						t.Errorf("%s %s %s: file scores %v, results say %v", rr.Name, conv, m, got.All[i], want[m.String()])
					}
				}
			}
		}
	}
}

func TestAverageTable(t *testing.T) {
	one, two := fakeResults(t)
	if report.AverageTable(one) != nil {
		t.Error("average table with one dataset")
	}
	tab := report.AverageTable(two)
	if tab == nil {
		t.Fatal("no average table with two datasets")
	}
	// Clean NDCG@10 of fake is the mean of the two datasets' values.
	a := two.Datasets[0].Models[0].Clean.Means[st]["ndcg@10"]
	b := two.Datasets[1].Models[0].Clean.Means[st]["ndcg@10"]
	if got := tab.Rows[0][5].Mean; math.Abs(got-(a+b)/2) > 1e-15 {
		t.Errorf("average clean NDCG@10 %v, want %v", got, (a+b)/2)
	}
	// Perturbed: averaged seed by seed, then mean ± sd over seeds.
	var xs []float64
	for i := range two.Config.Seeds {
		xs = append(xs, (two.Datasets[0].Models[0].Perturbed[i].Means[st]["ndcg@10"]+two.Datasets[1].Models[0].Perturbed[i].Means[st]["ndcg@10"])/2)
	}
	want := results.NewStat(xs)
	if c := tab.Rows[1][5]; math.Abs(c.Mean-want.Mean) > 1e-15 || math.Abs(c.SD-want.SD) > 1e-15 {
		t.Errorf("average perturbed NDCG@10 %v ± %v, want %v ± %v", c.Mean, c.SD, want.Mean, want.SD)
	}
}

// fakeChart is the chart the tests pass to Files: report draws none
// (package report/ratechart does, and is tested there).
var fakeChart = report.File{Path: "ndcg_vs_rate.svg", Data: []byte(`<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>chart</text></svg>`)}

func TestWriteDir(t *testing.T) {
	res, _ := fakeResults(t)
	dir := t.TempDir()
	page := func(r *results.Results) ([]byte, error) {
		if r != res {
			t.Error("the page renders other results")
		}
		return []byte("<!DOCTYPE html>page"), nil
	}
	written, err := report.WriteDir(dir, res, report.Extras{Charts: []report.File{fakeChart}, Page: page})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"results.json", "runs/fake__clean.trec", "runs/fake2__rate0.2__seed3.trec",
		"qrels/demo.qrels", "tables.md", "tables.tex", "tables/demo.csv", "tables/drop-demo.csv", "comparisons.csv", "examples.md",
		"ndcg_vs_rate.svg", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			t.Errorf("missing %s: %v", want, err)
		}
	}
	if n := 1 + 2*(1+2*3) + 1 + 2 + 3 + 1 + 1 + 1 + 1; len(written) != n {
		t.Errorf("wrote %d files, want %d", len(written), n)
	}
	if html, err := os.ReadFile(filepath.Join(dir, "report.html")); err != nil || string(html) != "<!DOCTYPE html>page" {
		t.Errorf("report.html is not what Extras.Page rendered: %q, %v", html, err)
	}
	// results.json reads back into Results with the same numbers.
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back results.Results
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got, want := back.Datasets[0].Models[1].Rates[1].Drop[st]["ndcg@10"], res.Datasets[0].Models[1].Rates[1].Drop[st]["ndcg@10"]; got != want {
		t.Errorf("drop read back %+v, want %+v", got, want)
	}
	ex, err := os.ReadFile(filepath.Join(dir, "examples.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ex), "Same perturbed queries as fake") || !strings.Contains(string(ex), "[CLS]") {
		t.Errorf("examples.md:\n%s", ex)
	}
}

func TestFilesRefuseResultsWithoutRankings(t *testing.T) {
	res, _ := fakeResults(t)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back results.Results
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if _, err := report.Files(&back, report.Extras{}); err == nil || !strings.Contains(err.Error(), "no ranking") {
		t.Errorf("got %v, want an error about missing rankings", err)
	}
}

func TestCleanOnly(t *testing.T) {
	c, err := dataset.Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := experimenttest.Registry(experimenttest.ForCollection(c))
	res, err := experiment.Run(context.Background(), experiment.Config{
		Collections: []*dataset.Collection{c}, Models: []string{"fake"}, Registry: reg, Rates: []float64{0},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	files, err := report.Files(res, report.Extras{})
	if err != nil {
		t.Fatal(err)
	}
	var md string
	for _, f := range files {
		if f.Path == "tables.md" {
			md = string(f.Data)
		}
	}
	if !strings.Contains(md, "Clean runs only") || strings.Contains(md, "perturbed") {
		t.Errorf("tables.md of a clean-only experiment:\n%s", md)
	}
}

func TestFilesSeveralDatasets(t *testing.T) {
	_, two := fakeResults(t)
	files, err := report.Files(two, report.Extras{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range files {
		if have[f.Path] {
			t.Errorf("%s written twice", f.Path)
		}
		have[f.Path] = true
	}
	for _, want := range []string{"runs/demo/fake__clean.trec", "runs/demo-half/fake2__rate0.05__seed1.trec",
		"qrels/demo.qrels", "qrels/demo-half.qrels", "tables/average.csv"} {
		if !have[want] {
			t.Errorf("no %s among %d files", want, len(files))
		}
	}
}

func TestWriteRunRefusesSpaces(t *testing.T) {
	tests := []struct {
		run  metrics.Run
		tag  string
		want string
	}{
		{metrics.Run{"q 1": {{DocID: "d", Score: 1}}}, "t", `query id "q 1"`},
		{metrics.Run{"q1": {{DocID: "d\t2", Score: 1}}}, "t", `document id "d\t2"`},
		{metrics.Run{"q1": {{DocID: "d", Score: 1}}}, "my run", `run tag "my run"`},
	}
	for _, tt := range tests {
		err := report.WriteRun(io.Discard, tt.run, tt.tag)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("got %v, want an error containing %q", err, tt.want)
		}
	}
	if err := report.WriteQrels(io.Discard, metrics.Qrels{"q1": {"a b": 1}}); err == nil {
		t.Error("qrels with a spaced document id written without error")
	}
}

// The conventions' short names in the tests.
const (
	st   = metrics.ConventionST
	trec = metrics.ConventionTREC
)

// TestComparisonsCSV checks the long-form comparisons: one row per
// dataset, model, rate, convention and measure, each holding that
// comparison's numbers at full precision.
func TestComparisonsCSV(t *testing.T) {
	res, _ := fakeResults(t)
	var b bytes.Buffer
	if err := report.ComparisonsCSV(&b, res); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	measures := 0
	for _, cm := range res.Conventions {
		measures += len(cm.Names)
	}
	ds := res.Datasets[0]
	if want := 1 + len(ds.Models)*len(ds.Models[0].Rates)*measures; len(recs) != want {
		t.Fatalf("%d records, want %d (a header and one per model, rate and measure)", len(recs), want)
	}
	if strings.Join(recs[0], ",") != "dataset,model,perturbation,rate,seeds,convention,measure,clean,perturbed,diff,ci_low,ci_high,p_randomization,p_ttest,queries" {
		t.Errorf("header %v", recs[0])
	}
	seen := 0
	for _, r := range recs[1:] {
		m := ds.Model(r[1])
		rate, _ := strconv.ParseFloat(r[3], 64)
		conv, err := metrics.ParseConvention(r[5])
		if m == nil || m.Rate(rate) == nil || err != nil {
			t.Fatalf("record %v names no run", r)
		}
		c, ok := m.Rate(rate).Drop.Get(conv, r[6])
		if !ok {
			t.Fatalf("record %v names no comparison", r)
		}
		if r[8] != strconv.FormatFloat(float64(c.MeanB), 'g', -1, 64) || r[9] != strconv.FormatFloat(float64(c.MeanDiff), 'g', -1, 64) || r[14] != strconv.Itoa(c.N) {
			t.Errorf("record %v, comparison %+v", r, c)
		}
		seen++
	}
	if seen == 0 {
		t.Error("no record checked")
	}
}
