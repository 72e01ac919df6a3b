package dataset

import (
	"strings"
	"testing"
)

// TestCorpusReaderTitleOnly: a document with a title and no "text" is
// read by the BEIR reader as by the text reader ("dreval encode"), as
// DocText embeds it: its title alone; one with neither is refused by
// both, saying so.
func TestCorpusReaderTitleOnly(t *testing.T) {
	for _, tt := range []struct {
		line    string
		want    Doc
		wantErr string
	}{
		{`{"_id":"d1","title":"only a title"}`, Doc{ID: "d1", Title: "only a title"}, ""},
		{`{"_id":"d2","title":"a title","text":"and a text"}`, Doc{ID: "d2", Title: "a title", Text: "and a text"}, ""},
		{`{"_id":"d3","text":""}`, Doc{ID: "d3"}, ""},
		{`{"_id":"d4"}`, Doc{}, `c.jsonl:1: the object has neither "text" nor "title"`},
		{`{"_id":"d5","title":null}`, Doc{}, `c.jsonl:1: the object has neither "text" nor "title"`},
	} {
		for name, r := range map[string]*CorpusReader{
			"corpus": NewCorpusReader(strings.NewReader(tt.line), "c.jsonl"),
			"text":   NewTextReader(strings.NewReader(tt.line), "c.jsonl"),
		} {
			d, err := r.Next()
			switch {
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("%s reader, %s: %v, want %q", name, tt.line, err, tt.wantErr)
			case tt.wantErr == "" && (err != nil || d != tt.want):
				t.Errorf("%s reader, %s: %+v %v, want %+v", name, tt.line, d, err, tt.want)
			}
		}
	}
}
