package metrics

import (
	"errors"
	"fmt"
)

// ErrUngrouped is wrapped by the error RunReader.Next returns when a query
// id reappears after its lines have ended: the run is not grouped by query.
var ErrUngrouped = errors.New("run is not grouped by query")

// ParseError reports malformed input: which file, which line (1-based; 0
// when the problem concerns the whole file) and what was expected.
type ParseError struct {
	File string
	Line int
	Msg  string
	Err  error // an underlying cause, such as ErrUngrouped; may be nil
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func (e *ParseError) Unwrap() error { return e.Err }

func parseErrorf(file string, line int, format string, args ...any) *ParseError {
	return &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}
