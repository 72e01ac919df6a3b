package dataset

import (
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

func TestReadQrels(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Qrels
	}{
		{"beir with header", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\nq2\td1\t2\n",
			Qrels{"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2}}},
		{"beir without header, CRLF, BOM", "\ufeffq1\td1\t1\r\nq1\td2\t-1\r\n",
			Qrels{"q1": {"d1": 1, "d2": -1}}},
		{"trec", "301 0 FBIS3-10082 1\n301 0 FBIS3-10169 0\n302 Q0 D 2\n",
			Qrels{"301": {"FBIS3-10082": 1, "FBIS3-10169": 0}, "302": {"D": 2}}},
		{"trec tabs", "1\t0\td\t3\n", Qrels{"1": {"d": 3}}},
		{"blank lines", "\nq\td\t1\n\n", Qrels{"q": {"d": 1}}},
		{"empty", "", Qrels{}},
		{"header only", "query-id\tcorpus-id\tscore\n", Qrels{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadQrels(strings.NewReader(tt.in), "qrels")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReadQrelsErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"float score", "q\td\t1.0\n", `test.tsv:1: score "1.0" is not an integer`},
		{"header later", "q\td\t1\nquery-id\tcorpus-id\tscore\n", `test.tsv:2: score "score" is not an integer`},
		{"two fields", "q\td\n", `test.tsv:1: got 2 fields, want 3`},
		{"mixed forms", "q\td\t1\nq 0 e 1\n", `test.tsv:2: got 4 fields, want 3 (query-id corpus-id score) like the lines before`},
		{"trec rel", "1 0 d x1\n", `test.tsv:1: rel "x1" is not an integer`},
		{"duplicate", "q\td\t1\nq\te\t1\nq\td\t1\n", `test.tsv:3: query "q" doc "d" is judged twice`},
		{"empty doc", "q\t\t1\n", `test.tsv:1: empty doc id`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadQrels(strings.NewReader(tt.in), "test.tsv")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %v, want prefix %q", err, tt.want)
			}
		})
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

func FuzzReadQrels(f *testing.F) {
	f.Add("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
	f.Add("301 0 FBIS3-10082 1\n")
	f.Add("q\td\t-1\r\nq\td\t2\n")
	f.Fuzz(func(t *testing.T, in string) {
		q, err := ReadQrels(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		// Written back in the BEIR form, the qrels read as themselves.
		var b strings.Builder
		b.WriteString("query-id\tcorpus-id\tscore\n")
		for qid, docs := range q {
			if qid == "" || strings.ContainsAny(qid, "\t\n") {
				t.Fatalf("bad query id %q", qid)
			}
			for did, g := range docs {
				if did == "" || strings.ContainsAny(did, "\t\n") {
					t.Fatalf("bad doc id %q", did)
				}
				fmt.Fprintf(&b, "%s\t%s\t%d\n", qid, did, g)
			}
		}
		again, err := ReadQrels(strings.NewReader(b.String()), "again")
		if err != nil || !reflect.DeepEqual(again, q) {
			t.Fatalf("round trip: %v, %v != %v", err, again, q)
		}
	})
}
