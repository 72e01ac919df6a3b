package ui

import (
	"encoding/xml"
	"html"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/report/reporttest"
	"github.com/dreval/dreval/results"
)

func TestReportTableEscapes(t *testing.T) {
	const hostile = `<script>alert("x")</script> & <b onclick='y'>`
	tab := &report.Table{
		Name:    `n" onmouseover="z`,
		Title:   "T <i>" + hostile,
		Caption: "C " + hostile,
		Header:  []string{"Model " + hostile, "Rate", "NDCG@10"},
		Rows: [][]report.Cell{
			{report.TextCell(hostile), report.TextCell("clean"), report.NumCell(0.5)},
			{report.TextCell("m2"), report.TextCell("5%"), report.StatCell(results.Stat{Mean: 0.25, SD: 0.125, N: 3})},
		},
		Groups: map[int]bool{0: true, 1: true},
	}
	got, err := Render(&ReportTable{Table: tab})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "<b ", "<i>", `" onmouseover`, "onclick='"} {
		if strings.Contains(got, bad) {
			t.Errorf("the table holds %q unescaped:\n%s", bad, got)
		}
	}
	tests := []struct{ what, want string }{
		{"cell", `<td>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;b onclick=&#39;y&#39;&gt;</td>`},
		{"header", `<th scope="col">Model &lt;script&gt;`},
		{"attribute", `data-name="n&#34; onmouseover=&#34;z"`},
		{"caption", `<caption><strong>T &lt;i&gt;&lt;script&gt;`},
		{"number cell", `<td class="n">0.5000</td>`},
		{"mean ± sd cell", `<td class="n">0.2500 ± 0.1250</td>`},
	}
	for _, tt := range tests {
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: the table lacks %s:\n%s", tt.what, tt.want, got)
		}
	}
	if !regexp.MustCompile(`<tr class="g">\s*<td>m2</td>`).MatchString(got) {
		t.Errorf("a new group, not the first row: the table lacks a row of class g:\n%s", got)
	}
	if strings.Count(got, `class="g"`) != 1 {
		t.Errorf("the first row is marked as a group start:\n%s", got)
	}
}

var (
	tableRe = regexp.MustCompile(`(?s)<table class="report-table" data-name="([^"]*)">.*?</table>`)
	rowRe   = regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`)
	cellRe  = regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`)
)

// TestReproductionView checks that the page's reproduction shows the
// tables of report.ReproductionTables cell for cell, and the findings.
func TestReproductionView(t *testing.T) {
	_, two := reporttest.Results(t)
	o := report.ReproductionOptions{Command: "dreval reproduce <x>", DropRates: []float64{0.05}}
	got, err := Render(NewReproduction(two, o))
	if err != nil {
		t.Fatal(err)
	}
	want := report.ReproductionTables(two, o.DropRates)
	found := tableRe.FindAllStringSubmatch(got, -1)
	if len(found) != len(want) {
		t.Fatalf("%d tables, want %d", len(found), len(want))
	}
	for i, m := range found {
		w := want[i]
		if m[1] != w.Name {
			t.Errorf("table %d is %q, want %q", i, m[1], w.Name)
		}
		rows := rowRe.FindAllStringSubmatch(m[0], -1)
		if len(rows) != 1+len(w.Rows) {
			t.Fatalf("table %s has %d rows, want %d", w.Name, len(rows), 1+len(w.Rows))
		}
		for r, row := range rows[1:] {
			cells := cellRe.FindAllStringSubmatch(row[1], -1)
			if len(cells) != len(w.Rows[r]) {
				t.Fatalf("table %s row %d has %d cells, want %d", w.Name, r, len(cells), len(w.Rows[r]))
			}
			for c, cell := range cells {
				if s := html.UnescapeString(cell[1]); s != w.Rows[r][c].String() {
					t.Errorf("table %s row %d cell %d: %q, want %q", w.Name, r, c, s, w.Rows[r][c].String())
				}
			}
		}
	}
	if !strings.Contains(got, "Table 3: ") || !strings.Contains(got, "Tables 5-7: demo-half") {
		t.Error("the tables lack the study's titles")
	}
	var listed []string
	for _, m := range regexp.MustCompile(`<li>(.*?)</li>`).FindAllStringSubmatch(got, -1) {
		listed = append(listed, html.UnescapeString(m[1]))
	}
	if fs := report.Findings(two); strings.Join(listed, "\n") != strings.Join(fs, "\n") {
		t.Errorf("findings listed:\n%s\nwant:\n%s", strings.Join(listed, "\n"), strings.Join(fs, "\n"))
	}
	if !strings.Contains(got, "<code>dreval reproduce &lt;x&gt;</code>") {
		t.Error("the command is not shown, or not escaped")
	}
	if !strings.Contains(got, "Same perturbed queries as fake") || !strings.Contains(got, "[CLS]") {
		t.Error("the decoded examples are missing")
	}
}

