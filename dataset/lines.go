package dataset

import (
	"bytes"
	"fmt"
	"io"

	"github.com/dreval/dreval/internal/lines"
)

// MaxLineBytes is the longest line the readers accept. It bounds memory on
// corrupt input (a file without newlines) while leaving room for the
// longest documents of real corpora.
const MaxLineBytes = 64 << 20

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// lineReader reads a file's lines (package internal/lines) for the
// readers of this package, up to MaxLineBytes a line.
type lineReader struct {
	*lines.Reader
}

func newLineReader(r io.Reader, name string) *lineReader {
	return &lineReader{lines.New(r, name, MaxLineBytes)}
}

// next returns the next line, valid until the following call, or io.EOF.
func (l *lineReader) next() ([]byte, error) { return l.Next() }

// errorf returns an error naming the file and the current line.
func (l *lineReader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", l.Name(), l.Line(), fmt.Sprintf(format, args...))
}

// blank reports whether b holds only ASCII white space.
func blank(b []byte) bool {
	return len(bytes.TrimSpace(b)) == 0
}
