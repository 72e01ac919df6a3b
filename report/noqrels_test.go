package report

import (
	"strings"
	"testing"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
)

// withoutQrels turns dataset i of res into a dataset without qrels, as
// experiment.Run leaves one: answer accuracy only, no st, trec or
// dureader values.
func withoutQrels(res *results.Results, i int) *results.DatasetResult {
	ds := res.Datasets[i]
	ds.QrelsAbsent, ds.Judged, ds.Unanswered = true, 0, 3
	for _, m := range ds.Models {
		m.Clean.Means, m.Clean.Queries, m.Clean.PerQuery = nil, nil, nil
		for _, rs := range m.Rates {
			rs.Stats, rs.Drop = nil, nil
		}
	}
	return ds
}

func TestTablesWithoutQrels(t *testing.T) {
	res := fakeTaskResults()
	ds := withoutQrels(res, 1)
	if ConventionTable(res, ds, metrics.ConventionTREC) != nil {
		t.Errorf("a table of the trec convention, which the results were not scored under")
	}
	for _, tb := range []*Table{MainTable(res, ds), ConventionTable(res, ds, metrics.ConventionDuReader), DropTable(res, ds)} {
		if len(tb.Rows) != 0 {
			t.Errorf("%s: %d rows for a dataset without qrels", tb.Name, len(tb.Rows))
		}
	}
	if tb := MainTable(res, ds); !strings.Contains(tb.Title, "no relevance judgments") || !strings.Contains(tb.Caption, "answer-span accuracy") {
		t.Errorf("main table title %q caption %q: the reader is not told why it is empty", tb.Title, tb.Caption)
	}
	if tb := DuReaderTable(res, ds); tb != nil {
		t.Errorf("dureader table without qrels: %d rows", len(tb.Rows))
	}
	if tb := ConventionTable(res, ds, metrics.ConventionDuReader); !strings.Contains(tb.Caption, "DuReader_retrieval measures cannot be computed") {
		t.Errorf("dureader table caption %q", tb.Caption)
	}
	var names []string
	for _, tb := range DatasetTables(res, ds) {
		names = append(names, tb.Name)
		var b strings.Builder
		if err := tb.Markdown(&b); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "n/a") {
			t.Errorf("%s shows n/a:\n%s", tb.Name, b.String())
		}
	}
	if got := strings.Join(names, ","); got != "answers-d2,answers-drop-d2" {
		t.Errorf("tables of the dataset without qrels: %s, want answers-d2,answers-drop-d2", got)
	}
	at := AnswerTable(res, ds)
	if len(at.Rows) != 6 || !strings.Contains(at.Caption, "no relevance judgments (qrels)") || !strings.Contains(at.Caption, "3 queries without answers were not") {
		t.Errorf("answer table: %d rows, caption %q", len(at.Rows), at.Caption)
	}
	var names1 []string
	for _, tb := range DatasetTables(res, res.Datasets[0]) {
		names1 = append(names1, tb.Name)
	}
	// One table per convention scored (st and dureader: no trec here).
	if got := strings.Join(names1, ","); got != "d1,dureader-d1,answers-d1,drop-d1,answers-drop-d1" {
		t.Errorf("tables of the dataset with qrels: %s", got)
	}
	// One dataset with qrels is left: no average over datasets.
	if tb := AverageTable(res); tb != nil {
		t.Errorf("average table over one dataset with qrels: %q", tb.Title)
	}
}

func TestAverageTableSkipsDatasetsWithoutQrels(t *testing.T) {
	res := fakeTaskResults()
	d3 := *res.Datasets[0]
	d3.Name = "d3"
	res.Datasets = append(res.Datasets, &d3)
	withoutQrels(res, 1)
	tb := AverageTable(res)
	if tb == nil || !strings.Contains(tb.Title, "Average over 2 datasets (d1, d3)") {
		t.Fatalf("average table %v", tb)
	}
	// d1 and d3 are the same: their average is d1's clean value.
	if got := tb.Rows[0][2].Mean; got != 0.6 {
		t.Errorf("model a clean average %v, want 0.6 (the dataset without qrels averaged in as 0?)", got)
	}
}
