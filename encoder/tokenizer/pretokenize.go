package tokenizer

import (
	"fmt"
	"github.com/dreval/dreval/internal/regex"
	"io"
	"unicode/utf8"
)

// preTokenizer splits normalized text into the words the model sees, as
// Hugging Face's pre-tokenizers do.
type preTokenizer interface {
	// split splits each piece of in (text in p.arena, which it may extend
	// with transformed text) and appends the resulting non-empty pieces to
	// out.
	split(p *pretok, in, out []span) []span
	// writeFingerprint writes the pre-tokenizer's settings.
	writeFingerprint(w io.Writer)
	// toJSON returns the pre-tokenizer as tokenizer.json writes it.
	toJSON() any
}

// pretok is text being pre-tokenized: pieces of one arena.
type pretok struct {
	arena []byte
	spare [][]span
	ms    []mspan
}

// span is one piece: arena[start:end]. first says whether the piece begins
// at the start of the original text (Metaspace's prepend_scheme "first").
type span struct {
	start, end int32
	first      bool
}

// mspan is one part of a piece: a pattern match or the text between two,
// its offsets relative to the piece.
type mspan = regex.Span

// take returns an empty span slice for reuse; give hands one back.
func (p *pretok) take() []span {
	if n := len(p.spare); n > 0 {
		s := p.spare[n-1]
		p.spare = p.spare[:n-1]
		return s[:0]
	}
	return nil
}

func (p *pretok) give(s []span) { p.spare = append(p.spare, s) }

// text returns the bytes of sp.
func (p *pretok) text(sp span) []byte { return p.arena[sp.start:sp.end] }

// behavior is Hugging Face's SplitDelimiterBehavior: what a split does with
// the delimiters it finds.
type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

var behaviorNames = []string{"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"}

func (b behavior) String() string { return behaviorNames[b] }

func parseBehavior(s string) (behavior, bool) {
	for i, n := range behaviorNames {
		if n == s {
			return behavior(i), true
		}
	}
	return 0, false
}

// splitParts turns the parts of piece sp (matches and the text between,
// covering it in order) into pieces as behavior b says, appending the
// non-empty ones to out. It follows NormalizedString::split.
func splitParts(sp span, parts []mspan, b behavior, out []span) []span {
	emit := func(s, e int32) {
		if e > s {
			out = append(out, span{sp.start + s, sp.start + e, sp.first && s == 0})
		}
	}
	switch b {
	case removed:
		for _, m := range parts {
			if !m.Match {
				emit(m.Start, m.End)
			}
		}
	case isolated:
		for _, m := range parts {
			emit(m.Start, m.End)
		}
	case contiguous:
		prev := false
		s, e := int32(-1), int32(0)
		for _, m := range parts {
			if s >= 0 && m.Match == prev {
				e = m.End
			} else {
				if s >= 0 {
					emit(s, e)
				}
				s, e = m.Start, m.End
			}
			prev = m.Match
		}
		if s >= 0 {
			emit(s, e)
		}
	case mergedWithPrevious:
		prev := false
		s, e := int32(-1), int32(0)
		for _, m := range parts {
			if m.Match && !prev && s >= 0 {
				e = m.End
			} else {
				if s >= 0 {
					emit(s, e)
				}
				s, e = m.Start, m.End
			}
			prev = m.Match
		}
		if s >= 0 {
			emit(s, e)
		}
	case mergedWithNext:
		// Walk from the end: a match joins the part after it unless that
		// part is a match too. The pieces are appended backwards, then
		// put in order.
		mark := len(out)
		prev := false
		s, e := int32(-1), int32(0)
		for i := len(parts) - 1; i >= 0; i-- {
			m := parts[i]
			if m.Match && !prev && s >= 0 {
				s = m.Start
			} else {
				if s >= 0 {
					emit(s, e)
				}
				s, e = m.Start, m.End
			}
			prev = m.Match
		}
		if s >= 0 {
			emit(s, e)
		}
		for i, j := mark, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// charParts appends the parts of b where each character for which is
// returns true is a match of its own, as the reference's char patterns do.
func charParts(b []byte, is func(rune) bool, dst []mspan) []mspan {
	last := int32(0)
	for i := 0; i < len(b); {
		r, size := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b[i:])
		}
		if is(r) {
			if last < int32(i) {
				dst = append(dst, mspan{Start: last, End: int32(i), Match: false})
			}
			dst = append(dst, mspan{Start: int32(i), End: int32(i + size), Match: true})
			last = int32(i + size)
		}
		i += size
	}
	if last < int32(len(b)) {
		dst = append(dst, mspan{Start: last, End: int32(len(b)), Match: false})
	}
	return dst
}

