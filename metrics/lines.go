package metrics

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/dreval/dreval/internal/lines"
)

// maxLine bounds one input line; longer lines are an error, not a panic or
// an unbounded allocation.
const maxLine = 1 << 20

// lineScanner yields the lines of a file with their 1-based numbers
// (package internal/lines), up to maxLine bytes a line, its errors as
// ParseErrors.
type lineScanner struct {
	r    *lines.Reader
	line int
}

func newLineScanner(r io.Reader, name string) *lineScanner {
	return &lineScanner{r: lines.New(r, name, maxLine)}
}

// next returns the next line, or io.EOF, or a read error naming the file
// and line.
func (s *lineScanner) next() ([]byte, error) {
	b, err := s.r.Next()
	if err == nil {
		s.line = s.r.Line()
		return b, nil
	}
	var le *lines.Error
	switch {
	case errors.As(err, &le) && le.Max > 0:
		return nil, parseErrorf(le.File, le.Line, "line longer than %d bytes: expected one record per line", maxLine)
	case errors.As(err, &le):
		return nil, &ParseError{File: le.File, Line: le.Line, Msg: "read: " + le.Err.Error(), Err: le.Err}
	}
	return nil, err
}

// isBlank reports whether b holds only spaces and tabs.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// isSep marks the bytes that separate whitespace-separated fields.
var isSep = [256]bool{' ': true, '\t': true}

// splitFields splits b on runs of spaces and tabs into dst[:0] and returns
// the fields and their count. When b has more fields than cap(dst), the
// count returned is cap(dst)+1 and the extra fields are not stored.
func splitFields(b []byte, dst [][]byte) ([][]byte, int) {
	out := dst[:0]
	i := 0
	for {
		for i < len(b) && isSep[b[i]] {
			i++
		}
		if i >= len(b) {
			return out, len(out)
		}
		if len(out) == cap(out) {
			return out, len(out) + 1
		}
		j := i
		for j < len(b) && !isSep[b[j]] {
			j++
		}
		out = append(out, b[i:j])
		i = j
	}
}

// splitTabs splits b on tabs into dst[:0]; like splitFields it stops after
// cap(dst)+1 fields.
func splitTabs(b []byte, dst [][]byte) ([][]byte, int) {
	out := dst[:0]
	n := 0
	for {
		n++
		i := bytes.IndexByte(b, '\t')
		f := b
		if i >= 0 {
			f = b[:i]
		}
		if len(out) < cap(out) {
			out = append(out, f)
		} else {
			return out, n
		}
		if i < 0 {
			return out, n
		}
		b = b[i+1:]
	}
}

// quote shows a field in an error message, shortened and made printable.
func quote(b []byte) string {
	const max = 40
	if len(b) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return strconv.Quote(string(b[:cut])) + "..."
	}
	return strconv.Quote(string(b))
}
