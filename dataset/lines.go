package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// MaxLineBytes is the longest line the readers accept. It bounds memory on
// corrupt input (a file without newlines) while leaving room for the
// longest documents of real corpora.
const MaxLineBytes = 64 << 20

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// lineReader returns the lines of a text file one at a time, without the
// line terminator (LF or CRLF), dropping a UTF-8 byte order mark at the
// start of the file, and counting lines for error messages.
type lineReader struct {
	br   *bufio.Reader
	name string
	line int // number of the line last returned, 1-based
	buf  []byte
	max  int // longest accepted line
}

func newLineReader(r io.Reader, name string) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, bufferSize(r, 64<<10)), name: name, max: MaxLineBytes}
}

// bufferSize returns the read buffer size for r: size, or less for a
// reader that says it holds less (a bytes.Reader or strings.Reader of an
// upload, a test's input), so that reading a small input allocates little.
func bufferSize(r io.Reader, size int) int {
	if l, ok := r.(interface{ Len() int }); ok && l.Len() < size {
		return max(l.Len()+1, 16) // bufio's smallest buffer
	}
	return size
}

// next returns the next line, valid until the following call, or io.EOF.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		if len(l.buf)+len(chunk) > l.max {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", l.name, l.line+1, l.max)
		}
		l.buf = append(l.buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			if len(l.buf) == 0 {
				return nil, io.EOF
			}
		} else if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", l.name, l.line+1, err)
		}
		break
	}
	l.line++
	b := l.buf
	if l.line == 1 {
		b = bytes.TrimPrefix(b, utf8BOM)
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	return b, nil
}

// errorf returns an error naming the file and the current line.
func (l *lineReader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", l.name, l.line, fmt.Sprintf(format, args...))
}

// blank reports whether b holds only ASCII white space.
func blank(b []byte) bool {
	return len(bytes.TrimSpace(b)) == 0
}
