// Package lines reads text files line by line, as every line-oriented
// format of dreval is read (BEIR's JSON lines, TREC runs and qrels, DPR's
// question files): without the line terminator (\n or \r\n), without a
// UTF-8 byte order mark at the start of the file, counting lines from 1,
// and refusing a line longer than the reader's limit instead of growing
// without bound.
package lines

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// bufferSize is the read buffer of a Reader; a line longer than it is
// gathered in a buffer of its own, up to the limit.
const bufferSize = 256 << 10

var bom = []byte{0xEF, 0xBB, 0xBF}

// Reader reads the lines of one input.
type Reader struct {
	br   *bufio.Reader
	name string
	line int
	max  int
	long []byte // a line longer than br's buffer
}

// New returns a Reader of r, named name in errors, refusing lines longer
// than limit bytes (terminator included). A reader that says it holds less
// than the read buffer (a bytes.Reader or strings.Reader: an upload, a
// request, a test's input) gets a buffer of its size.
func New(r io.Reader, name string, limit int) *Reader {
	size := bufferSize
	if l, ok := r.(interface{ Len() int }); ok && l.Len() < size {
		size = max(l.Len()+1, 16) // bufio's smallest buffer
	}
	return &Reader{br: bufio.NewReaderSize(r, size), name: name, max: limit}
}

// Error is a line that could not be read: too long, or the input failed.
type Error struct {
	File string
	Line int
	// Max is the limit a line exceeded; 0 for a read error (Err).
	Max int
	Err error
}

func (e *Error) Error() string {
	if e.Max > 0 {
		return fmt.Sprintf("%s:%d: line longer than %d bytes", e.File, e.Line, e.Max)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Next returns the next line, valid until the following call, io.EOF
// after the last, or an *Error.
func (l *Reader) Next() ([]byte, error) {
	chunk, err := l.br.ReadSlice('\n')
	b := chunk
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], chunk...)
		for err == bufio.ErrBufferFull {
			if len(l.long) > l.max {
				return nil, &Error{File: l.name, Line: l.line + 1, Max: l.max}
			}
			chunk, err = l.br.ReadSlice('\n')
			l.long = append(l.long, chunk...)
		}
		b = l.long
	}
	switch {
	case len(b) > l.max:
		return nil, &Error{File: l.name, Line: l.line + 1, Max: l.max}
	case err == io.EOF && len(b) == 0:
		return nil, io.EOF
	case err != nil && err != io.EOF:
		return nil, &Error{File: l.name, Line: l.line + 1, Err: err}
	}
	l.line++
	if l.line == 1 {
		b = bytes.TrimPrefix(b, bom)
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}

// Line returns the number of the line Next returned last (1-based; 0
// before the first).
func (l *Reader) Line() int { return l.line }

// Name returns how errors name the input.
func (l *Reader) Name() string { return l.name }
