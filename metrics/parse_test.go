package metrics

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestReadQrels(t *testing.T) {
	cases := []struct {
		name   string
		format QrelsFormat
		in     string
		want   Qrels
	}{
		{"trec", QrelsAuto, "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 -1\n", Qrels{"q1": {"d1": 1, "d2": 0}, "q2": {"d1": -1}}},
		{"trec tabs and CRLF", QrelsAuto, "q1\t0\td1\t2\r\n\r\nq1 0 d2 0\r\n", Qrels{"q1": {"d1": 2, "d2": 0}}},
		{"beir auto", QrelsAuto, "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td 2\t0\n", Qrels{"q1": {"d1": 1, "d 2": 0}}},
		{"beir forced", QrelsBEIR, "query-id\tcorpus-id\tscore\nq1\td1\t1\n", Qrels{"q1": {"d1": 1}}},
		{"trec forced", QrelsTREC, "q1 0 d1 1\n", Qrels{"q1": {"d1": 1}}},
		// BEIR without its header, with a byte order mark, and the forms
		// dataset's loader read before it used this parser.
		{"beir without header", QrelsAuto, "q1\td1\t1\nq1\td2\t0\nq2\td1\t2\n", Qrels{"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2}}},
		{"beir with BOM and header", QrelsAuto, "\ufeffquery-id\tcorpus-id\tscore\r\nq1\td1\t1\r\n", Qrels{"q1": {"d1": 1}}},
		{"beir forced with BOM", QrelsBEIR, "\ufeffquery-id\tcorpus-id\tscore\nq1\td1\t1\n", Qrels{"q1": {"d1": 1}}},
		{"beir without header, CRLF, BOM", QrelsAuto, "\ufeffq1\td1\t1\r\nq1\td2\t-1\r\n", Qrels{"q1": {"d1": 1, "d2": -1}}},
		{"beir header named relevance", QrelsAuto, "qid\tdocid\trelevance\nq\td\t3\n", Qrels{"q": {"d": 3}}},
		{"trec with BOM", QrelsAuto, "\ufeff301 0 FBIS3-10082 1\n301 0 FBIS3-10169 0\n302 Q0 D 2\n", Qrels{"301": {"FBIS3-10082": 1, "FBIS3-10169": 0}, "302": {"D": 2}}},
		{"trec tabs", QrelsAuto, "1\t0\td\t3\n", Qrels{"1": {"d": 3}}},
		{"blank lines", QrelsAuto, "\nq\td\t1\n\n", Qrels{"q": {"d": 1}}},
	}
	for _, c := range cases {
		got, err := ReadQrelsFormat(strings.NewReader(c.in), "f", c.format)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
		for q, docs := range c.want {
			for d, r := range docs {
				if v, ok := got[q][d]; !ok || v != r {
					t.Errorf("%s: %s %s = %v (present %v), want %d", c.name, q, d, v, ok, r)
				}
			}
			if len(got[q]) != len(docs) {
				t.Errorf("%s: query %s has %d judgments, want %d", c.name, q, len(got[q]), len(docs))
			}
		}
	}
}

// TestParseErrors checks that bad input gives an error naming the file,
// the line and what was expected.
func TestParseErrors(t *testing.T) {
	type reader func(in string) error
	qrels := func(f QrelsFormat) reader {
		return func(in string) error { _, err := ReadQrelsFormat(strings.NewReader(in), "my.qrels", f); return err }
	}
	readRun := func(in string) error { _, err := ReadRun(strings.NewReader(in), "my.run"); return err }
	streamRun := func(in string) error {
		rr := NewRunReader(strings.NewReader(in), "my.run")
		for {
			_, _, err := rr.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	cases := []struct {
		name    string
		read    reader
		in      string
		line    int
		wantMsg string
	}{
		{"qrels empty file", qrels(QrelsAuto), "", 0, "empty file"},
		{"qrels only blank lines", qrels(QrelsAuto), "\n  \n", 0, "empty file"},
		{"qrels header only", qrels(QrelsAuto), "query-id\tcorpus-id\tscore\n", 0, "no judgments"},
		{"qrels 3 fields", qrels(QrelsTREC), "q1 0 d1 1\nq1 d2 1\n", 2, "expected 4 (qid iter docid rel)"},
		{"qrels 5 fields", qrels(QrelsAuto), "q1 0 d1 1 x\n", 1, "expected 4"},
		{"qrels non-integer", qrels(QrelsAuto), "q1 0 d1 1\nq1 0 d2 high\n", 2, `relevance "high": expected an integer`},
		{"qrels float relevance", qrels(QrelsAuto), "q1 0 d1 0.5\n", 1, "expected an integer"},
		{"qrels duplicate", qrels(QrelsAuto), "q1 0 d1 1\nq1 0 d2 1\nq1 0 d1 0\n", 3, "duplicate judgment"},
		{"qrels 3 space-separated fields", qrels(QrelsAuto), "q1 d1 1\n", 1, "or 3 tab-separated ones"},
		{"qrels 2 fields", qrels(QrelsAuto), "q\td\n", 1, "expected 4"},
		{"beir header later", qrels(QrelsAuto), "q\td\t1\nquery-id\tcorpus-id\tscore\n", 2, `relevance "score": expected an integer`},
		{"beir float score", qrels(QrelsAuto), "q\td\t1.0\n", 1, `relevance "1.0": expected an integer`},
		{"beir then trec", qrels(QrelsAuto), "q\td\t1\nq 0 e 1\n", 2, "expected 3 (query-id, corpus-id, score) like the lines before"},
		{"trec then beir", qrels(QrelsAuto), "q 0 e 1\nq\td\t1\n", 2, "expected 4 (qid iter docid rel) like the lines before"},
		{"beir duplicate", qrels(QrelsAuto), "q\td\t1\nq\te\t1\nq\td\t1\n", 3, `duplicate judgment for query "q", document "d"`},
		{"beir empty doc", qrels(QrelsAuto), "q\t\t1\n", 1, "empty query-id or corpus-id"},
		{"beir header missing (forced)", qrels(QrelsBEIR), "q1\td1\t1\n", 1, "must start with the header"},
		{"beir header in trec", qrels(QrelsTREC), "query-id\tcorpus-id\tscore\n", 1, "BEIR header"},
		{"beir 2 fields", qrels(QrelsAuto), "query-id\tcorpus-id\tscore\nq1\td1\n", 2, "expected 3 (query-id, corpus-id, score)"},
		{"beir spaces", qrels(QrelsAuto), "query-id\tcorpus-id\tscore\nq1 d1 1\n", 2, "expected 3"},
		{"beir empty id", qrels(QrelsAuto), "query-id\tcorpus-id\tscore\n\td1\t1\n", 2, "empty query-id"},
		{"beir NaN", qrels(QrelsAuto), "query-id\tcorpus-id\tscore\nq\td\tNaN\n", 2, "expected an integer"},
	}
	for _, rd := range []struct {
		name string
		read reader
	}{{"ReadRun", readRun}, {"RunReader", streamRun}} {
		cases = append(cases, []struct {
			name    string
			read    reader
			in      string
			line    int
			wantMsg string
		}{
			{rd.name + " empty file", rd.read, "", 0, "empty run"},
			{rd.name + " blank lines only", rd.read, "\n\n", 0, "empty run"},
			{rd.name + " 5 fields", rd.read, "q Q0 d 1 0.5 t\nq Q0 d2 2 0.4\n", 2, "expected 6 (qid Q0 docid rank score tag)"},
			{rd.name + " non-numeric score", rd.read, "q Q0 d 1 abc t\n", 1, `score "abc": expected a number`},
			{rd.name + " NaN score", rd.read, "q Q0 d 1 NaN t\n", 1, "expected a finite number"},
			{rd.name + " Inf score", rd.read, "q Q0 d 1 +Inf t\n", 1, "expected a finite number"},
			{rd.name + " overflowing score", rd.read, "q Q0 d 1 1e999 t\n", 1, "expected a finite number"},
			{rd.name + " duplicate pair", rd.read, "q Q0 d 1 3 t\nq Q0 e 2 2 t\nq Q0 d 3 1 t\n", 3, `document "d" listed twice for query "q" (first at line 1)`},
			{rd.name + " very long line", rd.read, "q Q0 " + strings.Repeat("x", maxLine+10) + " 1 1 t\n", 1, "line longer than"},
		}...)
	}
	for _, c := range cases {
		err := c.read(c.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: got %v, want a *ParseError", c.name, err)
			continue
		}
		if pe.Line != c.line || !strings.Contains(pe.Msg, c.wantMsg) || !strings.HasPrefix(err.Error(), pe.File) ||
			(pe.File != "my.qrels" && pe.File != "my.run") {
			t.Errorf("%s: got %q (line %d), want line %d and a message containing %q", c.name, err, pe.Line, c.line, c.wantMsg)
		}
	}
}

func TestRunReaderGroups(t *testing.T) {
	in := "q2 Q0 b 1 2 t1\nq2 Q0 a 2 1 t1\n\nq1 Q0 c 1 0.5 t1 trailing junk\n"
	rr := NewRunReader(strings.NewReader(in), "r")
	var got []string
	for {
		qid, list, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range list {
			got = append(got, qid+":"+d.DocID)
		}
	}
	want := []string{"q2:b", "q2:a", "q1:c"}
	if !slices.Equal(got, want) || rr.Tag() != "t1" {
		t.Errorf("got %v tag %q, want %v tag t1", got, rr.Tag(), want)
	}
}

// FuzzReadQrels checks that any input gives qrels or an error naming the
// file, never a panic.
func FuzzReadQrels(f *testing.F) {
	f.Add("q1 0 d1 1\nq1 0 d2 0\n")
	f.Add("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
	f.Add("q1\td1\t1\n")
	f.Add("q1 0 d1 1\nq1 0 d1 2\n")
	f.Add("\ufeffq\td\t-1\r\nq\te\t2\n")
	f.Fuzz(func(t *testing.T, in string) {
		q, err := ReadQrels(strings.NewReader(in), "f")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(q) == 0 {
			t.Fatal("no error and no judgments")
		}
		// Written back in the BEIR form, the qrels read as themselves
		// (ids with white space at either end, which BEIR's columns
		// trim, excepted).
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
				if strings.TrimSpace(qid) != qid || strings.TrimSpace(did) != did {
					return
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

// FuzzReadRun checks that the streaming reader and ReadRun agree on every
// grouped input, and that neither panics.
func FuzzReadRun(f *testing.F) {
	f.Add("q Q0 d 1 0.5 t\nq Q0 e 2 0.4 t\nr Q0 d 1 1 t\n")
	f.Add("q Q0 d 1 NaN t\n")
	f.Add("q Q0 d 1 1 t\nr Q0 d 1 1 t\nq Q0 e 1 1 t\n")
	f.Add("q Q0 d 1 1 t\nq Q0 d 1 1 t\n")
	f.Fuzz(func(t *testing.T, in string) {
		run, err1 := ReadRun(strings.NewReader(in), "f")
		if err1 != nil && !strings.HasPrefix(err1.Error(), "f:") {
			t.Fatalf("error does not name the file: %v", err1)
		}
		rr := NewRunReader(strings.NewReader(in), "f")
		streamed := Run{}
		var err2 error
		for {
			qid, list, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				err2 = err
				break
			}
			streamed[qid] = slices.Clone(list)
		}
		if errors.Is(err2, ErrUngrouped) {
			return // ReadRun accepts what the stream refuses
		}
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("ReadRun error %v, RunReader error %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		if len(run) != len(streamed) {
			t.Fatalf("ReadRun %d queries, RunReader %d", len(run), len(streamed))
		}
		for q, l := range run {
			if !slices.Equal(l, streamed[q]) {
				t.Fatalf("query %q: ReadRun %v, RunReader %v", q, l, streamed[q])
			}
		}
	})
}

// FuzzParseMeasures checks that measure parsing never panics and that
// every measure it returns prints a name that parses back to itself.
func FuzzParseMeasures(f *testing.F) {
	f.Add("map,ndcg_cut.10,P.5,10", 0)
	f.Add("ndcg@10,recall@1,3", 1)
	f.Add("MRR@10,recall@50", 3)
	f.Add("P_5,success", 2)
	f.Fuzz(func(t *testing.T, spec string, conv int) {
		c := Convention(((conv % 4) + 4) % 4)
		ms, err := ParseMeasures([]string{spec}, c)
		if err != nil {
			return
		}
		for _, m := range ms {
			back, err := ParseMeasures([]string{m.String()}, c)
			if err != nil || len(back) != 1 || back[0] != m {
				t.Fatalf("%s under %s does not parse back: %v %v", m, c, back, err)
			}
		}
	})
}

// FuzzParseDecimal checks the fast score parser against strconv.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"29.973389", "-0.5", "+1.", ".5", "1e5", "123456789012345678", "0.0000000000000000000001234", "-0", "1.2.3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseDecimal([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("parseDecimal(%q) = %v, strconv %v (%v)", s, got, want, err)
		}
	})
}
