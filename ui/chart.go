package ui

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/vugu/vugu"
)

// The chart's size and margins, in SVG user units.
const (
	chartW, chartH                     = 480.0, 260.0
	marginL, marginR, marginT, marginB = 48.0, 16.0, 12.0, 36.0
)

// SVG draws the chart: the measure's mean at each rate, joined by a line,
// with one-SD error bars; the y axis spans 0 to 1, the x axis 0 to the
// largest rate, in percent.
func (c *RateChart) SVG() vugu.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" role="img" aria-label="%s against perturbation rate">`,
		chartW, chartH, html.EscapeString(c.Measure))
	maxRate := 0.0
	for _, p := range c.Points {
		maxRate = math.Max(maxRate, p.Rate)
	}
	if maxRate == 0 {
		maxRate = 0.5
	}
	pw, ph := chartW-marginL-marginR, chartH-marginT-marginB
	x := func(r float64) float64 { return marginL + r/maxRate*pw }
	y := func(v float64) float64 { return marginT + (1-math.Max(0, math.Min(1, v)))*ph }
	// Axes, grid and ticks.
	fmt.Fprintf(&b, `<g class="axes" stroke="#888" stroke-width="1" fill="none"><path d="M%g %g V%g H%g"/></g>`, marginL, marginT, marginT+ph, marginL+pw)
	b.WriteString(`<g class="ticks" font-size="11" fill="#333">`)
	for i := 0; i <= 4; i++ {
		v := float64(i) / 4
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="end">%.2f</text>`,
			marginL, marginL+pw, y(v), y(v), marginL-6, y(v)+4, v)
	}
	for i := 0; i <= 5; i++ {
		r := maxRate * float64(i) / 5
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%g%%</text>`, x(r), marginT+ph+16, math.Round(r*1000)/10)
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">perturbation rate</text>`, marginL+pw/2, chartH-4)
	b.WriteString(`</g>`)
	// Error bars, line and points.
	var line []string
	for _, p := range c.Points {
		if math.IsNaN(p.Mean) {
			continue
		}
		if p.SD > 0 {
			fmt.Fprintf(&b, `<line class="sd" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#1f5fa8" stroke-width="1"/>`, x(p.Rate), x(p.Rate), y(p.Mean-p.SD), y(p.Mean+p.SD))
		}
		line = append(line, fmt.Sprintf("%.1f,%.1f", x(p.Rate), y(p.Mean)))
	}
	if len(line) > 1 {
		fmt.Fprintf(&b, `<polyline fill="none" stroke="#1f5fa8" stroke-width="2" points="%s"/>`, strings.Join(line, " "))
	}
	for _, p := range c.Points {
		if math.IsNaN(p.Mean) {
			continue
		}
		fmt.Fprintf(&b, `<circle class="point" cx="%.1f" cy="%.1f" r="3.5" fill="#1f5fa8" data-rate="%g" data-mean="%s"><title>rate %g%%: %s</title></circle>`,
			x(p.Rate), y(p.Mean), p.Rate, Num(p.Mean), math.Round(p.Rate*1000)/10, Num(p.Mean))
	}
	b.WriteString(`</svg>`)
	return vugu.HTML(b.String())
}
