package ratechart_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/report/ratechart"
	"github.com/dreval/dreval/report/reporttest"
	"github.com/dreval/dreval/results"
)

// fakeResults returns reporttest.Results.
func fakeResults(t *testing.T) (one, two *results.Results) { return reporttest.Results(t) }

func wellFormed(t *testing.T, name string, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", name, err)
		}
	}
}

func TestSVG(t *testing.T) {
	_, two := fakeResults(t)
	for _, ds := range []*results.DatasetResult{two.Datasets[0], nil} {
		svg, err := ratechart.SVG(two, ds, ratechart.Measure)
		if err != nil {
			t.Fatal(err)
		}
		wellFormed(t, "chart", svg)
		for _, want := range []string{"<svg", "fake2", "NDCG@10"} {
			if !bytes.Contains(svg, []byte(want)) {
				t.Errorf("chart lacks %q", want)
			}
		}
	}
}

func TestSVGErrors(t *testing.T) {
	one, two := fakeResults(t)
	if _, err := ratechart.SVG(one, nil, ratechart.Measure); err == nil {
		t.Error("an average chart of one dataset made without error")
	}
	if _, err := ratechart.SVG(two, nil, "no-such-measure"); err == nil {
		t.Error("an average chart of an unknown measure made without error")
	}
}

func TestFiles(t *testing.T) {
	one, two := fakeResults(t)
	tests := []struct {
		res  *results.Results
		want []string
	}{
		{one, []string{"ndcg_vs_rate.svg"}},
		{two, []string{"ndcg_vs_rate.svg", "ndcg_vs_rate_demo.svg", "ndcg_vs_rate_demo-half.svg"}},
		{&results.Results{}, nil},
	}
	for _, tt := range tests {
		files, err := ratechart.Files(tt.res)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != len(tt.want) {
			t.Fatalf("%d charts, want %v", len(files), tt.want)
		}
		for i, f := range files {
			if f.Path != tt.want[i] {
				t.Errorf("chart %d is %s, want %s", i, f.Path, tt.want[i])
			}
			wellFormed(t, f.Path, f.Data)
		}
	}
}

// TestWriteDirWithCharts writes the output directory as dreval eval does:
// the charts are files of their own.
func TestWriteDirWithCharts(t *testing.T) {
	_, two := fakeResults(t)
	charts, err := ratechart.Files(two)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := report.WriteDir(dir, two, report.Extras{Charts: charts}); err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		b, err := os.ReadFile(filepath.Join(dir, c.Path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, c.Data) {
			t.Errorf("%s differs from the chart given", c.Path)
		}
	}
}
