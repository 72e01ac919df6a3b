package dataset

import (
	"bytes"
	"fmt"
	"testing"
)

// readAll reads every document of a corpus (or, with queries set, every
// query) of data as the readers do, with or without plainFields, and
// returns what it read and the error that stopped it, as text.
func readAll(data []byte, queries, textOnly, fast bool) string {
	save := fastJSON
	fastJSON = fast
	defer func() { fastJSON = save }()
	var out bytes.Buffer
	if queries {
		r := NewQueryReader(bytes.NewReader(data), "q.jsonl")
		for {
			q, err := r.Next()
			if err != nil {
				fmt.Fprintf(&out, "error %v", err)
				return out.String()
			}
			fmt.Fprintf(&out, "%q %q\n", q.ID, q.Text)
		}
	}
	r := NewCorpusReader(bytes.NewReader(data), "c.jsonl")
	if textOnly {
		r = NewTextReader(bytes.NewReader(data), "c.jsonl")
	}
	for {
		d, err := r.Next()
		if err != nil {
			fmt.Fprintf(&out, "error %v", err)
			return out.String()
		}
		fmt.Fprintf(&out, "%q %q %q\n", d.ID, d.Title, d.Text)
	}
}

// plainCases are lines the fast path reads and lines it must leave to
// encoding/json.
var plainCases = []string{
	`{"_id": "d1", "title": "t", "text": "x y"}`,
	`{"_id":"d1","text":"a"}`,
	` { "text" : "a" , "_id" : "q" } `,
	`{"_id": "d1", "text": "a", "text": "b"}`,
	`{"_id": "d1", "TEXT": "a"}`,
	`{"_id": "d1", "Text": "a", "text": "b"}`,
	`{"_id": "", "text": "a"}`,
	`{"_id": 17, "text": "a"}`,
	`{"_id": 1.5, "text": "a"}`,
	`{"_id": "d\u0031", "text": "caf\u00e9"}`,
	`{"_id": "d1", "text": "tab\there"}`,
	`{"_id": "d1", "text": "café ☕"}`,
	"{\"_id\": \"d1\", \"text\": \"bad \xff utf8\"}",
	`{"_id": "d1", "text": null}`,
	`{"_id": "d1", "title": "t"}`,
	`{"_id": "d1", "text": "a", "metadata": {"url": "u"}}`,
	`{"_id": "d1", "text": "a",}`,
	`{"_id": "d1" "text": "a"}`,
	`{}`,
	`[]`,
	`{"_id": "d1", "text": "a"} x`,
	`{"_ıd": "d1", "text": "a"}`,
	`{"ſ": "d1", "text": "a"}`,
	"{\"_id\": \"d1\", \"text\": \"a\"}\r",
	`{"_id": "d1", "text": "unterminated}`,
}

// TestPlainFieldsAgree checks that the readers give the same documents,
// queries and errors with and without the fast path on every case.
func TestPlainFieldsAgree(t *testing.T) {
	for _, line := range plainCases {
		data := []byte(line + "\n" + `{"_id": "last", "text": "z"}` + "\n")
		for _, mode := range []struct{ queries, textOnly bool }{{false, false}, {false, true}, {true, false}} {
			if got, want := readAll(data, mode.queries, mode.textOnly, true), readAll(data, mode.queries, mode.textOnly, false); got != want {
				t.Errorf("%s (queries %v, text only %v):\nfast path: %s\nencoding/json: %s", line, mode.queries, mode.textOnly, got, want)
			}
		}
	}
	var f [3]span
	if !plainFields([]byte(plainCases[0]), corpusKeys, f[:]) {
		t.Error("the fast path refuses a plain BEIR line")
	}
}

// FuzzPlainFields: on any input the readers give the same documents,
// queries and errors with the fast path as with encoding/json alone.
func FuzzPlainFields(f *testing.F) {
	for _, line := range plainCases {
		f.Add([]byte(line + "\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mode := range []struct{ queries, textOnly bool }{{false, false}, {false, true}, {true, false}} {
			if got, want := readAll(data, mode.queries, mode.textOnly, true), readAll(data, mode.queries, mode.textOnly, false); got != want {
				t.Fatalf("%q (queries %v, text only %v):\nfast path: %s\nencoding/json: %s", data, mode.queries, mode.textOnly, got, want)
			}
		}
	})
}
