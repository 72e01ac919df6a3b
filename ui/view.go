package ui

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/vugu/vugu"
	"github.com/vugu/vugu/staticrender"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/metrics"
)

// Render builds component c with vugu and returns its HTML, rendered by
// vugu's staticrender.
func Render(c vugu.Builder) (string, error) {
	var buf bytes.Buffer
	r := staticrender.New(&buf)
	env, err := vugu.NewBuildEnv(r.EventEnv())
	if err != nil {
		return "", err
	}
	if err := r.Render(env.RunBuild(c)); err != nil {
		return "", err
	}
	// staticrender writes a whole document; the page wants the fragment.
	return fragment(buf.String()), nil
}

// fragment returns the inside of the body element of doc, or doc itself
// when it has none.
func fragment(doc string) string {
	const open, end = "<body>", "</body>"
	i := bytes.Index([]byte(doc), []byte(open))
	j := bytes.LastIndex([]byte(doc), []byte(end))
	if i < 0 || j < i {
		return doc
	}
	return doc[i+len(open) : j]
}

// Num formats a value as the page shows it: four decimals, "n/a" for
// a value that cannot be computed (NaN or infinite).
func Num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// Signed is Num with a sign.
func Signed(v float64) string {
	s := Num(v)
	if s != "n/a" && v >= 0 {
		s = "+" + s
	}
	return s
}

// MetricRow is one measure's line of the results table: the clean run,
// the perturbed runs averaged over seeds, and their paired comparison.
type MetricRow struct {
	Measure    string
	Convention string // "st" or "trec"
	Clean      string
	Perturbed  string
	Diff       string
	CILow      string
	CIHigh     string
	PRand      string
	PTTest     string
	N          int
	// Worse is set when the perturbed run is significantly worse (the
	// randomization p-value below 0.05 and a negative difference).
	Worse bool
}

// RowClass is the CSS class of the row.
func (r MetricRow) RowClass() string {
	if r.Worse {
		return "worse"
	}
	return ""
}

// Selection picks what the views show of Results.
type Selection struct {
	// Dataset and Model index Results.Datasets and DatasetResult.Models.
	Dataset, Model int
	// Rate is the perturbed rate shown (one of the results' rates > 0).
	Rate float64
	// TREC adds the trec convention's measures to the table.
	TREC bool
}

// pick returns the selected model result and rate summary.
func pick(res *experiment.Results, sel Selection) (*experiment.DatasetResult, *experiment.ModelResult, *experiment.RateSummary, error) {
	if res == nil || sel.Dataset < 0 || sel.Dataset >= len(res.Datasets) {
		return nil, nil, nil, fmt.Errorf("no dataset %d in the results", sel.Dataset+1)
	}
	ds := res.Datasets[sel.Dataset]
	if sel.Model < 0 || sel.Model >= len(ds.Models) {
		return nil, nil, nil, fmt.Errorf("no model %d in the results of %s", sel.Model+1, ds.Name)
	}
	mr := ds.Models[sel.Model]
	for _, rs := range mr.Rates {
		if rs.Rate == sel.Rate {
			return ds, mr, rs, nil
		}
	}
	return ds, mr, nil, fmt.Errorf("rate %s was not run (rates: %v)", experiment.FormatRate(sel.Rate), res.Config.Rates)
}

// NewResultsTable returns the table of the selected rate: one row per st
// measure (and per trec measure when sel.TREC), clean against perturbed.
func NewResultsTable(res *experiment.Results, sel Selection) (*ResultsTable, error) {
	ds, mr, rs, err := pick(res, sel)
	if err != nil {
		return nil, err
	}
	t := &ResultsTable{
		Caption: fmt.Sprintf("%s on %s: clean vs %s at rate %s (%d seed(s)); %d queries", mr.Model, ds.Name,
			res.Config.Perturbation, experiment.FormatRate(rs.Rate), len(rs.Seeds), ds.Judged),
		Significance: res.Significance,
	}
	add := func(conv string, names []string, drop map[string]experiment.Comparison) {
		for _, m := range names {
			c, ok := drop[m]
			if !ok {
				continue
			}
			t.Rows = append(t.Rows, MetricRow{
				Measure: m, Convention: conv,
				Clean: Num(float64(c.MeanA)), Perturbed: Num(float64(c.MeanB)), Diff: Signed(float64(c.MeanDiff)),
				CILow: Signed(float64(c.CILow)), CIHigh: Signed(float64(c.CIHigh)),
				PRand: Num(float64(c.PRandomization)), PTTest: Num(float64(c.PTTest)), N: c.N,
				Worse: float64(c.PRandomization) < 0.05 && float64(c.MeanDiff) < 0,
			})
		}
	}
	add("st", res.STMeasures, rs.Drop)
	if sel.TREC {
		add("trec", res.TRECMeasures, rs.TRECDrop)
	}
	return t, nil
}

// ChartPoint is one rate of the chart: the mean over seeds and its SD.
type ChartPoint struct {
	Rate, Mean, SD float64
}

