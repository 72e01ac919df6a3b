package tokenizer

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
)

// generalVocab is the vocabulary the general path (encoding/json into a
// map, then setVocabMap) makes of v, or its error.
func generalVocab(v []byte) (*Tokenizer, error) {
	var m map[string]int64
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, err
	}
	t := &Tokenizer{}
	err := t.setVocabMap(m, func(f string, a ...any) error { return fmt.Errorf(f, a...) })
	return t, err
}

// checkPlainVocab fails t when plainVocab takes v and makes a vocabulary
// other than the general path's, or sets anything when it declines.
func checkPlainVocab(t *testing.T, v []byte) bool {
	t.Helper()
	fast := &Tokenizer{}
	ok := fast.plainVocab(v)
	if !ok {
		if fast.vocab != nil || fast.ids != nil || fast.holes != nil {
			t.Fatalf("%q: plainVocab declined but set the vocabulary", v)
		}
		return false
	}
	slow, err := generalVocab(v)
	if err != nil {
		t.Fatalf("%q: plainVocab took it, the general path says %v", v, err)
	}
	if !slices.Equal(fast.vocab, slow.vocab) || !maps.Equal(fast.ids, slow.ids) || !maps.Equal(fast.holes, slow.holes) {
		t.Fatalf("%q: plainVocab made vocab %q ids %v holes %v, the general path %q %v %v", v, fast.vocab, fast.ids, fast.holes, slow.vocab, slow.ids, slow.holes)
	}
	return true
}

func TestPlainVocab(t *testing.T) {
	for _, c := range []struct {
		v     string
		plain bool
	}{
		{`{"a": 0, "b": 1}`, true},
		{" {\n\t\"[PAD]\" : 0 ,\r\n \"##é\": 2 } ", true}, // whitespace, a hole at 1, UTF-8
		{`{"a\"b": 0, "\u00e9": 1, "\/": 2}`, true},       // escapes, as encoding/json reads them
		{"{\"\xff\": 0}", true},                           // invalid UTF-8: U+FFFD, as encoding/json
		{`{"a": 0, "a": 1}`, false},                       // a token twice: the general path's last wins
		{`{"a": 0, "b": 0}`, false},                       // an id twice: the general path's error
		{`{"a": -1}`, false},
		{`{"a": 1.0}`, false},
		{`{"a": 1e2}`, false},
		{`{"a": 16777216}`, false},
		{`{"a": "1"}`, false},
		{`{}`, false},
		{`[["a", 0]]`, false},
		{`{"a": 0} x`, false},
	} {
		if got := checkPlainVocab(t, []byte(c.v)); got != c.plain {
			t.Errorf("%q: plainVocab took it %v, want %v", c.v, got, c.plain)
		}
	}
}

// FuzzPlainVocab: on any valid JSON, plainVocab either declines and sets
// nothing, or makes exactly the general path's vocabulary.
func FuzzPlainVocab(f *testing.F) {
	for _, s := range []string{`{"a": 0, "b": 1}`, `{"a\"b": 0, "\u00e9": 3}`, `{"a": 0, "a": 1}`, `{"x": 7, "y": 0}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !json.Valid(v) {
			return
		}
		checkPlainVocab(t, v)
	})
}
