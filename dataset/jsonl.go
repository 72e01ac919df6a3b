package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"
)

// CorpusReader reads a BEIR corpus.jsonl one document at a time, so that
// corpora larger than memory can be streamed. Each non-blank line is a JSON
// object with an "_id" (required, non-empty; see the package's rule for
// ids below), a string "text" and a string "title", of which one may be
// left out (a document with a title only is embedded as its title, as
// "dreval encode" reads it: DocText), not both; other fields are
// ignored. It does not check that ids are unique: LoadBEIR
// does.
//
// An "_id" is a JSON string, or a JSON integer such as 17 (as in
// Cranfield's and other BEIR-style files written by tools that store ids
// as numbers), which stands for its decimal text exactly as written ("17";
// a large integer keeps every digit). A number with a fraction or an
// exponent (1.5, 1e3) is refused: as text it would not be the id the qrels
// name.
type CorpusReader struct {
	lr *lineReader
	// textOnly: see NewTextReader.
	textOnly bool
}

// NewCorpusReader returns a reader of r; name (usually the file name) is
// used in error messages.
func NewCorpusReader(r io.Reader, name string) *CorpusReader {
	return &CorpusReader{lr: newLineReader(r, name)}
}

// NewTextReader returns a CorpusReader of r for documents read only for
// their text, as "dreval encode" embeds them: "_id" may be left out (the
// document's ID is then empty); as for NewCorpusReader, "text" may be
// left out when "title" is given, and an object with neither is an
// error.
func NewTextReader(r io.Reader, name string) *CorpusReader {
	return &CorpusReader{lr: newLineReader(r, name), textOnly: true}
}

// Line returns the number of the line the last document was read from.
func (r *CorpusReader) Line() int { return r.lr.Line() }

// Next returns the next document, or io.EOF after the last one.
func (r *CorpusReader) Next() (Doc, error) {
	var raw struct {
		ID    json.RawMessage `json:"_id"`
		Title *string         `json:"title"`
		Text  *string         `json:"text"`
	}
	line, err := nextLine(r.lr)
	if err != nil {
		return Doc{}, err
	}
	var f [3]span
	if fastJSON && plainFields(line, corpusKeys, f[:]) {
		raw.ID, raw.Title, raw.Text = quoted(line, f[0]), plain(line, f[1]), plain(line, f[2])
	} else if err := json.Unmarshal(line, &raw); err != nil {
		return Doc{}, jsonError(r.lr, err)
	}
	var d Doc
	if raw.Text == nil && raw.Title == nil {
		return Doc{}, r.lr.errorf("the object has neither %q nor %q", "text", "title")
	}
	if r.textOnly {
		if len(raw.ID) > 0 && string(raw.ID) != "null" {
			id, err := idField(r.lr, raw.ID)
			if err != nil {
				return Doc{}, err
			}
			d.ID = id
		}
	} else {
		id, err := idField(r.lr, raw.ID)
		if err != nil {
			return Doc{}, err
		}
		d.ID = id
	}
	if raw.Text != nil {
		d.Text = *raw.Text
	}
	if raw.Title != nil {
		d.Title = *raw.Title
	}
	return d, nil
}

// QueryReader reads a BEIR queries.jsonl: one JSON object per non-blank
// line with an "_id" (required, non-empty; a string or an integer, as
// CorpusReader reads it) and a string "text" (required).
type QueryReader struct {
	lr *lineReader
}

// NewQueryReader returns a reader of r; name is used in error messages.
func NewQueryReader(r io.Reader, name string) *QueryReader {
	return &QueryReader{lr: newLineReader(r, name)}
}

// Line returns the number of the line the last query was read from.
func (r *QueryReader) Line() int { return r.lr.Line() }

// Next returns the next query, or io.EOF after the last one.
func (r *QueryReader) Next() (Query, error) {
	var raw struct {
		ID   json.RawMessage `json:"_id"`
		Text *string         `json:"text"`
	}
	line, err := nextLine(r.lr)
	if err != nil {
		return Query{}, err
	}
	var f [2]span
	if fastJSON && plainFields(line, queryKeys, f[:]) {
		raw.ID, raw.Text = quoted(line, f[0]), plain(line, f[1])
	} else if err := json.Unmarshal(line, &raw); err != nil {
		return Query{}, jsonError(r.lr, err)
	}
	id, err := idField(r.lr, raw.ID)
	if err != nil {
		return Query{}, err
	}
	if err := need(r.lr, "text", raw.Text, false); err != nil {
		return Query{}, err
	}
	return Query{ID: id, Text: *raw.Text}, nil
}

