package answer

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
)

func TestDPRPassagesRoundTrip(t *testing.T) {
	docs := []dataset.Doc{
		{ID: "1", Title: "Aaron", Text: `Aaron ( or ; "Ahärôn") is a prophet`},
		{ID: "2", Title: "Tab\ttitle", Text: "line one\nline two"},
		{ID: "3", Title: "", Text: ""},
		{ID: "4", Title: " lead", Text: `"quoted"`},
	}
	var buf bytes.Buffer
	if err := WriteDPRPassages(&buf, docs); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "id\ttext\ttitle\n1\t\"Aaron ( or ; \"\"Ahärôn\"\") is a prophet\"\tAaron\n") {
		t.Errorf("written:\n%s", buf.String())
	}
	got, err := ReadPassages(bytes.NewReader(buf.Bytes()), "p.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, docs) {
		t.Errorf("round trip:\n got %q\nwant %q", got, docs)
	}
}

func TestReadPassages(t *testing.T) {
	// DPR's own file: header, quoted text with "" for quotes.
	dpr := "id\ttext\ttitle\n1\t\"Aaron Aaron ( or ; \"\"Ahärôn\"\") is\"\tAaron\n2\tplain text\tT\n"
	got, err := ReadPassages(strings.NewReader(dpr), "psgs.tsv")
	if err != nil {
		t.Fatal(err)
	}
	want := []dataset.Doc{{ID: "1", Title: "Aaron", Text: `Aaron Aaron ( or ; "Ahärôn") is`}, {ID: "2", Title: "T", Text: "plain text"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %q", got)
	}
	// No header.
	if got, err := ReadPassages(strings.NewReader("7\tt\tx\n"), "p"); err != nil || len(got) != 1 || got[0].ID != "7" {
		t.Errorf("headerless: %q %v", got, err)
	}
	beir := `{"_id": "d1", "title": "T", "text": "x y"}` + "\n"
	if got, err := ReadPassages(strings.NewReader(beir), "corpus.jsonl"); err != nil || len(got) != 1 || got[0].Text != "x y" {
		t.Errorf("beir: %q %v", got, err)
	}
	for _, bad := range []struct{ in, want string }{
		{"id\ttext\ttitle\n1\tonly two\n", "p:2: 2 tab-separated fields, want 3"},
		{"id\ttext\ttitle\n\tt\tx\n", "p:2: empty passage id"},
		{"id\ttext\ttitle\n", "no passages"},
		{"", "empty"},
		{"{\"_id\": 5}\n", "p"},
	} {
		_, err := ReadPassages(strings.NewReader(bad.in), "p")
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: got %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestSplit(t *testing.T) {
	d := dataset.Doc{ID: "d", Title: "T", Text: " a b\tc\nd e "}
	s := &Splitter{Words: 2}
	got, err := s.Split(d)
	if err != nil {
		t.Fatal(err)
	}
	want := []dataset.Doc{{ID: "d-0", Title: "T", Text: "a b"}, {ID: "d-1", Title: "T", Text: "c d"}, {ID: "d-2", Title: "T", Text: "e"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %q", got)
	}
	seq := &Splitter{Words: 100, IDs: Sequential}
	a, _ := seq.Split(d)
	b, _ := seq.Split(dataset.Doc{ID: "e", Title: "U"})
	if len(a) != 1 || a[0].ID != "1" || a[0].Text != "a b c d e" || len(b) != 1 || b[0].ID != "2" || b[0].Text != "" || b[0].Title != "U" {
		t.Errorf("sequential: %q %q", a, b)
	}
	if _, err := (&Splitter{}).Split(d); err == nil {
		t.Error("0 words accepted")
	}
}

func FuzzReadPassages(f *testing.F) {
	f.Add("id\ttext\ttitle\n1\t\"a \"\"b\"\"\"\tT\n")
	f.Add("1\ta\tb\n2\t\"multi\nline\"\tc\n")
	f.Add(`{"_id": "d1", "title": "T", "text": "x y"}`)
	f.Add("\"unterminated\ta\tb\n")
	f.Fuzz(func(t *testing.T, in string) {
		docs, err := ReadPassages(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		// What was read writes and reads back the same (DPR layout).
		var buf bytes.Buffer
		if err := WriteDPRPassages(&buf, docs); err != nil {
			t.Fatalf("write: %v", err)
		}
		again, err := ReadDPRPassages(&buf, "again")
		if err != nil {
			t.Fatalf("reread: %v\n%q", err, buf.String())
		}
		if !slices.Equal(normCR(docs), normCR(again)) {
			t.Fatalf("round trip:\n%q\n%q", docs, again)
		}
	})
}

// normCR maps \r\n to \n until none is left: encoding/csv reads a quoted
// \r\n as \n, so each read of "\r\r\n" drops one \r.
func normCR(docs []dataset.Doc) []dataset.Doc {
	out := slices.Clone(docs)
	for i := range out {
		for _, f := range []*string{&out[i].ID, &out[i].Title, &out[i].Text} {
			for strings.Contains(*f, "\r\n") {
				*f = strings.ReplaceAll(*f, "\r\n", "\n")
			}
		}
	}
	return out
}
