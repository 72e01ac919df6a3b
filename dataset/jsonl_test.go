package dataset

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/lines"
)

func readAllDocs(t testing.TB, in string) ([]Doc, error) {
	cr := NewCorpusReader(strings.NewReader(in), "corpus.jsonl")
	var docs []Doc
	for {
		d, err := cr.Next()
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return docs, err
		}
		docs = append(docs, d)
	}
}

func TestCorpusReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Doc
	}{
		{"plain", `{"_id":"a","title":"T","text":"x"}` + "\n", []Doc{{"a", "T", "x"}}},
		{"no final newline", `{"_id":"a","text":"x"}`, []Doc{{"a", "", "x"}}},
		{"BOM and CRLF", "\ufeff" + `{"_id":"a","text":"x"}` + "\r\n" + `{"_id":"b","text":"y"}` + "\r\n", []Doc{{"a", "", "x"}, {"b", "", "y"}}},
		{"blank lines", "\n  \n" + `{"_id":"a","text":"x"}` + "\n\n", []Doc{{"a", "", "x"}}},
		{"extra fields", `{"_id":"a","text":"x","metadata":{"url":"u"},"n":3}`, []Doc{{"a", "", "x"}}},
		{"empty text", `{"_id":"a","title":"only a title","text":""}`, []Doc{{"a", "only a title", ""}}},
		{"unicode", `{"_id":"中","text":"我爱北京\u00e9"}`, []Doc{{"中", "", "我爱北京é"}}},
		// Numeric ids (Cranfield-style files) are their decimal text as
		// written: no float conversion may change a digit.
		{"numeric ids", `{"_id":17,"text":"x"}` + "\n" + `{"_id":123456789012345678901234567890,"text":"y"}` + "\n" + `{"_id":-3,"text":"z"}` + "\n" + `{"_id":9007199254740993,"text":"w"}`,
			[]Doc{{"17", "", "x"}, {"123456789012345678901234567890", "", "y"}, {"-3", "", "z"}, {"9007199254740993", "", "w"}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAllDocs(t, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCorpusReaderErrors(t *testing.T) {
	ok := `{"_id":"a","text":"x"}` + "\n"
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"missing id", ok + `{"text":"x"}`, `corpus.jsonl:2: missing "_id"`},
		{"empty id", `{"_id":"","text":"x"}`, `corpus.jsonl:1: empty "_id"`},
		{"missing text and title", ok + ok + `{"_id":"b"}`, `corpus.jsonl:3: the object has neither "text" nor "title"`},
		{"fractional id", `{"_id":1.5,"text":"x"}`, `corpus.jsonl:1: field "_id" is the number 1.5, not an integer: write the id as a string ("1.5")`},
		{"exponent id", ok + `{"_id":1e3,"text":"x"}`, `corpus.jsonl:2: field "_id" is the number 1e3, not an integer`},
		{"array id", `{"_id":[1],"text":"x"}`, `corpus.jsonl:1: field "_id" is a JSON array, want a string or an integer`},
		{"boolean id", `{"_id":true,"text":"x"}`, `corpus.jsonl:1: field "_id" is a JSON boolean, want a string or an integer`},
		{"null id", `{"_id":null,"text":"x"}`, `corpus.jsonl:1: missing "_id"`},
		{"null text", `{"_id":"a","text":null}`, `corpus.jsonl:1: the object has neither "text" nor "title"`},
		{"array line", `["a","x"]`, `corpus.jsonl:1: want a JSON object, got array`},
		{"broken json", ok + `{"_id":"a",`, `corpus.jsonl:2: invalid JSON`},
		{"two objects", `{"_id":"a","text":"x"} {"_id":"b","text":"y"}`, `corpus.jsonl:1: invalid JSON`},
		{"BOM not at start", ok + "\ufeff" + ok, `corpus.jsonl:2: invalid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readAllDocs(t, tt.in)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got error %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestLineTooLong(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	lr := &lineReader{lines.New(strings.NewReader("short\n"+long+"\nshort"), "f", len(long))} // the limit counts the newline too
	if l, err := lr.next(); err != nil || string(l) != "short" {
		t.Fatalf("line 1: %q, %v", l, err)
	}
	_, err := lr.next()
	if err == nil || err.Error() != "f:2: line longer than 200000 bytes" {
		t.Fatalf("line 2: got %v", err)
	}
	lr = newLineReader(strings.NewReader(long+"\n"), "f")
	if l, err := lr.next(); err != nil || len(l) != len(long) {
		t.Fatalf("a long line under the default limit: %d bytes, %v", len(l), err)
	}
}

func TestQueryReader(t *testing.T) {
	in := "\ufeff" + `{"_id":"1","text":"what is x","metadata":{}}` + "\n" + `{"_id":"2","text":""}` + "\n\n" + `{"_id":225,"text":"n"}` + "\n" + `{"_id":"3"}`
	qr := NewQueryReader(strings.NewReader(in), "queries.jsonl")
	var got []Query
	var err error
	for {
		var q Query
		q, err = qr.Next()
		if err != nil {
			break
		}
		got = append(got, q)
	}
	want := []Query{{"1", "what is x"}, {"2", ""}, {"225", "n"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if err == nil || err.Error() != `queries.jsonl:5: missing "text"` || qr.Line() != 5 {
		t.Errorf("got error %v at line %d", err, qr.Line())
	}
}

func TestReadAnswers(t *testing.T) {
	in := `{"query-id":"a","answers":["x","y"],"split":"dev"}` + "\n" + `{"query-id":"b","answers":[],"fake_answers":["z"]}`
	a, e, err := readAnswers(strings.NewReader(in), "answers.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, map[string][]string{"a": {"x", "y"}, "b": {}}) {
		t.Errorf("answers %q", a)
	}
	if !reflect.DeepEqual(e, map[string][]string{"b": {"z"}}) {
		t.Errorf("extractive %q", e)
	}
	for _, tt := range []struct{ in, want string }{
		{`{"query-id":"a"}`, `answers.jsonl:1: missing "answers"`},
		{`{"answers":["x"]}`, `answers.jsonl:1: missing "query-id"`},
		{`{"query-id":"a","answers":"x"}`, `answers.jsonl:1: field "answers" is a JSON string, want a list of strings`},
		{`{"query-id":"a","answers":["x"]}` + "\n" + `{"query-id":"a","answers":["y"]}`, `answers.jsonl:2: query-id "a" appears twice`},
	} {
		_, _, err := readAnswers(strings.NewReader(tt.in), "answers.jsonl")
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: got %v, want %s", tt.in, err, tt.want)
		}
	}
}

func FuzzCorpusReader(f *testing.F) {
	f.Add(`{"_id":"a","title":"T","text":"x"}` + "\n")
	f.Add("\ufeff{\"_id\":\"a\",\"text\":\"x\"}\r\n\r\n{\"_id\":1}")
	f.Add(`{"_id":"a","text":null}`)
	f.Fuzz(func(t *testing.T, in string) {
		cr := NewCorpusReader(strings.NewReader(in), "f")
		for i := 0; i < 1e6; i++ {
			d, err := cr.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "f:") {
					t.Fatalf("error without file name: %v", err)
				}
				return
			}
			if d.ID == "" {
				t.Fatalf("document with empty id from %q", in)
			}
		}
		t.Fatal("reader did not stop")
	})
}

func FuzzQueryReader(f *testing.F) {
	f.Add(`{"_id":"1","text":"q"}`)
	f.Add(`{"_id":"1","text":["q"]}`)
	f.Fuzz(func(t *testing.T, in string) {
		qr := NewQueryReader(strings.NewReader(in), "f")
		for {
			q, err := qr.Next()
			if err != nil {
				return
			}
			if q.ID == "" {
				t.Fatalf("query with empty id from %q", in)
			}
		}
	})
}

func FuzzReadAnswers(f *testing.F) {
	f.Add(`{"query-id":"a","answers":["x"],"fake_answers":["y"]}`)
	f.Fuzz(func(t *testing.T, in string) {
		a, _, err := readAnswers(strings.NewReader(in), "f")
		if err == nil {
			for qid := range a {
				if qid == "" {
					t.Fatal("empty query id accepted")
				}
			}
		}
	})
}

func TestTextReader(t *testing.T) {
	in := `{"text":"no id"}` + "\n" + `{"_id":7,"title":"only a title"}` + "\n\n" + `{"_id":"d","title":"T","text":"x"}` + "\n" + `{"id":1}` + "\n"
	tr := NewTextReader(strings.NewReader(in), "docs.jsonl")
	var got []Doc
	var err error
	for {
		var d Doc
		if d, err = tr.Next(); err != nil {
			break
		}
		got = append(got, d)
	}
	want := []Doc{{"", "", "no id"}, {"7", "only a title", ""}, {"d", "T", "x"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if err == nil || err.Error() != `docs.jsonl:5: the object has neither "text" nor "title"` {
		t.Errorf("got error %v", err)
	}
	if _, err := NewTextReader(strings.NewReader(`{"_id":1.5,"text":"x"}`), "f").Next(); err == nil || !strings.Contains(err.Error(), "not an integer") {
		t.Errorf("a fractional id: %v", err)
	}
}