// charSplit is a pre-tokenizer that splits on the characters for which is
// returns true, with the given behavior: WhitespaceSplit, Punctuation,
// Digits, CharDelimiterSplit.
type charSplit struct {
	name     string // the type
	is       func(rune) bool
	behavior behavior
	delim    rune // CharDelimiterSplit's delimiter
}

func (c charSplit) split(p *pretok, in, out []span) []span {
	for _, sp := range in {
		p.ms = charParts(p.text(sp), c.is, p.ms[:0])
		out = splitParts(sp, p.ms, c.behavior, out)
	}
	return out
}

func (c charSplit) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "%s behavior=%s", c.name, c.behavior)
	if c.name == "CharDelimiterSplit" {
		fmt.Fprintf(w, " delimiter=%q", c.delim)
	}
}

// bertPreTokenizer splits on whitespace (removed) and isolates punctuation:
// BertPreTokenizer.
type bertPreTokenizer struct{}

func (bertPreTokenizer) writeFingerprint(w io.Writer) { io.WriteString(w, "BertPreTokenizer") }

func (bertPreTokenizer) split(p *pretok, in, out []span) []span {
	tab := classTable()
	for _, sp := range in {
		b := p.text(sp)
		emit := func(s, e int) {
			out = append(out, span{sp.start + int32(s), sp.start + int32(e), sp.first && s == 0})
		}
		start := -1
		for i := 0; i < len(b); {
			if b[i] < utf8.RuneSelf {
				switch asciiClass[b[i]] {
				case aSpace, aSpaceControl:
					if start >= 0 {
						emit(start, i)
						start = -1
					}
					i++
					continue
				case aPunct:
					if start >= 0 {
						emit(start, i)
						start = -1
					}
					emit(i, i+1)
					i++
					continue
				}
				if start < 0 {
					start = i
				}
				i++
				continue
			}
			r, size := utf8.DecodeRune(b[i:])
			c := classOf(tab, r)
			switch {
			case c&cSpace != 0:
				if start >= 0 {
					emit(start, i)
					start = -1
				}
			case c&cPunct != 0:
				if start >= 0 {
					emit(start, i)
					start = -1
				}
				emit(i, i+size)
			default:
				if start < 0 {
					start = i
				}
			}
			i += size
		}
		if start >= 0 {
			emit(start, len(b))
		}
	}
	return out
}

// whitespacePreTokenizer keeps the runs of word characters and the runs of
// other non-space characters: the regular expression \w+|[^\w\s]+ of
// Hugging Face's Whitespace pre-tokenizer.
type whitespacePreTokenizer struct{}

func (whitespacePreTokenizer) writeFingerprint(w io.Writer) { io.WriteString(w, "Whitespace") }

