// Package ratechart draws the rate chart of experiment results: a measure
// against the perturbation rate, one line per model with error bars of
// ±1 sd over seeds, as SVG (with gonum.org/v1/plot). It is apart from
// package report so that report, which the browser app uses, does not
// pull the plotting library into the wasm build.
package ratechart

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/results"
)

// Measure is the measure the charts of Files plot.
const Measure = "ndcg@10"

// FileName is the name of the rate chart Files returns: of the single
// dataset, or of the average over datasets; with several datasets each
// also gets ndcg_vs_rate_<dataset>.svg.
const FileName = "ndcg_vs_rate.svg"

// series is one model's line: a mean and sd per rate.
type series struct {
	name       string
	x, y, errs []float64
}

// SVG returns an SVG chart of measure (an st measure) against the
// perturbation rate, one line per model with error bars of ±1 sd over
// seeds. ds selects a dataset; nil plots the average over datasets (each
// seed averaged over the datasets first).
func SVG(res *results.Results, ds *results.DatasetResult, measure string) ([]byte, error) {
	var lines []series
	title := ""
	if ds != nil {
		title = ds.Name
		for _, m := range ds.Models {
			s := series{name: m.Model}
			s.add(0, m.Clean.Means[metrics.ConventionST][measure], 0)
			for _, rs := range m.Rates {
				st := rs.Stats[metrics.ConventionST][measure]
				s.add(rs.Rate, st.Mean, st.SD)
			}
			lines = append(lines, s)
		}
	} else {
		t := report.AverageTable(res)
		if t == nil {
			return nil, fmt.Errorf("an average chart needs at least two datasets")
		}
		title = "average over datasets"
		col := -1
		for i, h := range t.Header {
			if h == report.Label(metrics.ConventionST, measure) {
				col = i
			}
		}
		if col < 0 {
			return nil, fmt.Errorf("measure %q is not in the table", measure)
		}
		rates := perturbedRates(res)
		for i := 0; i < len(t.Rows); {
			name := t.Rows[i][0].Text
			s := series{name: name}
			for j := 0; j < len(rates) && i < len(t.Rows); j, i = j+1, i+1 {
				c := t.Rows[i][col]
				s.add(rates[j], c.Mean, c.SD)
			}
			lines = append(lines, s)
		}
	}
	return drawChart(title, report.Label(metrics.ConventionST, measure), lines)
}

func (s *series) add(x, y, sd float64) {
	s.x = append(s.x, x)
	s.y = append(s.y, y)
	s.errs = append(s.errs, sd)
}

// errPoints adapts a series to plotter's XYer and YErrorer.
type errPoints struct{ s series }

func (e errPoints) Len() int                        { return len(e.s.x) }
func (e errPoints) XY(i int) (float64, float64)     { return e.s.x[i] * 100, e.s.y[i] }
func (e errPoints) YError(i int) (float64, float64) { return e.s.errs[i], e.s.errs[i] }

func drawChart(title, ylabel string, lines []series) ([]byte, error) {
	p, err := buildPlot(title, ylabel, lines)
	if err != nil {
		return nil, err
	}
	c := vgsvg.New(6*vg.Inch, 4*vg.Inch)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// buildPlot returns the plot of lines.
func buildPlot(title, ylabel string, lines []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = ylabel + " vs perturbation rate"
	if title != "" {
		p.Title.Text += " (" + title + ")"
	}
	p.X.Label.Text = "perturbation rate (% of query tokens)"
	p.Y.Label.Text = ylabel + " (mean ± sd over seeds)"
	// The y axis starts at the tenth below the lowest bar and ends at 1.
	lo, xmax := 1.0, 0.0
	for _, s := range lines {
		for i := range s.y {
			lo = min(lo, s.y[i]-s.errs[i])
			xmax = max(xmax, s.x[i]*100)
		}
	}
	p.Y.Min, p.Y.Max = max(0, math.Floor(lo*10)/10), 1
	p.X.Min, p.X.Max = 0, max(xmax*1.04, 1)
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = false, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(10), vg.Points(10)
	for i, s := range lines {
		for _, v := range append(append([]float64(nil), s.y...), s.errs...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("chart: model %s has a non-finite value", s.name)
			}
		}
		pts := errPoints{s}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("chart: model %s: %w", s.name, err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		sc.Color = plotutil.Color(i)
		sc.Shape = plotutil.Shape(i)
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, fmt.Errorf("chart: model %s: %w", s.name, err)
		}
		eb.Color = plotutil.Color(i)
		p.Add(l, sc, eb)
		p.Legend.Add(s.name, l, sc)
	}
	return p, nil
}

// perturbedRates returns 0 and the rates above 0 of res's configuration:
// the x values of the average chart's rows.
func perturbedRates(res *results.Results) []float64 {
	out := []float64{0}
	for _, r := range res.Config.Rates {
		if r > 0 {
			out = append(out, r)
		}
	}
	return out
}

// Files returns the rate charts of res, plotting Measure: FileName, and
// with several datasets one per dataset. They are what report.Files
// takes as its charts.
func Files(res *results.Results) ([]report.File, error) {
	var judged []*results.DatasetResult // the datasets with qrels: the chart's measure needs them
	for _, ds := range res.Datasets {
		if !ds.QrelsAbsent {
			judged = append(judged, ds)
		}
	}
	switch len(judged) {
	case 0:
		return nil, nil
	case 1:
		svg, err := SVG(res, judged[0], Measure)
		if err != nil {
			return nil, err
		}
		name := FileName
		if len(res.Datasets) > 1 {
			name = strings.TrimSuffix(FileName, ".svg") + "_" + judged[0].Name + ".svg"
		}
		return []report.File{{Path: name, Data: svg}}, nil
	}
	var out []report.File
	if report.AverageTable(res) != nil {
		svg, err := SVG(res, nil, Measure)
		if err != nil {
			return nil, err
		}
		out = append(out, report.File{Path: FileName, Data: svg})
	}
	for _, ds := range judged {
		svg, err := SVG(res, ds, Measure)
		if err != nil {
			return nil, err
		}
		out = append(out, report.File{Path: strings.TrimSuffix(FileName, ".svg") + "_" + ds.Name + ".svg", Data: svg})
	}
	return out, nil
}
