package dataset

import (
	"strings"
	"unicode/utf8"
)

// The JSONL readers decode most lines without encoding/json: a BEIR line
// is usually an object of plain strings ({"_id": "...", "title": "...",
// "text": "..."}), which plainFields reads directly, several times faster
// than the reflection decoder and far faster in a browser's first run.
// Any other line (escapes, other value types, keys that name a field
// only case-insensitively, invalid JSON) goes to encoding/json, whose
// result or error is the definition; FuzzPlainFields checks that the two
// agree wherever plainFields answers.

// fastJSON is false in tests that compare the readers with encoding/json
// alone.
var fastJSON = true

// span is a string value's bytes within a line, without its quotes.
type span struct {
	a, b int
	set  bool
}

// plainFields reads line as a JSON object whose keys and values are all
// plain strings: no backslash, no control character, valid UTF-8. For
// each key of keys it sets vals to the value's span (the last one, where
// a key repeats, as encoding/json keeps). It returns false, having set
// nothing the caller uses, for any other line, and for a key that differs
// from one of keys but equals it ignoring case (encoding/json would fill
// the field from it).
func plainFields(line []byte, keys []string, vals []span) bool {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return skipSpace(line, i+1) == len(line)
	}
	for {
		ka, kb, ok := plainString(line, i)
		if !ok {
			return false
		}
		i = skipSpace(line, kb+1)
		if i >= len(line) || line[i] != ':' {
			return false
		}
		va, vb, ok := plainString(line, skipSpace(line, i+1))
		if !ok {
			return false
		}
		key := line[ka:kb]
		for k, name := range keys {
			if string(key) == name {
				vals[k] = span{a: va, b: vb, set: true}
			} else if len(key) == len(name) && strings.EqualFold(string(key), name) {
				return false
			}
		}
		for _, c := range key {
			if c >= utf8.RuneSelf {
				return false // Unicode case folding: left to encoding/json
			}
		}
		i = skipSpace(line, vb+1)
		if i >= len(line) {
			return false
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case '}':
			return skipSpace(line, i+1) == len(line)
		default:
			return false
		}
	}
}

// plainString reads a plain JSON string starting at line[i] (its opening
// quote) and returns its contents' bounds [a, b): line[b] is the closing
// quote.
func plainString(line []byte, i int) (a, b int, ok bool) {
	if i >= len(line) || line[i] != '"' {
		return 0, 0, false
	}
	a = i + 1
	ascii := true
	for b = a; b < len(line); b++ {
		switch c := line[b]; {
		case c == '"':
			if !ascii && !utf8.Valid(line[a:b]) {
				return 0, 0, false
			}
			return a, b, true
		case c == '\\' || c < 0x20:
			return 0, 0, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return 0, 0, false
}

// skipSpace returns the index of the first byte at or after i that is
// not JSON whitespace.
func skipSpace(line []byte, i int) int {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r') {
		i++
	}
	return i
}
