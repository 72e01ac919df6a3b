package ui

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/results"
)

// ChartSeries is one model's line of a RateChart.
type ChartSeries struct {
	Model  string
	Points []ChartPoint
}

// ChartPoint is one rate of a series: the mean over seeds and its SD,
// and Changed, the fraction of the query tokens the perturbation really
// changed at that rate (mean over seeds; 0 for the clean run and where
// unknown). The rate asked and the fraction changed differ by mode
// (typo at 10% changes about half the tokens), so the chart shows both.
type ChartPoint struct {
	Rate, Mean, SD float64
	Changed        float64
}

// The chart's size and margins, in SVG user units (the viewBox of
// rate-chart.vugu is 0 0 chartW chartH); with several series the legend
// takes legendW at the right, outside the plot.
const (
	chartW, chartH                     = 480.0, 260.0
	marginL, marginR, marginT, marginB = 48.0, 16.0, 12.0, 36.0
	legendW                            = 112.0
	// changedH is the height of the row of changed fractions under the
	// rate axis (when the first series has them).
	changedH = 16.0
)

// showsChanged reports whether the chart has the row of realised
// fractions: its first series changed some tokens at some rate.
func (c *RateChart) showsChanged() bool {
	if len(c.Series) == 0 {
		return false
	}
	for _, p := range c.Series[0].Points {
		if p.Changed > 0 {
			return true
		}
	}
	return false
}

// bottom is the plot's bottom margin: the rate axis's labels and title,
// and the row of changed fractions when there is one.
func (c *RateChart) bottom() float64 {
	if c.showsChanged() {
		return marginB + changedH
	}
	return marginB
}

// right is the plot's right edge.
func (c *RateChart) right() float64 {
	if len(c.Series) > 1 {
		return chartW - marginR - legendW
	}
	return chartW - marginR
}

// seriesColors are the lines' colours, in series order (distinct for
// the common forms of colour blindness).
var seriesColors = []string{"#1f5fa8", "#c0392b", "#2e8b57", "#8e44ad", "#d68910", "#17a2b8"}

func (c *RateChart) color(i int) string { return seriesColors[i%len(seriesColors)] }

// maxRate is the x axis's end: the largest rate of any series.
func (c *RateChart) maxRate() float64 {
	m := 0.0
	for _, s := range c.Series {
		for _, p := range s.Points {
			m = math.Max(m, p.Rate)
		}
	}
	if m == 0 {
		m = 0.5
	}
	return m
}

func (c *RateChart) x(r float64) float64 {
	return marginL + r/c.maxRate()*(c.right()-marginL)
}

func (c *RateChart) y(v float64) float64 {
	return marginT + (1-math.Max(0, math.Min(1, v)))*(chartH-marginT-c.bottom())
}

