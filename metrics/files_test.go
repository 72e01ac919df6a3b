package metrics

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

// TestFiles reads testdata files as the CLI does (*os.File): TREC and BEIR
// qrels give the same judgments, and an ungrouped run, re-read through the
// seek fallback, gives exactly the values of the grouped one.
func TestFiles(t *testing.T) {
	open := func(name string) *os.File {
		f, err := os.Open("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	trec, err := ReadQrels(open("graded.qrels"), "graded.qrels")
	if err != nil {
		t.Fatal(err)
	}
	beir, err := ReadQrels(open("graded.tsv"), "graded.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for q, docs := range trec {
		for d, r := range docs {
			if v, ok := beir[q][d]; !ok || v != r {
				t.Errorf("BEIR %s %s = %d, TREC %d", q, d, v, r)
			}
		}
	}
	ms, _ := ParseMeasures([]string{"all_trec"}, ConventionTREC)
	var results []*Result
	for _, name := range []string{"grouped.run", "ungrouped.run"} {
		res, err := EvaluateReader(trec, open(name), name, ms, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		results = append(results, res)
	}
	g, u := results[0], results[1]
	if !slices.Equal(g.All, u.All) || !slices.Equal(g.Queries, u.Queries) {
		t.Errorf("ungrouped run: all %v, grouped %v", u.All, g.All)
	}
	for _, q := range g.Queries {
		if !slices.Equal(g.PerQuery[q], u.PerQuery[q]) {
			t.Errorf("query %s: ungrouped %v, grouped %v", q, u.PerQuery[q], g.PerQuery[q])
		}
	}
	if g.RunTag != "g" || u.RunTag != "u" {
		t.Errorf("run tags %q %q", g.RunTag, u.RunTag)
	}
	// q1: d4 (-1), d1 (2), then d9 and d3 tied at 0.7 with d9 first:
	// relevant at ranks 2 and 4 of R = 2, so map = (1/2 + 2/4) / 2.
	if v, _ := g.Value("q1", "map"); v != (0.5+0.5)/2 {
		t.Errorf("q1 map = %v, want 0.5", v)
	}
	// q3 has only a non-relevant judgment: kept under trec, scoring 0.
	if v, ok := g.Value("q3", "map"); !ok || v != 0 {
		t.Errorf("q3 map = %v (%v), want 0, kept", v, ok)
	}
}

// TestReadQrelsTRECEval reads trec_eval's own test qrels (TREC form).
func TestReadQrelsTRECEval(t *testing.T) {
	p := sharedtest.Path(t, "testdata/trec_eval/qrels.test")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	q, err := ReadQrels(f, "qrels.test")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	queries := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		lines++
		queries[strings.Fields(l)[0]] = true
	}
	n := 0
	for _, docs := range q {
		n += len(docs)
	}
	if n != lines || len(q) != len(queries) {
		t.Errorf("read %d judgments of %d queries; the file has %d lines and %d query ids", n, len(q), lines, len(queries))
	}
	// Every line's grade must round-trip.
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(l)
		if got := q[f[0]][f[2]]; strconv.Itoa(got) != f[3] {
			t.Fatalf("line %q: read grade %d", l, got)
		}
	}
}
