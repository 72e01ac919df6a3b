package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/retrieval"
)

// searchFixture writes a 4-document corpus and 2 queries (dim 2) with id
// files into a temporary directory.
func searchFixture(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	corpus := &retrieval.Matrix{Rows: 4, Dim: 2, Data: []float32{
		1, 0, // d0
		0, 1, // d1
		3, 4, // d2: cos with (1,0) 0.6, dot 3
		-1, 0, // d3
	}}
	queries := &retrieval.Matrix{Rows: 2, Dim: 2, Data: []float32{1, 0, 0, 2}}
	for name, m := range map[string]*retrieval.Matrix{"corpus.npy": corpus, "queries.npy": queries} {
		if err := retrieval.WriteNPYFile(filepath.Join(dir, name), m, retrieval.Float32); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs.txt", "D0\nD1\nD2\nD3\n")
	write("queries.txt", "q1\r\nq2\r\n")
	write("three.txt", "a\nb\nc\n")
	write("dup.txt", "a\nb\nc\nb\n")
	write("space.txt", "a\nb c\nd\ne\n")
	return dir
}

func TestSearchWritesTRECRun(t *testing.T) {
	dir := searchFixture(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"cosine with ids", []string{"-corpus-ids", p("docs.txt"), "-query-ids", p("queries.txt"), "-k", "2"},
			"q1 Q0 D0 1 1 dreval\nq1 Q0 D2 2 0.6 dreval\nq2 Q0 D1 1 1 dreval\nq2 Q0 D2 2 0.8 dreval\n"},
		{"dot, row numbers, k > docs", []string{"-score", "dot", "-k", "10", "-tag", "dotrun", "-threads", "1"},
			"0 Q0 2 1 3 dotrun\n0 Q0 0 2 1 dotrun\n0 Q0 1 3 0 dotrun\n0 Q0 3 4 -1 dotrun\n" +
				"1 Q0 2 1 8 dotrun\n1 Q0 1 2 2 dotrun\n1 Q0 3 3 0 dotrun\n1 Q0 0 4 0 dotrun\n"},
	} {
		out := p("run.trec")
		args := append([]string{"search", "-corpus", p("corpus.npy"), "-queries", p("queries.npy"), "-out", out}, tc.args...)
		code, _, errOut := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		got, _ := os.ReadFile(out)
		if string(got) != tc.want {
			t.Errorf("%s: run is\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

// TestSearchScoresRoundTrip checks that printed scores parse back to the
// exact float32 TopK computed.
func TestSearchScoresRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c, q := retrieval.NewMatrix(50, 7), retrieval.NewMatrix(3, 7)
	for i := range c.Data {
		c.Data[i] = float32(i%13)/7 - 0.9
	}
	for i := range q.Data {
		q.Data[i] = float32(i%5)/3 + 0.1
	}
	retrieval.WriteNPYFile(filepath.Join(dir, "c.npy"), c, retrieval.Float32)
	retrieval.WriteNPYFile(filepath.Join(dir, "q.npy"), q, retrieval.Float32)
	code, out, errOut := runCLI(t, "", "search", "-corpus", filepath.Join(dir, "c.npy"), "-queries", filepath.Join(dir, "q.npy"), "-k", "5", "-out", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	hits, err := retrieval.TopK(c, q, retrieval.Options{K: 5})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 15 {
		t.Fatalf("%d lines, want 15:\n%s", len(lines), out)
	}
	for i, line := range lines {
		f := strings.Fields(line)
		h := hits[i/5][i%5]
		v, err := strconv.ParseFloat(f[4], 32)
		if err != nil || float32(v) != h.Score || f[2] != strconv.Itoa(h.Doc) {
			t.Errorf("line %q: want doc %d score %v", line, h.Doc, h.Score)
		}
	}
}

func TestSearchErrors(t *testing.T) {
	dir := searchFixture(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	retrieval.WriteNPYFile(p("dim3.npy"), retrieval.NewMatrix(2, 3), retrieval.Float32)
	retrieval.WriteNPYFile(p("empty.npy"), retrieval.NewMatrix(0, 2), retrieval.Float32)
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"no corpus", []string{"-queries", p("queries.npy"), "-out", "-"}, 2, "-corpus is required"},
		{"no out", []string{"-corpus", p("corpus.npy"), "-queries", p("queries.npy")}, 2, "-out is required"},
		{"bad score", []string{"-corpus", p("corpus.npy"), "-queries", p("queries.npy"), "-out", "-", "-score", "l2"}, 2, `unknown scoring "l2"`},
		{"bad k", []string{"-corpus", p("corpus.npy"), "-queries", p("queries.npy"), "-out", "-", "-k", "0"}, 2, "-k 0"},
		{"id count", []string{"-corpus", p("corpus.npy"), "-corpus-ids", p("three.txt"), "-queries", p("queries.npy"), "-out", "-"}, 1,
			"three.txt has 3 ids but " + p("corpus.npy") + " has 4 rows"},
		{"duplicate id", []string{"-corpus", p("corpus.npy"), "-corpus-ids", p("dup.txt"), "-queries", p("queries.npy"), "-out", "-"}, 1,
			`dup.txt:4: id "b" repeats line 2`},
		{"space in id", []string{"-corpus", p("corpus.npy"), "-corpus-ids", p("space.txt"), "-queries", p("queries.npy"), "-out", "-"}, 1,
			`space.txt:2: id "b c" is empty or contains white space`},
		{"empty corpus", []string{"-corpus", p("empty.npy"), "-queries", p("queries.npy"), "-out", "-"}, 1, "empty.npy: empty corpus"},
		{"dims", []string{"-corpus", p("corpus.npy"), "-queries", p("dim3.npy"), "-out", "-"}, 1, "dim3.npy has 3-dimensional vectors"},
		{"missing file", []string{"-corpus", p("nope.npy"), "-queries", p("queries.npy"), "-out", "-"}, 1, "nope.npy"},
		{"not npy", []string{"-corpus", p("docs.txt"), "-queries", p("queries.npy"), "-out", "-"}, 1, "docs.txt: not a .npy file"},
	} {
		code, _, errOut := runCLI(t, "", append([]string{"search"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.contains) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.name, code, errOut, tc.code, tc.contains)
		}
	}
}
