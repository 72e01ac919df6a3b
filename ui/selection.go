package ui

import (
	"fmt"

	"github.com/dreval/dreval/results"
)

// Selection picks what the page's views show of Results.
type Selection struct {
	// Dataset and Model index Results.Datasets and DatasetResult.Models.
	Dataset, Model int
	// Rate is the perturbed rate shown (one of the results' rates > 0).
	Rate float64
	// AllConventions adds the measures of every convention scored (trec,
	// and dureader for task dureader) to the results table, after the
	// paper's (st).
	AllConventions bool
}

// pick returns the selected model result and rate summary.
func pick(res *results.Results, sel Selection) (*results.DatasetResult, *results.ModelResult, *results.RateSummary, error) {
	if res == nil || sel.Dataset < 0 || sel.Dataset >= len(res.Datasets) {
		return nil, nil, nil, fmt.Errorf("no dataset %d in the results", sel.Dataset+1)
	}
	ds := res.Datasets[sel.Dataset]
	if sel.Model < 0 || sel.Model >= len(ds.Models) {
		return nil, nil, nil, fmt.Errorf("no model %d in the results of %s", sel.Model+1, ds.Name)
	}
	mr := ds.Models[sel.Model]
	if rs := mr.Rate(sel.Rate); rs != nil {
		return ds, mr, rs, nil
	}
	return ds, mr, nil, fmt.Errorf("rate %s was not run (rates: %v)", results.FormatRate(sel.Rate), res.Config.Rates)
}
