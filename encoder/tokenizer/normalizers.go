package tokenizer

import (
	"bytes"
	"fmt"
	"github.com/dreval/dreval/internal/regex"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites text before pre-tokenization, as Hugging Face's
// normalizers do.
type normalizer interface {
	// appendNormalized appends the normalized form of s to dst. ns holds
	// scratch space.
	appendNormalized(dst []byte, s string, ns *normScratch) []byte
	// keepsStart reports whether the reference aligns the first character
	// of the normalized form of s with the start of s (its offset tracking
	// decides Metaspace's prepend_scheme "first"): false when the
	// normalizer removes the leading characters in a way it records.
	keepsStart(s string) bool
	// writeFingerprint writes the normalizer's settings.
	writeFingerprint(w io.Writer)
	// toJSON returns the normalizer as tokenizer.json writes it.
	toJSON() any
}

// unicodeNorm is one of NFC, NFD, NFKC and NFKD.
type unicodeNorm struct {
	form norm.Form
	name string
}

func (u unicodeNorm) appendNormalized(dst []byte, s string, ns *normScratch) []byte {
	if isASCII(s) {
		return append(dst, s...)
	}
	return appendForm(dst, u.form, s, ns)
}

func (unicodeNorm) keepsStart(string) bool { return true }

func (u unicodeNorm) writeFingerprint(w io.Writer) { io.WriteString(w, u.name) }

// appendForm appends form f of s as the reference computes it: its tables
// are older than Go's, so the code points it does not know (unknownToRef)
// are kept as they are, and the text between them normalized.
func appendForm(dst []byte, f norm.Form, s string, ns *normScratch) []byte {
	if ns == nil {
		ns = new(normScratch)
	}
	for len(s) > 0 {
		i := indexUnknownToRef(s)
		piece := s
		if i >= 0 {
			piece = s[:i]
		}
		ns.it.InitString(f, piece)
		for !ns.it.Done() {
			dst = append(dst, ns.it.Next()...)
		}
		if i < 0 {
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		dst = append(dst, s[i:i+size]...)
		s = s[i+size:]
	}
	return dst
}

// indexUnknownToRef returns the index of the first code point of s whose
// normalization the reference does not know, or -1.
func indexUnknownToRef(s string) int {
	for i, r := range s {
		if r >= utf8.RuneSelf && inTable(r, normUnknown) {
			return i
		}
	}
	return -1
}

// lowercaseNorm is Lowercase: Rust's char::to_lowercase of each character.
type lowercaseNorm struct{}

func (lowercaseNorm) appendNormalized(dst []byte, s string, _ *normScratch) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		dst = appendLower(dst, r)
		i += size
	}
	return dst
}

func (lowercaseNorm) keepsStart(string) bool { return true }

func (lowercaseNorm) writeFingerprint(w io.Writer) { io.WriteString(w, "Lowercase") }

// stripNorm is Strip: leading and/or trailing whitespace removed.
type stripNorm struct{ left, right bool }

func (n stripNorm) appendNormalized(dst []byte, s string, _ *normScratch) []byte {
	if n.left {
		s = trimLeftSpace(s)
	}
	if n.right {
		s = trimRightSpace(s)
	}
	return append(dst, s...)
}

func (n stripNorm) keepsStart(s string) bool {
	if !n.left || s == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	return !isWhitespace(r)
}

func (n stripNorm) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "Strip left=%t right=%t", n.left, n.right)
}

func trimLeftSpace(s string) string {
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if !isWhitespace(r) {
			break
		}
		s = s[size:]
	}
	return s
}

func trimRightSpace(s string) string {
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if !isWhitespace(r) {
			break
		}
		s = s[:len(s)-size]
	}
	return s
}

// stripAccentsNorm is StripAccents: combining marks (category M) removed.
type stripAccentsNorm struct{}

func (stripAccentsNorm) appendNormalized(dst []byte, s string, _ *normScratch) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isCombiningMark(r) {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}

func (stripAccentsNorm) keepsStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return !isCombiningMark(r)
}

func (stripAccentsNorm) writeFingerprint(w io.Writer) { io.WriteString(w, "StripAccents") }

// replaceNorm is Replace: every match of the pattern replaced by content.
type replaceNorm struct {
	pattern pattern
	content string
}

func (n replaceNorm) appendNormalized(dst []byte, s string, _ *normScratch) []byte {
	return n.pattern.appendReplaced(dst, s, n.content)
}

func (n replaceNorm) keepsStart(s string) bool {
	st, e, ok := n.pattern.first(s)
	if !ok || st > 0 || e == st {
		return true
	}
	// The reference aligns inserted text with the last character of the
	// match, so only a one-character match at the start, replaced by
	// something, keeps it.
	_, size := utf8.DecodeRuneInString(s)
	return n.content != "" && e == size
}

func (n replaceNorm) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "Replace %s -> %q", n.pattern.describe(), n.content)
}

// prependNorm is Prepend: text put before a non-empty string.
type prependNorm struct{ prefix string }

func (n prependNorm) appendNormalized(dst []byte, s string, _ *normScratch) []byte {
	if s == "" {
		return dst
	}
	return append(append(dst, n.prefix...), s...)
}

func (prependNorm) keepsStart(string) bool { return true }

func (n prependNorm) writeFingerprint(w io.Writer) { fmt.Fprintf(w, "Prepend %q", n.prefix) }

// nmtNorm is Nmt: ASCII control characters removed, and some code points
// read as spaces.
type nmtNorm struct{}

func nmtRemoved(r rune) bool {
	return r >= 1 && r <= 8 || r == 0xB || r >= 0xE && r <= 0x1F || r == 0x7F || r == 0x8F || r == 0x9F
}