// NewRateChart returns the chart of measure (such as "ndcg@10") against
// the perturbation rate, for the selected model, over every rate run.
func NewRateChart(res *experiment.Results, sel Selection, measure string) (*RateChart, error) {
	if res == nil || sel.Dataset >= len(res.Datasets) || sel.Model >= len(res.Datasets[sel.Dataset].Models) {
		return nil, fmt.Errorf("no such dataset or model in the results")
	}
	mr := res.Datasets[sel.Dataset].Models[sel.Model]
	c := &RateChart{Measure: measure, Model: mr.Model}
	if mr.Clean != nil {
		c.Points = append(c.Points, ChartPoint{Rate: 0, Mean: mr.Clean.ST[measure]})
	}
	for _, rs := range mr.Rates {
		s, ok := rs.ST[measure]
		if !ok {
			return nil, fmt.Errorf("measure %s is not in the results", measure)
		}
		c.Points = append(c.Points, ChartPoint{Rate: rs.Rate, Mean: s.Mean, SD: s.SD})
	}
	slices.SortFunc(c.Points, func(a, b ChartPoint) int { return cmp.Compare(a.Rate, b.Rate) })
	return c, nil
}

// QueryRow is one query in the inspector.
type QueryRow struct {
	ID        string
	Text      string
	Decoded   string
	Perturbed string
	Changed   string // "3 of 12 tokens"
	// Before and After are the ranks (1-based) of the query's relevant
	// documents in the clean and perturbed runs, "-" when not retrieved.
	Before, After string
	// Clean, Pert and Damage are the query's ndcg@10, clean and perturbed,
	// and their difference (clean minus perturbed).
	Clean, Pert, Damage string
	damage              float64
}

// NewInspector returns the per-query inspector of the selected rate's
// first seed, queries sorted by damage (the largest ndcg@10 drop first).
// It needs the rankings (Results as Run returned them, not read back from
// JSON) and the decoded examples (Config.Examples at least the number of
// queries to show every query decoded).
func NewInspector(res *experiment.Results, sel Selection) (*QueryInspector, error) {
	ds, mr, rs, err := pick(res, sel)
	if err != nil {
		return nil, err
	}
	var pert *experiment.RunResult
	for _, r := range mr.Perturbed {
		if r.Rate == rs.Rate && len(rs.Seeds) > 0 && r.Seed == rs.Seeds[0] {
			pert = r
			break
		}
	}
	if pert == nil || mr.Clean == nil {
		return nil, fmt.Errorf("the run of rate %s is missing", experiment.FormatRate(rs.Rate))
	}
	ex := map[string]experiment.Example{}
	for _, e := range mr.Examples {
		if e.Rate == rs.Rate && e.Seed == pert.Seed {
			ex[e.QueryID] = e
		}
	}
	const measure = "ndcg@10"
	in := &QueryInspector{Measure: measure, Seed: pert.Seed, Rate: experiment.FormatRate(rs.Rate)}
	for qid, rel := range ds.Qrels {
		row := QueryRow{ID: qid}
		if e, ok := ex[qid]; ok {
			row.Text, row.Decoded, row.Perturbed = e.Text, e.Decoded, e.PerturbedDecoded
			row.Changed = fmt.Sprintf("%d of %d tokens", e.Changed, e.Considered)
		}
		row.Before = ranks(mr.Clean.Run[qid], rel)
		row.After = ranks(pert.Run[qid], rel)
		a, okA := mr.Clean.PerQuery[qid].ST[measure]
		b, okB := pert.PerQuery[qid].ST[measure]
		if okA && okB {
			row.Clean, row.Pert = Num(a), Num(b)
			row.damage = a - b
			row.Damage = Signed(a - b)
		} else {
			row.Clean, row.Pert, row.Damage = "n/a", "n/a", "n/a"
			row.damage = math.Inf(-1)
		}
		in.Rows = append(in.Rows, row)
	}
	slices.SortFunc(in.Rows, func(a, b QueryRow) int {
		if c := cmp.Compare(b.damage, a.damage); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return in, nil
}

// ranks returns the 1-based ranks of the relevant documents of rel in
// list, as "1, 7, -" (sorted; "-" for each relevant document not
// retrieved).
func ranks(list metrics.Ranked, rel map[string]int) string {
	pos := map[string]int{}
	for i, d := range list {
		if _, seen := pos[d.DocID]; !seen {
			pos[d.DocID] = i + 1
		}
	}
	var found []int
	missing := 0
	for doc, r := range rel {
		if r <= 0 {
			continue
		}
		if p, ok := pos[doc]; ok {
			found = append(found, p)
		} else {
			missing++
		}
	}
	slices.Sort(found)
	var b []byte
	for _, p := range found {
		if len(b) > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(p), 10)
	}
	for range missing {
		if len(b) > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '-')
	}
	if len(b) == 0 {
		return "no relevant document"
	}
	return string(b)
}

// MeasureValue is one measure's mean in the metrics view.
type MeasureValue struct {
	Measure string
	Value   string
}

// NewMetricsView returns the view of an evaluated run: every measure's
// mean, and the trec_eval-style text the CLI prints (text, from
// metrics.WriteTREC).
func NewMetricsView(runName string, res *metrics.Result, text string) *MetricsView {
	v := &MetricsView{Run: runName, Text: text, Queries: res.NumQ}
	for i, m := range res.Measures {
		val := Num(res.All[i])
		if m.IsCount() {
			val = strconv.FormatInt(int64(math.Round(res.All[i])), 10)
		}
		v.Values = append(v.Values, MeasureValue{Measure: m.String(), Value: val})
	}
	for _, s := range []struct {
		ids  []string
		what string
	}{
		{res.Ignored, "run queries are not in the qrels and were ignored"},
		{res.Missing, "qrels queries are not in the run"},
		{res.Dropped, "queries have no relevant document and were dropped"},
	} {
		if len(s.ids) > 0 {
			v.Notes = append(v.Notes, fmt.Sprintf("%d %s", len(s.ids), s.what))
		}
	}
	return v
}
