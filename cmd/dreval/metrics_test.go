package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

const (
	exampleQrels = "testdata/example.qrels"
	exampleRun   = "testdata/example.run"
)

// TestMetricsExample runs what "make run" runs. The values of q1 are
// worked out by hand: its list by score is d01 (grade 2), d05, d02 (1),
// d09, then d07 (1) and d03 (0) tied at 8.5 with d07 first (docid
// descending); R = 3.
func TestMetricsExample(t *testing.T) {
	code, out, errOut := runCLI(t, "", "metrics", "-qrels", exampleQrels, "-run", exampleRun, "-m", "map,ndcg_cut.10,P.5,recip_rank", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	l2 := math.Log2
	want := map[string]float64{
		"map\tq1":         (1 + 2.0/3 + 3.0/5) / 3,
		"P_5\tq1":         3.0 / 5,
		"recip_rank\tq1":  1,
		"ndcg_cut_10\tq1": (2 + 1/l2(4) + 1/l2(6)) / (2 + 1/l2(3) + 1/l2(4)),
		"recip_rank\tq2":  1.0 / 3, // d09 (-1), d05 (0), d04 (1)
		"P_5\tall":        (0.6 + 0.2 + 0.6 + 0 + 0) / 5,
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || len(f[0]) != 22 {
			t.Fatalf("line %q is not trec_eval's %%-22s\\t%%s\\t%%6.4f", line)
		}
		got[strings.TrimSpace(f[0])+"\t"+f[1]] = f[2]
	}
	for k, v := range want {
		if got[k] != strconv.FormatFloat(v, 'f', 4, 64) {
			t.Errorf("%s = %q, want %.4f", k, got[k], v)
		}
	}
	if len(got) != 4*5+4 {
		t.Errorf("%d lines, want 4 measures x 5 queries + 4 summaries", len(got))
	}
	// q6 is in the run but not in the qrels: ignored, and said so.
	if !strings.Contains(errOut, "1 run queries are not in the qrels") || !strings.Contains(errOut, "q6") {
		t.Errorf("stderr does not mention the ignored query: %q", errOut)
	}
}

func TestMetricsFormats(t *testing.T) {
	code, out, errOut := runCLI(t, "", "metrics", "-qrels", exampleQrels, "-run", exampleRun, "-m", "map", "-m", "P.5,10", "-q", "-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var j struct {
		Measures []string
		NumQ     int `json:"num_q"`
		All      map[string]float64
		PerQuery map[string]map[string]float64 `json:"per_query"`
		Ignored  []string
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Join(j.Measures, " ") != "map P_5 P_10" || j.NumQ != 5 || len(j.PerQuery) != 5 || len(j.Ignored) != 1 {
		t.Errorf("json: %+v", j)
	}
	sum := 0.0
	for _, v := range j.PerQuery {
		sum += v["map"]
	}
	if j.All["map"] != sum/5 {
		t.Errorf("json all map %v, mean of per-query %v (full precision expected)", j.All["map"], sum/5)
	}
	code, out, _ = runCLI(t, "", "metrics", "-qrels", exampleQrels, "-run", exampleRun, "-m", "map", "-format", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) != 2 || strings.Join(rows[0], ",") != "query,measure,value" || rows[1][0] != "all" {
		t.Fatalf("csv: exit %d, %v, %q", code, err, out)
	}
	if v, err := strconv.ParseFloat(rows[1][2], 64); err != nil || v != j.All["map"] {
		t.Errorf("csv map %q, json %v", rows[1][2], j.All["map"])
	}
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMetricsErrors(t *testing.T) {
	badRun := writeTemp(t, "bad.run", "q1 Q0 d01 1 1.5 x\nq1 Q0 d02 2 NaN x\n")
	dupRun := writeTemp(t, "dup.run", "q1 Q0 d01 1 1.5 x\nq1 Q0 d01 2 1.0 x\n")
	empty := writeTemp(t, "empty.run", "")
	headerless := writeTemp(t, "beir.tsv", "q1\td01\t1\n")
	beir := writeTemp(t, "beir-ok.tsv", "query-id\tcorpus-id\tscore\nq1\td01\t1\n")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no qrels", []string{"-run", exampleRun}, 2, "-qrels FILE is required"},
		{"no run", []string{"-qrels", exampleQrels}, 2, "-run FILE is required"},
		{"bad convention", []string{"-qrels", exampleQrels, "-run", exampleRun, "-convention", "msmarco"}, 2, "unknown convention"},
		{"bad measure", []string{"-qrels", exampleQrels, "-run", exampleRun, "-m", "bpref"}, 2, `unknown measure "bpref"`},
		{"st measure under trec", []string{"-qrels", exampleQrels, "-run", exampleRun, "-m", "ndcg@10"}, 2, "ndcg_cut.10"},
		{"bad level", []string{"-qrels", exampleQrels, "-run", exampleRun, "-l", "0"}, 2, "expected 1 or more"},
		{"bad format", []string{"-qrels", exampleQrels, "-run", exampleRun, "-format", "xml"}, 2, "-format"},
		{"stray argument", []string{"-qrels", exampleQrels, "-run", exampleRun, "extra"}, 2, "unexpected argument"},
		{"NaN score", []string{"-qrels", exampleQrels, "-run", badRun}, 1, badRun + ":2: score \"NaN\": expected a finite number"},
		{"duplicate pair", []string{"-qrels", exampleQrels, "-run", dupRun}, 1, dupRun + ":2: document \"d01\" listed twice"},
		{"empty run", []string{"-qrels", exampleQrels, "-run", empty}, 1, empty + ": empty run"},
		{"missing file", []string{"-qrels", exampleQrels, "-run", "does-not-exist.run"}, 1, "does-not-exist.run"},
		{"beir header missing, forced", []string{"-qrels", headerless, "-qrels-format", "beir", "-run", exampleRun}, 1, headerless + ":1: BEIR qrels must start with the header"},
		{"beir read as trec", []string{"-qrels", beir, "-qrels-format", "trec", "-run", exampleRun}, 1, beir + ":1: found the BEIR header"},
		{"qrels as run", []string{"-qrels", exampleQrels, "-run", exampleQrels}, 1, exampleQrels + ":1: 4 fields: expected 6"},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, "", append([]string{"metrics"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.name, code, errOut, c.code, c.want)
		}
		if out != "" {
			t.Errorf("%s: printed %q on stdout despite the error", c.name, out)
		}
	}
}

func TestMetricsBEIRQrels(t *testing.T) {
	beir := writeTemp(t, "qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td01\t1\nq1\tq1\t1\n")
	run := writeTemp(t, "r.run", "q1 Q0 q1 1 2.0 x\nq1 Q0 d01 2 1.0 x\n")
	for _, c := range []struct {
		conv, want string
	}{
		{"trec", "recip_rank            \tall\t1.0000\n"}, // q1 itself is judged relevant and first
		{"beir", "recip_rank            \tall\t1.0000\n"}, // removed; d01 is first
	} {
		code, out, errOut := runCLI(t, "", "metrics", "-qrels", beir, "-run", run, "-m", "recip_rank,num_ret", "-convention", c.conv)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, %q %q", c.conv, code, out, errOut)
		}
		wantRet := map[string]string{"trec": "2", "beir": "1"}[c.conv]
		if !strings.Contains(out, "num_ret               \tall\t"+wantRet+"\n") {
			t.Errorf("%s: num_ret should be %s:\n%s", c.conv, wantRet, out)
		}
	}
}

// beirForm writes TREC qrels ("qid iter docid rel" lines) as a BEIR qrels
// file: a byte order mark and the header line when header is set, then
// tab-separated lines with CRLF ends.
func beirForm(t *testing.T, trec string, header bool) string {
	t.Helper()
	var b strings.Builder
	if header {
		b.WriteString("\ufeffquery-id\tcorpus-id\tscore\r\n")
	}
	for _, line := range strings.Split(strings.TrimSpace(trec), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf("TREC qrels line %q", line)
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\r\n", f[0], f[2], f[3])
	}
	return b.String()
}

// TestMetricsBEIRQrelsForms: the judgments of example.qrels written as a
// BEIR file with a byte order mark and its header, or without the header,
// give exactly the numbers of the TREC form, per query and in every
// output format.
func TestMetricsBEIRQrelsForms(t *testing.T) {
	trec, err := os.ReadFile(exampleQrels)
	if err != nil {
		t.Fatal(err)
	}
	forms := map[string]string{
		"bom and header": writeTemp(t, "bom.tsv", beirForm(t, string(trec), true)),
		"no header":      writeTemp(t, "plain.tsv", beirForm(t, string(trec), false)),
	}
	for _, format := range []string{"text", "json", "csv"} {
		args := []string{"-run", exampleRun, "-m", "all_trec", "-q", "-c", "-format", format}
		code, want, errOut := runCLI(t, "", append([]string{"metrics", "-qrels", exampleQrels}, args...)...)
		if code != 0 {
			t.Fatalf("TREC qrels, %s: exit %d: %s", format, code, errOut)
		}
		for name, path := range forms {
			code, got, errOut := runCLI(t, "", append([]string{"metrics", "-qrels", path}, args...)...)
			if code != 0 || got != want {
				t.Errorf("BEIR qrels (%s), %s: exit %d, %s\ngot:\n%s\nwant (TREC form):\n%s", name, format, code, errOut, got, want)
			}
		}
	}
}

// TestMetricsLikeTrecEval checks that the CLI prints, for the measures it
// implements, exactly the lines trec_eval printed in its own test output.
func TestMetricsLikeTrecEval(t *testing.T) {
	dir := sharedtest.Path(t, "testdata/trec_eval")
	code, out, errOut := runCLI(t, "", "metrics", "-qrels", filepath.Join(dir, "qrels.test"), "-run", filepath.Join(dir, "results.test"),
		"-q", "-m", "P.3,5,7", "-m", "recall.20,2000", "-m", "ndcg_cut.10,20,23", "-m", "success.2,5,20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	ref, err := os.ReadFile(filepath.Join(dir, "out.test.meas_params"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(string(ref)), "\n") {
		name := strings.TrimSpace(strings.SplitN(line, "\t", 2)[0])
		for _, p := range []string{"P_", "recall_", "ndcg_cut_", "success_"} {
			if strings.HasPrefix(name, p) {
				want = append(want, line)
			}
		}
	}
	if got := strings.TrimSpace(out); got != strings.Join(want, "\n") {
		t.Errorf("output differs from trec_eval's out.test.meas_params\ngot:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func TestCompare(t *testing.T) {
	runB := writeTemp(t, "b.run", "q1 Q0 d02 1 9 x\nq1 Q0 d01 2 8 x\nq2 Q0 d04 1 5 x\nq3 Q0 d06 1 1 x\nq3 Q0 d10 2 0.5 x\nq4 Q0 d03 1 1 x\nq5 Q0 d01 1 1 x\n")
	code, out, errOut := runCLI(t, "", "compare", "-qrels", exampleQrels, exampleRun, runB, "-m", "map,P.5", "-permutations", "500", "-seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"measure", "mean A", "mean B", "diff", "95% CI", "p rand", "p t-test", "map", "P_5",
		"500 sign-flip permutations", "10000 resamples", "seed 3", "5 paired queries"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, "", "compare", "-format", "json", "-qrels", exampleQrels, "-m", "recip_rank", exampleRun, runB)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errOut)
	}
	var j struct {
		Queries, Permutations int
		Rows                  []struct {
			Measure string
			MeanA   float64 `json:"mean_a"`
		}
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || j.Queries != 5 || j.Permutations != 10000 || len(j.Rows) != 1 || j.Rows[0].Measure != "recip_rank" {
		t.Errorf("json %v: %s", err, out)
	}
	code, _, errOut = runCLI(t, "", "compare", "-qrels", exampleQrels, exampleRun)
	if code != 2 || !strings.Contains(errOut, "expected two runs") {
		t.Errorf("one run: exit %d %q", code, errOut)
	}
}
