package ui

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/report"
)

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
		val := report.Num(res.All[i])
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