func nmtSpace(r rune) bool {
	switch r {
	case 0x9, 0xA, 0xC, 0xD, 0x1680, 0x2028, 0x2029, 0x2581, 0xFEFF, 0xFFFD:
		return true
	}
	return r >= 0x200B && r <= 0x200F
}

func (nmtNorm) appendNormalized(dst []byte, s string, _ *normScratch) []byte {
	for _, r := range s {
		switch {
		case nmtRemoved(r):
		case nmtSpace(r):
			dst = append(dst, ' ')
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst
}

func (nmtNorm) keepsStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return !nmtRemoved(r)
}

func (nmtNorm) writeFingerprint(w io.Writer) { io.WriteString(w, "Nmt") }

// byteLevelNorm is the ByteLevel normalizer: each byte written as its
// byte-level alphabet character.
type byteLevelNorm struct{}

func (byteLevelNorm) appendNormalized(dst []byte, s string, _ *normScratch) []byte {
	for i := 0; i < len(s); i++ {
		dst = append(dst, byteCharUTF8[s[i]]...)
	}
	return dst
}

func (byteLevelNorm) keepsStart(string) bool { return true }

func (byteLevelNorm) writeFingerprint(w io.Writer) { io.WriteString(w, "ByteLevel") }

// sequenceNorm runs normalizers one after the other.
type sequenceNorm []normalizer

func (q sequenceNorm) appendNormalized(dst []byte, s string, ns *normScratch) []byte {
	if ns == nil {
		ns = new(normScratch)
	}
	if len(q) == 0 {
		return append(dst, s...)
	}
	// Alternate between two buffers; the last step writes into dst.
	a, b := ns.seqA[:0], ns.seqB[:0]
	cur := s
	for i, n := range q {
		if i == len(q)-1 {
			dst = n.appendNormalized(dst, cur, ns)
			break
		}
		a = n.appendNormalized(a[:0], cur, ns)
		cur = bytesView(a)
		a, b = b, a
	}
	ns.seqA, ns.seqB = a, b
	return dst
}

func (q sequenceNorm) keepsStart(s string) bool {
	cur := s
	for i, n := range q {
		if !n.keepsStart(cur) {
			return false
		}
		if i < len(q)-1 {
			cur = string(n.appendNormalized(nil, cur, nil))
		}
	}
	return true
}

func (q sequenceNorm) writeFingerprint(w io.Writer) {
	io.WriteString(w, "Sequence[")
	for i, n := range q {
		if i > 0 {
			io.WriteString(w, ", ")
		}
		n.writeFingerprint(w)
	}
	io.WriteString(w, "]")
}

// pattern is a Replace or Split pattern: a literal string or a regular
// expression (Oniguruma's).
type pattern struct {
	src     string
	isRegex bool
	re      *regex.Regexp // nil for a literal
}

func newPattern(src string, isRegex bool) (pattern, error) {
	p := pattern{src: src, isRegex: isRegex}
	if !isRegex && src == "" {
		// The reference compiles the escaped string: the empty regular
		// expression, which matches between every two characters.
		p.re = regex.Literal("")
		return p, nil
	}
	if isRegex {
		re, err := compileRegex(src)
		if err != nil {
			return p, err
		}
		p.re = re
	}
	return p, nil
}

func (p pattern) describe() string {
	if p.isRegex {
		return fmt.Sprintf("Regex %q", p.src)
	}
	return fmt.Sprintf("String %q", p.src)
}

// parts appends the matches of p in b and the text between them.
func (p pattern) parts(b []byte, dst []mspan) []mspan {
	if p.re != nil {
		return p.re.Split(b, dst)
	}
	prev := 0
	for i := 0; i <= len(b)-len(p.src); {
		j := bytes.Index(b[i:], []byte(p.src))
		if j < 0 {
			break
		}
		s := i + j
		if prev < s {
			dst = append(dst, mspan{Start: int32(prev), End: int32(s), Match: false})
		}
		dst = append(dst, mspan{Start: int32(s), End: int32(s + len(p.src)), Match: true})
		prev = s + len(p.src)
		i = prev
	}
	if prev < len(b) {
		dst = append(dst, mspan{Start: int32(prev), End: int32(len(b)), Match: false})
	}
	return dst
}

// first returns the first match of p in s.
func (p pattern) first(s string) (int, int, bool) {
	if p.re != nil {
		return p.re.Find([]byte(s), 0)
	}
	i := strings.Index(s, p.src)
	if i < 0 {
		return 0, 0, false
	}
	return i, i + len(p.src), true
}

// appendReplaced appends s with every match of p replaced by content.
func (p pattern) appendReplaced(dst []byte, s, content string) []byte {
	if p.re == nil {
		if !strings.Contains(s, p.src) {
			return append(dst, s...)
		}
		for {
			i := strings.Index(s, p.src)
			if i < 0 {
				return append(dst, s...)
			}
			dst = append(append(dst, s[:i]...), content...)
			s = s[i+len(p.src):]
		}
	}
	b := []byte(s)
	for _, m := range p.re.Split(b, nil) {
		if m.Match {
			dst = append(dst, content...)
		} else {
			dst = append(dst, b[m.Start:m.End]...)
		}
	}
	return dst
}

// replaceAll returns s with every match of p replaced by content.
func (p pattern) replaceAll(s, content string) string {
	return string(p.appendReplaced(nil, s, content))
}

// isCombiningMark is StripAccents' test: a mark (category M) in the
// reference's tables.
func isCombiningMark(r rune) bool {
	if r < 0x300 {
		return false
	}
	return adjusted(r, unicode.IsMark, refCombining)
}
