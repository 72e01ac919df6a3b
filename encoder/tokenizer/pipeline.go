package tokenizer

import (
	"unicode/utf8"
	"unsafe"
)

// appendContent runs the pipeline over text and appends the content ids
// (no special tokens): added tokens written with normalized=false are
// matched in the raw text; each piece between them is normalized, added
// tokens with normalized=true are matched in the result, and each piece
// between those is pre-tokenized and its words given to the model.
func (t *Tokenizer) appendContent(dst []int32, text string, s *scratch) []int32 {
	if !utf8.ValidString(text) {
		text = validUTF8(text)
	}
	if len(t.rawAdded.tokens) == 0 {
		return t.appendSegment(dst, text, true, s)
	}
	start := 0
	t.rawAdded.each(text, func(id int32, mStart, mEnd int) {
		if start < mStart {
			dst = t.appendSegment(dst, text[start:mStart], start == 0, s)
		}
		dst = append(dst, id)
		start = mEnd
	})
	if start < len(text) {
		dst = t.appendSegment(dst, text[start:], start == 0, s)
	}
	return dst
}

// validUTF8 replaces every invalid byte of s with U+FFFD.
func validUTF8(s string) string {
	b := make([]byte, 0, len(s)+8)
	for _, r := range s {
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// stringBytes returns s as a byte slice without copying; it must not be
// written to.
func stringBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// needsFirst reports whether a pre-tokenizer treats the piece that starts
// the text apart (Metaspace with prepend_scheme first).
func needsFirst(p preTokenizer) bool {
	switch x := p.(type) {
	case metaspace:
		return x.scheme == prependFirst
	case sequencePre:
		for _, q := range x {
			if needsFirst(q) {
				return true
			}
		}
	}
	return false
}

// bytesView returns b as a string without copying; b must not change while
// the string is in use.
func bytesView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// appendSegment encodes a piece of text that holds no raw-matched added
// token. first says whether it starts the text.
func (t *Tokenizer) appendSegment(dst []int32, seg string, first bool, s *scratch) []int32 {
	var normText []byte
	if t.norm == nil {
		s.norm = append(s.norm[:0], seg...)
		normText = s.norm
	} else {
		s.norm = t.norm.appendNormalized(s.norm[:0], seg, &s.ns)
		normText = s.norm
		if first && t.needFirst {
			first = t.norm.keepsStart(seg)
		}
	}
	if len(normText) == 0 {
		return dst
	}
	if len(t.normAdded.tokens) == 0 {
		return t.appendWords(dst, normText, first, s)
	}
	// Added tokens with normalized=true match in the normalized text. The
	// callback may not touch s.norm, which appendWords leaves alone.
	nt := bytesView(normText)
	start := 0
	t.normAdded.each(nt, func(id int32, mStart, mEnd int) {
		if start < mStart {
			dst = t.appendWords(dst, normText[start:mStart], first && start == 0, s)
		}
		dst = append(dst, id)
		start = mEnd
	})
	if start < len(nt) {
		dst = t.appendWords(dst, normText[start:], first && start == 0, s)
	}
	return dst
}

// appendWords pre-tokenizes normalized text and appends the model's ids of
// each word.
func (t *Tokenizer) appendWords(dst []int32, b []byte, first bool, s *scratch) []int32 {
	if len(b) == 0 {
		return dst
	}
	if t.pre == nil {
		return t.model.appendIDs(dst, b, s)
	}
	p := &s.pt
	p.arena = append(p.arena[:0], b...)
	in := append(p.take(), span{0, int32(len(b)), first})
	out := t.pre.split(p, in, p.take())
	for _, sp := range out {
		if sp.end > sp.start {
			dst = t.model.appendIDs(dst, p.arena[sp.start:sp.end], s)
		}
	}
	p.give(in)
	p.give(out)
	return dst
}
