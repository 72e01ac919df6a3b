package browser

import (
	"cmp"
	"sort"
	"sync"

	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/ui"
)

// The page's chart overlays every model run with the same data,
// perturbation and seeds: each run adds its model's points (the clean
// run and every rate's mean over seeds), so the opening sweep, the rates
// the slider visited and the models run since all show. With nested
// perturbations a rate's numbers do not depend on the run it was part
// of, so points of different runs belong on one line.

// charts holds the chart points of every model run, by sweepKey.
type charts struct {
	mu sync.Mutex
	m  map[string]*sweepPoints
}

// sweepPoints are the chart points of every model run with one sweepKey.
type sweepPoints struct {
	models []string // in the order first run
	points map[string]map[float64]ui.ChartPoint
}

// add adds the points of res's first dataset's models to the chart of
// key.
func (c *charts) add(key string, res *results.Results) {
	if len(res.Datasets) == 0 || res.Datasets[0].QrelsAbsent {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*sweepPoints{}
	}
	sp := c.m[key]
	if sp == nil {
		sp = &sweepPoints{points: map[string]map[float64]ui.ChartPoint{}}
		c.m[key] = sp
	}
	for _, mr := range res.Datasets[0].Models {
		s, err := ui.SeriesOf(mr, ui.ChartMeasure)
		if err != nil {
			continue
		}
		pts := sp.points[mr.Model]
		if pts == nil {
			pts = map[float64]ui.ChartPoint{}
			sp.points[mr.Model] = pts
			sp.models = append(sp.models, mr.Model)
		}
		for _, p := range s.Points {
			pts[p.Rate] = p
		}
	}
}

// chart returns the chart of sel: the series of every model run with
// settings key, the selected model's first, the selected rate marked.
func (c *charts) chart(res *results.Results, sel ui.Selection, key string) (*ui.RateChart, error) {
	own, err := ui.NewRateChart(res, sel, ui.ChartMeasure)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sp := c.m[key]
	if sp == nil {
		return own, nil
	}
	selected := own.Series[0].Model
	var series []ui.ChartSeries
	for _, m := range append([]string{selected}, sp.models...) {
		if m == selected && len(series) > 0 {
			continue
		}
		s := ui.ChartSeries{Model: m}
		for _, p := range sp.points[m] {
			s.Points = append(s.Points, p)
		}
		sort.Slice(s.Points, func(i, j int) bool { return cmp.Less(s.Points[i].Rate, s.Points[j].Rate) }) // see ui.Chart's sort
		if len(s.Points) > 0 {
			series = append(series, s)
		}
	}
	own.Series = series
	return own, nil
}
