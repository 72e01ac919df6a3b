package metrics

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"
)

// maxLine bounds one input line; longer lines are an error, not a panic or
// an unbounded allocation.
const maxLine = 1 << 20

// utf8BOM is the UTF-8 byte order mark some editors (and Windows tools)
// put at the start of a text file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// lineScanner yields the lines of a file with their 1-based numbers,
// without the line terminator (\n or \r\n) and without a UTF-8 byte order
// mark at the start of the file.
type lineScanner struct {
	name string
	sc   *bufio.Scanner
	line int
}

func newLineScanner(r io.Reader, name string) *lineScanner {
	sc := bufio.NewScanner(r)
	initial := 256 << 10
	// A reader that says it holds less (a strings.Reader of a request's
	// qrels, a test's input) gets a buffer its size, not 256 KiB.
	if l, ok := r.(interface{ Len() int }); ok && l.Len() < initial {
		initial = l.Len() + 1
	}
	sc.Buffer(make([]byte, 0, initial), maxLine)
	return &lineScanner{name: name, sc: sc}
}

// next returns the next line, or io.EOF, or a read error naming the file
// and line.
func (s *lineScanner) next() ([]byte, error) {
	if !s.sc.Scan() {
		err := s.sc.Err()
		if err == nil {
			return nil, io.EOF
		}
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, parseErrorf(s.name, s.line+1, "line longer than %d bytes: expected one record per line", maxLine)
		}
		return nil, &ParseError{File: s.name, Line: s.line + 1, Msg: "read: " + err.Error(), Err: err}
	}
	s.line++
	b := s.sc.Bytes()
	if s.line == 1 {
		b = bytes.TrimPrefix(b, utf8BOM)
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
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