// idField reads an "_id" (see CorpusReader): a non-empty JSON string, or
// a JSON integer taken as its decimal text as written.
func idField(lr *lineReader, raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", lr.errorf("missing %q", "_id")
	}
	switch c := raw[0]; {
	case c == '"' && plainQuoted(raw):
		if len(raw) == 2 {
			return "", lr.errorf("empty %q", "_id")
		}
		return string(raw[1 : len(raw)-1]), nil
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", jsonError(lr, err)
		}
		if s == "" {
			return "", lr.errorf("empty %q", "_id")
		}
		return s, nil
	case c == '-' || '0' <= c && c <= '9':
		// json.Unmarshal has checked the number's syntax.
		if bytes.ContainsAny(raw, ".eE") {
			return "", lr.errorf("field %q is the number %s, not an integer: write the id as a string (\"%s\") so that it stays the id the qrels name", "_id", raw, raw)
		}
		return string(raw), nil
	}
	kind := map[byte]string{'{': "object", '[': "array", 't': "boolean", 'f': "boolean"}[raw[0]]
	return "", lr.errorf("field %q is a JSON %s, want a string or an integer", "_id", kind)
}

// nextJSON decodes the next non-blank line of lr into v with
// encoding/json.
func nextJSON(lr *lineReader, v any) error {
	line, err := nextLine(lr)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(line, v); err != nil {
		return jsonError(lr, err)
	}
	return nil
}

// corpusKeys and queryKeys are the fields the readers take, in the
// order of their spans.
var (
	corpusKeys = []string{"_id", "title", "text"}
	queryKeys  = []string{"_id", "text"}
)

// nextLine returns the next non-blank line of lr, valid until the next
// read.
func nextLine(lr *lineReader) ([]byte, error) {
	for {
		line, err := lr.next()
		if err != nil || !blank(line) {
			return line, err
		}
	}
}

// quoted returns the value of s in line with its quotes, as the JSON
// text json.RawMessage holds; nil when s was not set.
func quoted(line []byte, s span) json.RawMessage {
	if !s.set {
		return nil
	}
	return line[s.a-1 : s.b+1]
}

// plain returns the string value of s in line; nil when s was not set.
func plain(line []byte, s span) *string {
	if !s.set {
		return nil
	}
	v := string(line[s.a:s.b])
	return &v
}

// plainQuoted reports whether raw, a valid JSON string, is a plain one
// (no escape, valid UTF-8): its contents are then its value.
func plainQuoted(raw []byte) bool {
	return bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)
}

// jsonError turns a decoding error into one naming the file, line and
// field.
func jsonError(lr *lineReader, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return lr.errorf("want a JSON object, got %s", te.Value)
		}
		return lr.errorf("field %q is a JSON %s, want %s", te.Field, te.Value, jsonKind(te.Type.String()))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return lr.errorf("invalid JSON at byte %d: %v", se.Offset, err)
	}
	return lr.errorf("invalid JSON: %v", err)
}

func jsonKind(goType string) string {
	switch goType {
	case "string", "*string":
		return "a string"
	case "[]string", "*[]string":
		return "a list of strings"
	}
	return goType
}

// need checks that a required string field was present (and, when
// nonEmpty, not empty).
func need(lr *lineReader, field string, v *string, nonEmpty bool) error {
	if v == nil {
		return lr.errorf("missing %q", field)
	}
	if nonEmpty && *v == "" {
		return lr.errorf("empty %q", field)
	}
	return nil
}

// readAnswers reads an answers.jsonl: one object per line with a string
// "query-id", a list of strings "answers" and, for DuReader, a list of
// strings "fake_answers" (extractive answers). A query id may appear once.
// extractive is nil when no line has "fake_answers".
func readAnswers(r io.Reader, name string) (answers, extractive map[string][]string, err error) {
	lr := newLineReader(r, name)
	answers = map[string][]string{}
	for {
		var raw struct {
			QID         *string   `json:"query-id"`
			Answers     *[]string `json:"answers"`
			FakeAnswers *[]string `json:"fake_answers"`
		}
		err := nextJSON(lr, &raw)
		if err == io.EOF {
			return answers, extractive, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if err := need(lr, "query-id", raw.QID, true); err != nil {
			return nil, nil, err
		}
		if raw.Answers == nil {
			return nil, nil, lr.errorf("missing %q", "answers")
		}
		qid := *raw.QID
		if _, dup := answers[qid]; dup {
			return nil, nil, lr.errorf("query-id %q appears twice", qid)
		}
		answers[qid] = nonNil(*raw.Answers)
		if raw.FakeAnswers != nil {
			if extractive == nil {
				extractive = map[string][]string{}
			}
			extractive[qid] = nonNil(*raw.FakeAnswers)
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