// TestReportPageShowsThePagesViews is the promise of one renderer:
// report.html holds, byte for byte, the results table the browser app
// shows for every dataset, model and rate, the reproduction's tables, and
// the rate chart; so neither can change how a number reads alone.
func TestReportPageShowsThePagesViews(t *testing.T) {
	_, two := reporttest.Results(t)
	b, err := ReportHTML(two)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	n := 0
	for d, ds := range two.Datasets {
		for m, mr := range ds.Models {
			for _, rs := range mr.Rates {
				view, err := NewResultsTable(two, Selection{Dataset: d, Model: m, Rate: rs.Rate, AllConventions: true})
				if err != nil {
					t.Fatal(err)
				}
				h, err := Render(view)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(page, h) {
					t.Errorf("report.html lacks the page's table of %s/%s at %v", ds.Name, mr.Model, rs.Rate)
				}
				n++
			}
		}
	}
	if n != 2*2*2 {
		t.Errorf("%d results tables checked, want 8", n)
	}
	for _, tab := range report.ReproductionTables(two, nil) {
		h, err := Render(&ReportTable{Table: tab})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(page, h) && !strings.Contains(page, strings.Replace(h, "Tables 5-7: ", "", 1)) &&
			!strings.Contains(page, strings.NewReplacer("Table 3: ", "", "Table 2: ", "").Replace(h)) {
			t.Errorf("report.html lacks the reproduction's table %s", tab.Name)
		}
	}
	charts, err := DatasetCharts(two, ChartMeasure)
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 3 { // two datasets and their average
		t.Fatalf("%d charts, want 3", len(charts))
	}
	for _, c := range charts {
		h, err := Render(c)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(page, h) {
			t.Errorf("report.html lacks the chart of %s", c.Title)
		}
	}
	for _, bad := range []string{"<script", `src="http`, `href="http`, "<?xml"} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html contains %q: it must be self-contained", bad)
		}
	}
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, "<style>") || !strings.Contains(page, "perturbed 20%") {
		t.Error("report.html lacks its document, style sheet or tables")
	}
}

// TestRateChartMarkup checks the chart is well-formed SVG with one line
// and one legend entry per model, and marks the selected rate.
func TestRateChartMarkup(t *testing.T) {
	_, two := reporttest.Results(t)
	charts, err := DatasetCharts(two, ChartMeasure)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Render(charts[0])
	if err != nil {
		t.Fatal(err)
	}
	svg := h[strings.Index(h, "<svg") : strings.Index(h, "</svg>")+len("</svg>")]
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the chart is not well-formed XML: %v\n%s", err, svg)
		}
	}
	if !strings.Contains(svg, `viewBox="0 0 480 260"`) {
		t.Errorf("the viewBox lost its case: %.120s", svg)
	}
	if got := strings.Count(svg, `<polyline class="series"`); got != 2 {
		t.Errorf("%d lines, want one per model (2)", got)
	}
	if got := strings.Count(svg, `class="legend"`); got != 2 {
		t.Errorf("%d legend entries, want 2", got)
	}
	if pts := points(h); len(pts) != 2*3 {
		t.Errorf("%d points, want 6", len(pts))
	}
	page, err := NewRateChart(two, Selection{Rate: 0.2}, ChartMeasure)
	if err != nil {
		t.Fatal(err)
	}
	ph, err := Render(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ph, `class="mark"`) || !strings.Contains(ph, "the rate shown, 20%") {
		t.Errorf("the selected rate is not marked:\n%s", ph)
	}
	if strings.Contains(h, `class="mark"`) {
		t.Error("report.html's chart marks a rate")
	}
}
