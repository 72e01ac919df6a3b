package ui

import (
	"html"

	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/results"
)

// ChartMeasure is the measure of the charts: NDCG@10 under the paper's
// convention.
const ChartMeasure = "ndcg@10"

// NewReportPage returns report.html's page of res.
func NewReportPage(res *results.Results) (*ReportPage, error) {
	p := &ReportPage{
		Config:       report.ConfigLine(res),
		Data:         report.DataTable(res),
		Models:       report.ModelsTable(res),
		Warnings:     res.Warnings,
		Tables:       report.Tables(res),
		Examples:     report.ExampleGroups(res),
		Significance: res.Significance,
	}
	charts, err := DatasetCharts(res, ChartMeasure)
	if err != nil {
		return nil, err
	}
	p.Charts = charts
	for d, ds := range res.Datasets {
		if ds.QrelsAbsent {
			continue
		}
		for m, mr := range ds.Models {
			for _, rs := range mr.Rates {
				t, err := NewResultsTable(res, Selection{Dataset: d, Model: m, Rate: rs.Rate, AllConventions: true})
				if err != nil {
					return nil, err
				}
				p.Comparisons = append(p.Comparisons, t)
			}
		}
	}
	return p, nil
}

// ReportHTML renders report.html of res (report.Extras.Page): the
// ReportPage in a document that inlines the components' style sheet.
func ReportHTML(res *results.Results) ([]byte, error) {
	p, err := NewReportPage(res)
	if err != nil {
		return nil, err
	}
	h, err := Render(p)
	if err != nil {
		return nil, err
	}
	return []byte(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dreval report: ` + html.EscapeString(report.ConfigLine(res)) + `</title>
<style>
` + componentsCSS + `</style>
</head>
<body>
` + h + `
</body>
</html>
`), nil
}
