package metrics

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

// These tests check dreval against trec_eval's own test files in
// ../shared/testdata/trec_eval: 12-decimal outputs of trec_eval 9.0.8 for
// the measures in measures.txt, and the official 4-decimal outputs.

func readQrelsFile(t *testing.T, path string) Qrels {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	q, err := ReadQrels(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func evaluateFile(t *testing.T, qrels Qrels, runPath string, ms []Measure, opts Options) *Result {
	t.Helper()
	f, err := os.Open(runPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := EvaluateReader(qrels, f, runPath, ms, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// measuresTxt returns the -m arguments of measures.txt.
func measuresTxt(t *testing.T, dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, "measures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var specs []string
	fields := strings.Fields(string(b))
	for i := 0; i < len(fields); i++ {
		if fields[i] == "-m" && i+1 < len(fields) {
			specs = append(specs, fields[i+1])
			i++
		}
	}
	if len(specs) == 0 {
		t.Fatal("measures.txt holds no -m arguments")
	}
	return specs
}

type refLine struct {
	measure, qid, value string
}

func readRefLines(t *testing.T, path string) []refLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []refLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			t.Fatalf("%s: line %q: expected 3 tab-separated fields", path, sc.Text())
		}
		out = append(out, refLine{strings.TrimSpace(f[0]), f[1], f[2]})
	}
	return out
}

func TestConformance12Decimals(t *testing.T) {
	dir := sharedtest.Path(t, "testdata/trec_eval")
	specs := measuresTxt(t, dir)
	ms, err := ParseMeasures(specs, ConventionTREC)
	if err != nil {
		t.Fatalf("measures.txt: %v", err)
	}
	cases := []struct {
		qrels, ref string
		level      int
	}{
		{"qrels.test", "qrels.test__results.test__v908.12dp.txt", 1},
		{"qrels.rel_level", "qrels.rel_level__results.test__v908.12dp.txt", 1},
		{"qrels.rel_level", "qrels.rel_level_l2__results.test__v908.12dp.txt", 2},
	}
	for _, c := range cases {
		t.Run(c.ref, func(t *testing.T) {
			qrels := readQrelsFile(t, filepath.Join(dir, c.qrels))
			res := evaluateFile(t, qrels, filepath.Join(dir, "results.test"), ms, Options{RelLevel: c.level})
			ref := readRefLines(t, filepath.Join(dir, c.ref))
			seen := map[string]bool{}
			for _, l := range ref {
				want, err := strconv.ParseFloat(l.value, 64)
				if err != nil {
					t.Fatalf("reference %v: %v", l, err)
				}
				var got float64
				var ok bool
				if l.qid == "all" {
					got, ok = res.Mean(l.measure)
				} else {
					got, ok = res.Value(l.qid, l.measure)
				}
				if !ok {
					t.Errorf("%s %s: not computed", l.measure, l.qid)
					continue
				}
				seen[l.measure+"\t"+l.qid] = true
				if math.Abs(got-want) > 1e-9 {
					t.Errorf("%s %s = %.12f, trec_eval %s", l.measure, l.qid, got, l.value)
				}
			}
			// Every value dreval prints must have been checked.
			var buf bytes.Buffer
			if err := WriteTREC(&buf, res, true); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				f := strings.Split(line, "\t")
				if !seen[strings.TrimSpace(f[0])+"\t"+f[1]] {
					t.Errorf("dreval prints %q, absent from the reference", line)
				}
				n++
			}
			if n != len(ref) {
				t.Errorf("dreval prints %d lines, reference has %d", n, len(ref))
			}
		})
	}
}

// implementedLines returns the lines of a trec_eval output file whose
// measure dreval implements under trec.
func implementedLines(t *testing.T, path string) []string {
	var out []string
	for _, l := range readRefLines(t, path) {
		if _, err := ParseMeasures([]string{l.measure}, ConventionTREC); err == nil {
			out = append(out, padRight(l.measure, 22)+"\t"+l.qid+"\t"+l.value)
		}
	}
	return out
}

func TestConformanceOfficialOutputs(t *testing.T) {
	dir := sharedtest.Path(t, "testdata/trec_eval")
	all := []string{"all_trec"}
	cases := []struct {
		file       string
		qrels, run string
		measures   []string // nil: the default set
		opts       Options
		perQuery   bool
		minLines   int
	}{
		// trec_eval qrels.test results.test
		{"out.test", "qrels.test", "results.test", nil, Options{}, false, 16},
		// trec_eval -q -m P.3,5,7 -m recall.20,2000 -m ndcg_cut.10,20,23 -m success.2,5,20 ...
		{"out.test.meas_params", "qrels.test", "results.test", []string{"P.3,5,7", "recall.20,2000", "ndcg_cut.10,20,23", "success.2,5,20"}, Options{}, true, 44},
		// trec_eval -m all_trec
		{"out.test.a", "qrels.test", "results.test", all, Options{}, false, 47},
		// trec_eval -m all_trec -q
		{"out.test.aq", "qrels.test", "results.test", all, Options{}, true, 3*46 + 47},
		// trec_eval -m all_trec -q -c on results.trunc (query 302 missing)
		{"out.test.aqc", "qrels.test", "results.trunc", all, Options{Complete: true}, true, 3*46 + 47},
		// trec_eval -m all_trec -q -l2 on graded qrels
		{"out.test.aql", "qrels.rel_level", "results.test", all, Options{RelLevel: 2}, true, 3*46 + 47},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			qrels := readQrelsFile(t, filepath.Join(dir, c.qrels))
			want := implementedLines(t, filepath.Join(dir, c.file))
			if len(want) < c.minLines {
				t.Fatalf("only %d implemented lines in %s, expected at least %d", len(want), c.file, c.minLines)
			}
			ms := DefaultMeasures(ConventionTREC)
			if c.measures != nil {
				var err error
				if ms, err = ParseMeasures(c.measures, ConventionTREC); err != nil {
					t.Fatal(err)
				}
			}
			res := evaluateFile(t, qrels, filepath.Join(dir, c.run), ms, c.opts)
			var buf bytes.Buffer
			if err := WriteTREC(&buf, res, c.perQuery); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("output differs from %s\ngot:\n%s\nwant:\n%s", c.file, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
