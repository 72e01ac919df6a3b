package dataset

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// parsePyStrings parses a Python list literal of string literals, as
// written by Python's repr of a list of str: ['a', "b's", 'c\xe9']. Both
// quote styles, the u and r prefixes, a trailing comma and Python 3's
// escape sequences are understood (\\ \' \" \a \b \f \n \r \t \v, octal
// \ooo, \xhh, \uXXXX, \UXXXXXXXX, backslash-newline); an unknown escape
// keeps its backslash, as Python does. A UTF-16 surrogate pair written as
// two \u escapes becomes one character; a lone surrogate, which UTF-8
// cannot hold, becomes U+FFFD. Triple-quoted strings and \N{name} escapes
// are errors. Errors give the byte offset in s.
func parsePyStrings(s string) ([]string, error) {
	p := pyParser{s: s}
	p.space()
	if !p.eat('[') {
		return nil, p.errorf("want '[' to start a list")
	}
	out := []string{}
	for {
		p.space()
		if p.eat(']') {
			break
		}
		str, err := p.str()
		if err != nil {
			return nil, err
		}
		out = append(out, str)
		p.space()
		if p.eat(',') {
			continue
		}
		if p.eat(']') {
			break
		}
		return nil, p.errorf("want ',' or ']' after a string")
	}
	p.space()
	if p.i < len(p.s) {
		return nil, p.errorf("unexpected text after the list")
	}
	return out, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("python list at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str parses one string literal at p.i.
func (p *pyParser) str() (string, error) {
	raw := false
	for p.i < len(p.s) && strings.IndexByte("uUrR", p.s[p.i]) >= 0 {
		if p.s[p.i] == 'r' || p.s[p.i] == 'R' {
			raw = true
		}
		p.i++
	}
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", p.errorf("want a quoted string")
	}
	q := p.s[p.i]
	if strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3)) {
		return "", p.errorf("triple-quoted strings are not supported")
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
			return "", p.errorf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			flush()
			return b.String(), nil
		case c == '\n' || c == '\r':
			return "", p.errorf("newline inside a string")
		case c != '\\':
			flush()
			b.WriteByte(c)
			p.i++
			continue
		}
		// A backslash.
		if p.i+1 >= len(p.s) {
			p.i = start
			return "", p.errorf("unterminated string")
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
				return "", p.errorf("truncated \\%c escape", e)
			}
			v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
			if err != nil {
				p.i -= 2
				return "", p.errorf("bad \\%c escape %q", e, p.s[p.i:p.i+2+n])
			}
			if v > utf8.MaxRune {
				p.i -= 2
				return "", p.errorf("\\U escape %q is beyond U+10FFFF", p.s[p.i:p.i+2+n])
			}
			r = rune(v)
			p.i += n
		case 'N':
			p.i -= 2
			return "", p.errorf("\\N{...} escapes are not supported")
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
