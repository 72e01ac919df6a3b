// Package pylit reads the Python literals dreval meets in data files: the
// list of answer strings in a DPR question file (Python's repr of a list
// of str) and the header dict of a .npy file ({'descr': '<f4',
// 'fortran_order': False, 'shape': (3, 4), }).
//
// A Parser reads one literal text from left to right; its callers decide
// the grammar (a list of strings, a dict of known keys) and call StringLit,
// Bool and IntTuple where they expect a value. Errors are *Error values
// that give the byte offset in the text; callers add which file and field
// the text came from.
package pylit

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Error is a syntax error at byte Offset of the text being parsed.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg) }

// Parser reads Python literals from a string.
type Parser struct {
	s string
	i int
}

// NewParser returns a parser at the start of s.
func NewParser(s string) *Parser { return &Parser{s: s} }

// Offset returns the byte offset of the parser in its text.
func (p *Parser) Offset() int { return p.i }

// Rest returns the text not yet read.
func (p *Parser) Rest() string { return p.s[p.i:] }

// Errorf returns an *Error at the parser's offset.
func (p *Parser) Errorf(format string, args ...any) error {
	return &Error{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

// Space skips spaces, tabs and line ends.
func (p *Parser) Space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

// Eat consumes c when it is the next byte and reports whether it was.
func (p *Parser) Eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// StringLit reads one string literal. Both quote styles, the u and r
// prefixes and Python 3's escape sequences are understood (\\ \' \" \a \b
// \f \n \r \t \v, octal \ooo, \xhh, \uXXXX, \UXXXXXXXX, backslash-newline);
// an unknown escape keeps its backslash, as Python does. A UTF-16
// surrogate pair written as two \u escapes becomes one character; a lone
// surrogate, which UTF-8 cannot hold, becomes U+FFFD. Triple-quoted
// strings and \N{name} escapes are errors.
func (p *Parser) StringLit() (string, error) {
	raw := false
	for p.i < len(p.s) && strings.IndexByte("uUrR", p.s[p.i]) >= 0 {
		if p.s[p.i] == 'r' || p.s[p.i] == 'R' {
			raw = true
		}
		p.i++
	}
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", p.Errorf("want a quoted string")
	}
	q := p.s[p.i]
	if strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3)) {
		return "", p.Errorf("triple-quoted strings are not supported")
	}
	start := p.i
	p.i++
	var b strings.Builder
	var pendingHigh rune = -1 // a high surrogate waiting for its low half
	flush := func() {
		if pendingHigh >= 0 {
			b.WriteRune(utf8.RuneError)
			pendingHigh = -1
		}
	}
	for {
		if p.i >= len(p.s) {
			p.i = start
			return "", p.Errorf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			flush()
			return b.String(), nil
		case c == '\n' || c == '\r':
			return "", p.Errorf("newline inside a string")
		case c != '\\':
			flush()
			b.WriteByte(c)
			p.i++
			continue
		}
		// A backslash.
		if p.i+1 >= len(p.s) {
			p.i = start
			return "", p.Errorf("unterminated string")
		}
		e := p.s[p.i+1]
		if raw {
			// In a raw string a backslash escapes nothing but keeps a
			// following quote inside the string.
			flush()
			b.WriteByte('\\')
			b.WriteByte(e)
			p.i += 2
			continue
		}
		p.i += 2
		var r rune = -1
		switch e {
		case '\n':
			continue
		case '\\', '\'', '"':
			r = rune(e)
		case 'a':
			r = '\a'
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'v':
			r = '\v'
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := p.i - 1
			k := j
			for k < len(p.s) && k < j+3 && '0' <= p.s[k] && p.s[k] <= '7' {
				k++
			}
			v, _ := strconv.ParseUint(p.s[j:k], 8, 32)
			r = rune(v)
			p.i = k
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if p.i+n > len(p.s) {
				p.i -= 2
				return "", p.Errorf("truncated \\%c escape", e)
			}
			v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
			if err != nil {
				p.i -= 2
				return "", p.Errorf("bad \\%c escape %q", e, p.s[p.i:p.i+2+n])
			}
			if v > utf8.MaxRune {
				p.i -= 2
				return "", p.Errorf("\\U escape %q is beyond U+10FFFF", p.s[p.i:p.i+2+n])
			}
			r = rune(v)
			p.i += n
		case 'N':
			p.i -= 2
			return "", p.Errorf("\\N{...} escapes are not supported")
		default:
			flush()
			b.WriteByte('\\')
			b.WriteByte(e)
			continue
		}
		switch {
		case utf16.IsSurrogate(r) && r < 0xDC00: // high half
			flush()
			pendingHigh = r
		case utf16.IsSurrogate(r): // low half
			if pendingHigh >= 0 {
				b.WriteRune(utf16.DecodeRune(pendingHigh, r))
				pendingHigh = -1
			} else {
				b.WriteRune(utf8.RuneError)
			}
		default:
			flush()
			b.WriteRune(r)
		}
	}
}

// Bool reads True or False.
func (p *Parser) Bool() (bool, error) {
	switch {
	case strings.HasPrefix(p.s[p.i:], "True"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "False"):
		p.i += 5
		return false, nil
	}
	return false, p.Errorf("want True or False")
}

// IntTuple reads a tuple of non-negative integers such as (3, 4), (5,) or
// (), as Python writes a shape. (n) is an error: it is n, not a tuple. A
// Python 2 long suffix (3L) is accepted.
func (p *Parser) IntTuple() ([]int, error) {
	if !p.Eat('(') {
		return nil, p.Errorf("want a tuple")
	}
	var out []int
	for {
		p.Space()
		if p.Eat(')') { // empty tuple, or a trailing comma
			return out, nil
		}
		j := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if j == p.i {
			return nil, p.Errorf("want a non-negative integer")
		}
		v, err := strconv.Atoi(p.s[j:p.i])
		if err != nil {
			digits := p.s[j:p.i]
			p.i = j
			return nil, p.Errorf("dimension %s is out of range", digits)
		}
		p.Eat('L')
		out = append(out, v)
		p.Space()
		if p.Eat(',') {
			continue
		}
		if p.Eat(')') {
			if len(out) == 1 {
				return nil, p.Errorf("(n) is not a tuple, want (n,)")
			}
			return out, nil
		}
		return nil, p.Errorf("want ',' or ')'")
	}
}

// StringList parses a Python list literal of string literals, as written
// by Python's repr of a list of str: ['a', "b's", 'c\xe9'], with a
// trailing comma allowed (strings as StringLit reads them).
func StringList(s string) ([]string, error) {
	p := NewParser(s)
	p.Space()
	if !p.Eat('[') {
		return nil, p.Errorf("want '[' to start a list")
	}
	out := []string{}
	for {
		p.Space()
		if p.Eat(']') {
			break
		}
		str, err := p.StringLit()
		if err != nil {
			return nil, err
		}
		out = append(out, str)
		p.Space()
		if p.Eat(',') {
			continue
		}
		if p.Eat(']') {
			break
		}
		return nil, p.Errorf("want ',' or ']' after a string")
	}
	p.Space()
	if p.i < len(p.s) {
		return nil, p.Errorf("unexpected text after the list")
	}
	return out, nil
}
