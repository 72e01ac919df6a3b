package ui

import (
	"fmt"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/results"
)

// MetricRow is one measure's line of the results table: the clean run,
// the perturbed runs averaged over seeds, and their paired comparison.
type MetricRow struct {
	Measure    string
	Convention string // "st", "trec", ...
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

// paperConvention is the convention of the study's tables, shown first.
const paperConvention = metrics.ConventionST

// NewResultsTable returns the table of the selected rate: one row per
// measure of the paper's convention (st), and of every other convention
// scored when sel.AllConventions, clean against perturbed.
func NewResultsTable(res *results.Results, sel Selection) (*ResultsTable, error) {
	ds, mr, rs, err := pick(res, sel)
	if err != nil {
		return nil, err
	}
	seeds := fmt.Sprintf("%d seeds", len(rs.Seeds))
	if len(rs.Seeds) == 1 {
		seeds = "1 seed"
	}
	t := &ResultsTable{
		Dataset: ds.Name, Model: mr.Model, Rate: results.FormatRate(rs.Rate), Paper: paperConvention.String(),
		Caption: fmt.Sprintf("%s on %s: clean vs %s at rate %s (%s); %d queries; %.1f%% of the query tokens changed (mean over seeds)", mr.Model, ds.Name,
			res.Config.Perturbation, report.Percent(rs.Rate), seeds, ds.Judged, 100*rs.ChangedFraction.Mean),
		Significance: res.Significance,
	}
	for _, cm := range res.Conventions {
		if cm.Convention != paperConvention && !sel.AllConventions {
			continue
		}
		for _, m := range cm.Names {
			c, ok := rs.Drop.Get(cm.Convention, m)
			if !ok {
				continue
			}
			t.Rows = append(t.Rows, MetricRow{
				Measure: m, Convention: cm.Convention.String(),
				Clean: report.Num(float64(c.MeanA)), Perturbed: report.Num(float64(c.MeanB)), Diff: report.Signed(float64(c.MeanDiff)),
				CILow: report.Signed(float64(c.CILow)), CIHigh: report.Signed(float64(c.CIHigh)),
				PRand: report.Num(float64(c.PRandomization)), PTTest: report.Num(float64(c.PTTest)), N: c.N,
				Worse: float64(c.PRandomization) < 0.05 && float64(c.MeanDiff) < 0,
			})
		}
	}
	return t, nil
}