func (whitespacePreTokenizer) split(p *pretok, in, out []span) []span {
	const (
		space = iota
		word
		other
	)
	for _, sp := range in {
		b := p.text(sp)
		start, kind := -1, space
		for i := 0; i < len(b); {
			r, size := rune(b[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRune(b[i:])
			}
			k := other
			switch {
			case isWordChar(r):
				k = word
			case isRegexSpace(r):
				k = space
			}
			if k != kind {
				if start >= 0 {
					out = append(out, span{sp.start + int32(start), sp.start + int32(i), sp.first && start == 0})
				}
				start = -1
				if k != space {
					start = i
				}
				kind = k
			}
			i += size
		}
		if start >= 0 {
			out = append(out, span{sp.start + int32(start), sp.end, sp.first && start == 0})
		}
	}
	return out
}

// metaspace replaces spaces by the replacement character, prepends one as
// its scheme says, and splits before each replacement character: Hugging
// Face's Metaspace pre-tokenizer.
type metaspace struct {
	replacement rune
	scheme      prependScheme
	splitWords  bool
}

// prependScheme is Metaspace's prepend_scheme.
type prependScheme int

const (
	prependAlways prependScheme = iota
	prependFirst
	prependNever
)

var schemeNames = []string{"always", "first", "never"}

func (m metaspace) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "Metaspace replacement=%q prepend_scheme=%s split=%t", m.replacement, schemeNames[m.scheme], m.splitWords)
}

func (m metaspace) split(p *pretok, in, out []span) []span {
	var rep [utf8.UTFMax]byte
	nrep := utf8.EncodeRune(rep[:], m.replacement)
	for _, sp := range in {
		b := p.text(sp)
		startsWith := func() bool {
			r, _ := utf8.DecodeRune(b)
			return r == m.replacement
		}
		prepend := false
		switch m.scheme {
		case prependAlways:
			prepend = !(len(b) > 0 && b[0] == ' ') && !startsWith()
		case prependFirst:
			prepend = sp.first && !(len(b) > 0 && b[0] == ' ') && !startsWith()
		}
		start := int32(len(p.arena))
		if prepend {
			p.arena = append(p.arena, rep[:nrep]...)
		}
		for i := sp.start; i < sp.end; i++ {
			if c := p.arena[i]; c == ' ' {
				p.arena = append(p.arena, rep[:nrep]...)
			} else {
				p.arena = append(p.arena, c)
			}
		}
		ns := span{start, int32(len(p.arena)), sp.first}
		if !m.splitWords {
			out = append(out, ns)
			continue
		}
		r := m.replacement
		p.ms = charParts(p.text(ns), func(c rune) bool { return c == r }, p.ms[:0])
		out = splitParts(ns, p.ms, mergedWithNext, out)
	}
	return out
}

// sequencePre runs pre-tokenizers one after the other.
type sequencePre []preTokenizer

func (q sequencePre) writeFingerprint(w io.Writer) {
	io.WriteString(w, "Sequence[")
	for i, x := range q {
		if i > 0 {
			io.WriteString(w, ", ")
		}
		x.writeFingerprint(w)
	}
	io.WriteString(w, "]")
}

func (q sequencePre) split(p *pretok, in, out []span) []span {
	cur := in
	for i, x := range q {
		dst := out
		if i < len(q)-1 {
			dst = p.take()
		}
		next := x.split(p, cur, dst)
		if i > 0 {
			p.give(cur)
		}
		cur = next
	}
	if len(q) == 0 {
		return append(out, in...)
	}
	return cur
}

// regexSplit is Hugging Face's Split pre-tokenizer: the pattern's matches
// (or, inverted, the text between them) are delimiters, treated as
// behavior says.
type regexSplit struct {
	pattern  pattern
	behavior behavior
	invert   bool
}

func (x *regexSplit) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "Split %s behavior=%s invert=%t", x.pattern.describe(), x.behavior, x.invert)
}

func (x *regexSplit) split(p *pretok, in, out []span) []span {
	for _, sp := range in {
		p.ms = x.pattern.parts(p.text(sp), p.ms[:0])
		if x.invert {
			for i := range p.ms {
				p.ms[i].Match = !p.ms[i].Match
			}
		}
		out = splitParts(sp, p.ms, x.behavior, out)
	}
	return out
}
