package ui

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/report/reporttest"
	"github.com/dreval/dreval/results"
	"github.com/vugu/vugu"
	"github.com/vugu/vugu/staticrender"
)

// staticRender renders c with vugu's static renderer, which parses every
// inner HTML with an HTML5 parser: what Render must write, byte for byte.
func staticRender(c vugu.Builder) (string, error) {
	var buf bytes.Buffer
	r := staticrender.New(&buf)
	env, err := vugu.NewBuildEnv(r.EventEnv())
	if err != nil {
		return "", err
	}
	if err := r.Render(env.RunBuild(c)); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// hostile holds text that an HTML parser rewrites: markup, character
// references, line ends, NUL, a leading newline (which <pre> treats
// specially), invalid UTF-8.
var hostile = []string{
	"",
	"plain",
	`<script>alert("x")</script> & <b onclick='y'>&amp;&lt;&#39;`,
	"\nleading newline\r\nCRLF\rCR\n",
	"\n\nno\x00NUL\x00",
	"\x00",
	"bad \xff\xfe utf-8 \u00a0 &nbsp; &#x41;",
}

// hostileTable is a report table whose every text is s.
func hostileTable(s string) *ReportTable {
	return &ReportTable{Table: &report.Table{
		Name:    s,
		Title:   s,
		Caption: s,
		Header:  []string{s, "Rate", "NDCG@10"},
		Rows: [][]report.Cell{
			{report.TextCell(s), report.TextCell("clean"), report.NumCell(0.5)},
			{report.TextCell("m2"), report.TextCell(s), report.StatCell(results.Stat{Mean: 0.25, SD: 0.125, N: 3})},
		},
		Groups: map[int]bool{0: true, 1: true},
	}}
}

// hostileMetrics is a metrics view whose run name and text are s.
func hostileMetrics(t testing.TB, s string) *MetricsView {
	metricsOnce.Do(func() {
		qrels := metrics.Qrels{"q1": {"d1": 1}, "q2": {"d2": 1}}
		run := metrics.Run{"q1": {{DocID: "d1", Score: 2}, {DocID: "d3", Score: 1}}}
		// One measure keeps the fuzzer fast (1,000 inputs a second).
		metricsRes, metricsErr = metrics.Evaluate(qrels, run, metrics.DefaultMeasures(metrics.ConventionTREC)[:1], metrics.Options{Convention: metrics.ConventionTREC, RelLevel: 1})
	})
	if metricsErr != nil {
		t.Fatal(metricsErr)
	}
	return NewMetricsView(s, metricsRes, s)
}

var (
	metricsOnce sync.Once
	metricsRes  *metrics.Result
	metricsErr  error
)

// TestRenderMatchesStaticRender checks that Render writes every component
// of the page and report.html as vugu's static renderer does.
func TestRenderMatchesStaticRender(t *testing.T) {
	_, two := reporttest.Results(t)
	fake := fakeResults(t)
	views := map[string]vugu.Builder{}
	add := func(name string, c vugu.Builder, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		views[name] = c
	}
	page, err := NewReportPage(two)
	add("report page", page, err)
	fakePage, err := NewReportPage(fake)
	add("report page (fake model)", fakePage, err)
	add("reproduction", NewReproduction(two, report.ReproductionOptions{Command: "dreval reproduce <x>", DropRates: []float64{0.05}}), nil)
	for _, rate := range []float64{0.1, 0.5} {
		rt, err := NewResultsTable(fake, Selection{Rate: rate})
		add("results table", rt, err)
		rt, err = NewResultsTable(fake, Selection{Rate: rate, AllConventions: true})
		add("results table, all conventions", rt, err)
		ch, err := NewRateChart(fake, Selection{Rate: rate}, ChartMeasure)
		add("rate chart", ch, err)
		in, err := NewInspector(fake, Selection{Rate: rate})
		add("inspector", in, err)
	}
	for i, s := range hostile {
		views["report table "+string(rune('a'+i))] = hostileTable(s)
		views["metrics view "+string(rune('a'+i))] = hostileMetrics(t, s)
	}
	for name, c := range views {
		want, err := staticRender(c)
		if err != nil {
			t.Fatalf("%s: vugu's static renderer: %v", name, err)
		}
		got, err := Render(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: Render differs from vugu's static renderer at byte %d:\n got %q\nwant %q", name, i,
				got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
		}
	}
	if len(views) < 20 {
		t.Fatalf("%d views compared", len(views))
	}
}

// FuzzRenderText checks that any text in the components' tables, captions,
// titles and <pre> is written as vugu's static renderer writes it.
func FuzzRenderText(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Small components, to run 1,000 inputs a second on a loaded
		// machine: every place text goes (caption, header, cell,
		// attribute, <pre>, <summary>-like text) once.
		table := &ReportTable{Table: &report.Table{Name: s, Title: s, Caption: s, Header: []string{s},
			Rows: [][]report.Cell{{report.TextCell(s)}}}}
		for _, c := range []vugu.Builder{table, hostileMetrics(t, s)} {
			want, werr := staticRender(c)
			got, err := Render(c)
			if (err != nil) != (werr != nil) {
				t.Fatalf("%q: error %v, vugu's static renderer %v", s, err, werr)
			}
			if got != want {
				t.Fatalf("%q: Render\n%q\nvugu's static renderer\n%q", s, got, want)
			}
		}
	})
}

func TestRenderRefusesWhatItCannotWrite(t *testing.T) {
	for _, c := range []struct{ parent, inner, want string }{
		{"td", "a &copy; b", "character reference"},
		{"style", "x", "raw text"},
	} {
		_, err := inner(c.parent, c.inner)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("inner(%q, %q): error %v, want one saying %q", c.parent, c.inner, err, c.want)
		}
	}
}