func coord(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// percent writes a rate in percent as the axis shows it ("12.5%").
func percent(r float64) string { return report.Percent(math.Round(r*1000) / 1000) }

// AriaLabel describes the chart for screen readers.
func (c *RateChart) AriaLabel() string {
	names := make([]string, len(c.Series))
	for i, s := range c.Series {
		names[i] = s.Model
	}
	return fmt.Sprintf("%s against perturbation rate, %s: %s", c.Label, c.Title, strings.Join(names, ", "))
}

// Caption is the figure's caption.
func (c *RateChart) Caption() string {
	s := fmt.Sprintf("%s against the perturbation rate, %s (mean over seeds; bars: one SD)", c.Label, c.Title)
	if c.Marked {
		s += "; dashed: the rate shown, " + percent(c.Mark)
	}
	if c.showsChanged() {
		s += fmt.Sprintf("; under the rates asked, the share of query tokens %s's perturbation really changed at each rate (mean over seeds)", c.Series[0].Model)
	}
	return s
}

// AxesPath is the path of the two axes.
func (c *RateChart) AxesPath() string {
	return fmt.Sprintf("M%s %s V%s H%s", coord(marginL), coord(marginT), coord(chartH-c.bottom()), coord(c.right()))
}

// chartLine is a line element of the chart.
type chartLine struct {
	Class, X1, X2, Y1, Y2, Stroke, Width string
	// Dash is the stroke-dasharray, nil for a solid line.
	Dash any
}

// Lines are the grid lines, the marked rate, the error bars and the
// legend's swatches.
func (c *RateChart) Lines() []chartLine {
	var out []chartLine
	for i := 0; i <= 4; i++ {
		v := coord(c.y(float64(i) / 4))
		out = append(out, chartLine{Class: "grid", X1: coord(marginL), X2: coord(c.right()), Y1: v, Y2: v, Stroke: "#ddd", Width: "1"})
	}
	if c.Marked {
		x := coord(c.x(c.Mark))
		out = append(out, chartLine{Class: "mark", X1: x, X2: x, Y1: coord(marginT), Y2: coord(chartH - c.bottom()), Stroke: "#888", Width: "1", Dash: "4 3"})
	}
	for i, s := range c.Series {
		for _, p := range s.Points {
			if p.SD > 0 && !math.IsNaN(p.Mean) {
				x := coord(c.x(p.Rate))
				out = append(out, chartLine{Class: "sd", X1: x, X2: x, Y1: coord(c.y(p.Mean - p.SD)), Y2: coord(c.y(p.Mean + p.SD)), Stroke: c.color(i), Width: "1"})
			}
		}
	}
	if len(c.Series) > 1 {
		for i := range c.Series {
			y := coord(marginT + 10 + 14*float64(i))
			out = append(out, chartLine{Class: "swatch", X1: coord(c.right() + 12), X2: coord(c.right() + 30), Y1: y, Y2: y, Stroke: c.color(i), Width: "2"})
		}
	}
	return out
}

// chartText is a text element of the chart.
type chartText struct {
	Class, X, Y, Anchor, Fill, Text string
}

// Texts are the ticks' labels, the axis title and the legend.
func (c *RateChart) Texts() []chartText {
	var out []chartText
	for i := 0; i <= 4; i++ {
		v := float64(i) / 4
		out = append(out, chartText{Class: "tick", X: coord(marginL - 6), Y: coord(c.y(v) + 4), Anchor: "end", Fill: "#333", Text: strconv.FormatFloat(v, 'f', 2, 64)})
	}
	mr := c.maxRate()
	for i := 0; i <= 5; i++ {
		r := mr * float64(i) / 5
		out = append(out, chartText{Class: "tick", X: coord(c.x(r)), Y: coord(chartH - c.bottom() + 16), Anchor: "middle", Fill: "#333", Text: percent(r)})
	}
	title := "perturbation rate"
	if c.showsChanged() {
		title = "perturbation rate asked; below it, tokens changed"
		out = append(out, c.changedTexts()...)
	}
	out = append(out, chartText{Class: "axis-title", X: coord(marginL + (c.right()-marginL)/2), Y: coord(chartH - 4), Anchor: "middle", Fill: "#333", Text: title})
	if len(c.Series) > 1 {
		for i, s := range c.Series {
			out = append(out, chartText{Class: "legend", X: coord(c.right() + 34), Y: coord(marginT + 14 + 14*float64(i)), Anchor: "start", Fill: "#333", Text: s.Model})
		}
	}
	return out
}

// changedTexts is the row under the rate axis: "changed" and, under each
// rate of the first series, the fraction of tokens it changed there (a
// label too close to the one before it is left out; every point's
// tooltip has it too).
func (c *RateChart) changedTexts() []chartText {
	y := coord(chartH - c.bottom() + 32)
	out := []chartText{{Class: "changed-title", X: coord(marginL - 14), Y: y, Anchor: "end", Fill: "#555", Text: "changed"}}
	last := math.Inf(-1)
	for _, p := range c.Series[0].Points {
		if math.IsNaN(p.Mean) {
			continue
		}
		x := c.x(p.Rate)
		if x-last < 26 {
			continue
		}
		last = x
		out = append(out, chartText{Class: "changed", X: coord(x), Y: y, Anchor: "middle", Fill: "#555", Text: percent(p.Changed)})
	}
	return out
}

// chartPolyline is one series' line.
type chartPolyline struct {
	Model, Stroke, Points string
}

// Polylines are the series' lines (a series of one point has none).
func (c *RateChart) Polylines() []chartPolyline {
	var out []chartPolyline
	for i, s := range c.Series {
		var pts []string
		for _, p := range s.Points {
			if !math.IsNaN(p.Mean) {
				pts = append(pts, coord(c.x(p.Rate))+","+coord(c.y(p.Mean)))
			}
		}
		if len(pts) > 1 {
			out = append(out, chartPolyline{Model: s.Model, Stroke: c.color(i), Points: strings.Join(pts, " ")})
		}
	}
	return out
}

// chartCircle is one point of a series.
type chartCircle struct {
	X, Y, Fill, Model, Rate, Mean, Changed, Title string
}

// Circles are the series' points; each names its model, rate, mean and
// the fraction of tokens changed (data-model, data-rate, data-mean,
// data-changed) and has a tooltip.
func (c *RateChart) Circles() []chartCircle {
	var out []chartCircle
	for i, s := range c.Series {
		for _, p := range s.Points {
			if math.IsNaN(p.Mean) {
				continue
			}
			title := fmt.Sprintf("%s, rate %s: %s", s.Model, percent(p.Rate), report.Num(p.Mean))
			if p.Rate > 0 {
				title += fmt.Sprintf(" (%s of the query tokens changed)", percent(p.Changed))
			}
			out = append(out, chartCircle{
				X: coord(c.x(p.Rate)), Y: coord(c.y(p.Mean)), Fill: c.color(i), Model: s.Model,
				Rate: results.FormatRate(p.Rate), Mean: report.Num(p.Mean), Changed: strconv.FormatFloat(p.Changed, 'f', 4, 64),
				Title: title,
			})
		}
	}
	return out
}

// SeriesOf returns model mr's series of measure under the paper's
// convention: the clean run at rate 0, then each rate's mean and SD over
// seeds, by rate.
func SeriesOf(mr *results.ModelResult, measure string) (ChartSeries, error) {
	return modelSeries(mr, measure)
}

// modelSeries returns model mr's series of measure under the paper's
// convention: the clean run at rate 0, then each rate's mean and SD over
// seeds.
func modelSeries(mr *results.ModelResult, measure string) (ChartSeries, error) {
	s := ChartSeries{Model: mr.Model}
	if mr.Clean != nil {
		s.Points = append(s.Points, ChartPoint{Rate: 0, Mean: mr.Clean.Means[paperConvention][measure]})
	}
	for _, rs := range mr.Rates {
		st, ok := rs.Stats[paperConvention][measure]
		if !ok {
			return s, fmt.Errorf("measure %s is not in the results of %s", measure, mr.Model)
		}
		s.Points = append(s.Points, ChartPoint{Rate: rs.Rate, Mean: st.Mean, SD: st.SD, Changed: rs.ChangedFraction.Mean})
	}
	// sort.Slice, not slices.SortFunc: each element type slices sorts adds
	// 19 KB of code to the browser app; sort.Slice shares one (wasm-size.py).
	sort.Slice(s.Points, func(i, j int) bool { return cmp.Less(s.Points[i].Rate, s.Points[j].Rate) })
	return s, nil
}

// NewRateChart returns the page's chart of measure (such as "ndcg@10")
// against the perturbation rate for the selected model, over every rate
// run, with the selected rate marked.
func NewRateChart(res *results.Results, sel Selection, measure string) (*RateChart, error) {
	ds, mr, _, err := pick(res, sel)
	if err != nil && mr == nil {
		return nil, err
	}
	s, err := modelSeries(mr, measure)
	if err != nil {
		return nil, err
	}
	c := &RateChart{Measure: measure, Label: report.Label(paperConvention, measure), Title: ds.Name, Series: []ChartSeries{s}}
	if sel.Rate > 0 {
		c.Mark, c.Marked = sel.Rate, true
	}
	return c, nil
}

// DatasetCharts returns report.html's charts of measure: one per dataset
// with qrels, every model a line, and with several such datasets one of
// the average over them (each seed averaged over the datasets first, as
// report.AverageTable does).
func DatasetCharts(res *results.Results, measure string) ([]*RateChart, error) {
	label := report.Label(paperConvention, measure)
	var out []*RateChart
	for _, ds := range res.Datasets {
		if ds.QrelsAbsent {
			continue
		}
		c := &RateChart{Measure: measure, Label: label, Title: ds.Name}
		for _, mr := range ds.Models {
			s, err := modelSeries(mr, measure)
			if err != nil {
				return nil, err
			}
			c.Series = append(c.Series, s)
		}
		out = append(out, c)
	}
	t := report.AverageTable(res)
	if t == nil {
		return out, nil
	}
	col := slices.Index(t.Header, label)
	if col < 0 {
		return nil, fmt.Errorf("measure %s is not in the average table", measure)
	}
	c := &RateChart{Measure: measure, Label: label, Title: "average over datasets"}
	rates := append([]float64{0}, res.Config.PerturbedRates()...)
	for i := 0; i < len(t.Rows); {
		s := ChartSeries{Model: t.Rows[i][0].Text}
		for j := 0; j < len(rates) && i < len(t.Rows) && t.Rows[i][0].Text == s.Model; j, i = j+1, i+1 {
			cell := t.Rows[i][col]
			s.Points = append(s.Points, ChartPoint{Rate: rates[j], Mean: cell.Mean, SD: cell.SD})
		}
		c.Series = append(c.Series, s)
	}
	return append(out, c), nil
}
