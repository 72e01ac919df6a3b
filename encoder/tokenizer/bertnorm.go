package tokenizer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// bertNormalizer is Hugging Face's BertNormalizer. Its character classes
// follow the Rust tokenizers library exactly, which is not always what Go's
// unicode package says (the Rust crate's category tables are older than
// Go's); the differences are listed in unicode_tables.go and checked code
// point by code point against the reference by TestUnicodeClasses.
type bertNormalizer struct {
	cleanText       bool
	chineseChars    bool
	stripAccents    bool  // resolved: a JSON null follows lowercase
	stripAccentsRaw *bool // as written (nil = follow lowercase)
	lowercase       bool
}

func (n *bertNormalizer) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "BertNormalizer clean_text=%t chinese=%t strip_accents=%t lowercase=%t",
		n.cleanText, n.chineseChars, n.stripAccents, n.lowercase)
}

// keepsStart: the reference records characters removed by clean_text and
// by strip_accents, so a text starting with one loses its start.
func (n *bertNormalizer) keepsStart(s string) bool {
	if s == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	c := classOf(classTable(), r)
	if n.cleanText && c&cRemoved != 0 {
		return false
	}
	return !(n.stripAccents && c&cMark != 0)
}

// ASCII character classes used by the fast paths.
const (
	aKeep         = iota // letter, digit or other kept character
	aRemove              // control character removed by clean_text
	aSpace               // whitespace
	aPunct               // punctuation, isolated by the pre-tokenizer
	aSpaceControl        // \v and \f: whitespace, removed by clean_text
)

var asciiClass = func() (c [utf8.RuneSelf]uint8) {
	for i := range c {
		r := rune(i)
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == ' ':
			c[i] = aSpace
		case r == '\v' || r == '\f':
			// Whitespace, but also Cc: clean_text removes them.
			c[i] = aSpaceControl
		case r < 0x20 || r == 0x7f:
			c[i] = aRemove
		case r >= '!' && r <= '/', r >= ':' && r <= '@', r >= '[' && r <= '`', r >= '{' && r <= '~':
			c[i] = aPunct
		}
	}
	return c
}()

// isWhitespace reports whether r is whitespace as Rust's char::is_whitespace
// defines it (the Unicode White_Space property).
func isWhitespace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiClass[r] == aSpace || asciiClass[r] == aSpaceControl
	}
	return unicode.IsSpace(r)
}

// isRemoved reports whether clean_text drops r: NUL, U+FFFD and the
// categories Cc (except tab, newline, carriage return), Cf and Co.
func isRemoved(r rune) bool {
	if r < utf8.RuneSelf {
		return r != '\t' && r != '\n' && r != '\r' && (r < 0x20 || r == 0x7f)
	}
	if r == utf8.RuneError {
		return true
	}
	if inTable(r, otherAdded) {
		return true
	}
	if inTable(r, otherDropped) {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co)
}

// isPunct reports whether the BertPreTokenizer isolates r: ASCII
// punctuation and the Unicode P categories.
func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiClass[r] == aPunct
	}
	if inTable(r, punctAdded) {
		return true
	}
	if inTable(r, punctDropped) {
		return false
	}
	return unicode.IsPunct(r)
}

// isNonspacingMark reports whether strip_accents removes r (category Mn).
func isNonspacingMark(r rune) bool {
	if r < 0x300 {
		return false
	}
	if inTable(r, markAdded) {
		return true
	}
	if inTable(r, markDropped) {
		return false
	}
	return unicode.Is(unicode.Mn, r)
}

// isChinese reports whether r is in the CJK blocks BertNormalizer pads
// with spaces. The ranges are the Rust library's, including its gap at
// U+2B820..U+2B91F.
func isChinese(r rune) bool {
	switch {
	case r < 0x3400:
		return false
	case r <= 0x4DBF:
		return true
	case r >= 0x4E00 && r <= 0x9FFF,
		r >= 0xF900 && r <= 0xFAFF,
		r >= 0x20000 && r <= 0x2A6DF,
		r >= 0x2A700 && r <= 0x2B73F,
		r >= 0x2B740 && r <= 0x2B81F,
		r >= 0x2B920 && r <= 0x2CEAF,
		r >= 0x2F800 && r <= 0x2FA1F:
		return true
	}
	return false
}

// appendLower appends the full lowercase mapping of r, as Rust's
// char::to_lowercase computes it.
func appendLower(dst []byte, r rune) []byte {
	if r >= lowerExtraMin && r <= lowerExtraMax {
		if l, ok := lowerExtra[r]; ok {
			return utf8.AppendRune(dst, l)
		}
	}
	return appendLowerGo(dst, r)
}

// appendLowerGo is Go's simple lowercase mapping plus the one unconditional
// multi-character mapping: U+0130 lowercases to "i" followed by U+0307.
func appendLowerGo(dst []byte, r rune) []byte {
	if r == 0x130 {
		return append(dst, "i\u0307"...)
	}
	return utf8.AppendRune(dst, unicode.ToLower(r))
}

// lowerExtraMin and lowerExtraMax bound the keys of lowerExtra, so most
// characters skip the map lookup.
var lowerExtraMin, lowerExtraMax = func() (lo, hi rune) {
	lo, hi = unicode.MaxRune, -1
	for r := range lowerExtra {
		lo, hi = min(lo, r), max(hi, r)
	}
	return lo, hi
}()

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// normScratch holds reusable buffers of the normalizers.
type normScratch struct {
	tmp        []byte
	nfd        []byte
	it         norm.Iter
	seqA, seqB []byte
}

// appendNormalized appends the normalized form of s to dst. ns holds scratch
// space, returned for reuse. Invalid UTF-8 bytes in s read as U+FFFD.
func (n *bertNormalizer) appendNormalized(dst []byte, s string, ns *normScratch) []byte {
	if isASCII(s) {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if n.cleanText {
				switch asciiClass[c] {
				case aRemove, aSpaceControl:
					continue
				case aSpace:
					if c == '\t' || c == '\n' || c == '\r' {
						c = ' '
					}
				}
			}
			if n.lowercase && 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
		}
		return dst
	}
	if ns == nil {
		ns = new(normScratch)
	}
	// Step 1: clean text and pad CJK characters, one character at a time,
	// noting whether NFD or lowercasing has anything to do.
	tab := classTable()
	tmp := ns.tmp[:0]
	var seen uint8
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		c := classOf(tab, r)
		if n.cleanText {
			if c&cRemoved != 0 {
				continue
			}
			if c&cSpace != 0 {
				r, c = ' ', classOf(tab, ' ')
			}
		}
		seen |= c
		if n.chineseChars && c&cChinese != 0 {
			tmp = append(tmp, ' ')
			tmp = utf8.AppendRune(tmp, r)
			tmp = append(tmp, ' ')
			continue
		}
		tmp = utf8.AppendRune(tmp, r)
	}
	ns.tmp = tmp // keep the grown buffer
	// Step 2: NFD over the whole text (canonical reordering included).
	src := tmp
	if n.stripAccents && seen&(cDecomposes|cCombining) != 0 {
		ns.nfd = appendNFD(ns.nfd[:0], tmp, &ns.it)
		src = ns.nfd
		seen = cCased | cMark // unknown after decomposition
	}
	// Step 3: drop nonspacing marks and lowercase.
	strip := n.stripAccents && seen&cMark != 0
	lower := n.lowercase && seen&cCased != 0
	if !strip && !lower {
		return append(dst, src...)
	}
	for i := 0; i < len(src); {
		r, size := rune(src[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(src[i:])
		}
		c := classOf(tab, r)
		if strip && c&cMark != 0 {
			i += size
			continue
		}
		if lower && c&cCased != 0 {
			dst = appendLower(dst, r)
		} else {
			dst = append(dst, src[i:i+size]...)
		}
		i += size
	}
	return dst
}

// Character class flags, precomputed for the Basic Multilingual Plane.
const (
	cRemoved    = 1 << iota // clean_text removes it
	cSpace                  // whitespace
	cPunct                  // punctuation
	cMark                   // nonspacing mark (strip_accents removes it)
	cChinese                // CJK character padded with spaces
	cCased                  // lowercasing changes it
	cDecomposes             // NFD changes it
	cCombining              // canonical combining class > 0 (NFD may reorder)
)

var (
	bmpOnce  sync.Once
	bmpClass *[0x10000]uint8
)

// classTable returns the precomputed classes of the BMP, decoding them
// from bmpClassRuns on first use (microseconds; computing them with
// computeClass took 77 ms natively and 0.4-1.4 s under js/wasm, in every
// browser worker that opened a model). TestClassTable checks the table
// against computeClass for every code point of the BMP.
func classTable() *[0x10000]uint8 {
	bmpOnce.Do(func() {
		t, err := decodeClassRuns(bmpClassRuns)
		if err != nil {
			// bmpClassRuns is generated; TestClassTable fails first.
			t = computeClassTable()
		}
		bmpClass = t
	})
	return bmpClass
}

// computeClassTable computes the classes of the BMP with computeClass.
func computeClassTable() *[0x10000]uint8 {
	t := new([0x10000]uint8)
	for r := rune(0); r < 0x10000; r++ {
		t[r] = computeClass(r)
	}
	return t
}

// encodeClassRuns encodes a class table as runs: each run a class byte
// and its length as a uvarint.
func encodeClassRuns(t *[0x10000]uint8) string {
	var b []byte
	for start := 0; start < len(t); {
		end := start + 1
		for end < len(t) && t[end] == t[start] {
			end++
		}
		b = append(b, t[start])
		b = binary.AppendUvarint(b, uint64(end-start))
		start = end
	}
	return string(b)
}

// decodeClassRuns decodes encodeClassRuns's runs; they must cover the BMP
// exactly.
func decodeClassRuns(runs string) (*[0x10000]uint8, error) {
	t := new([0x10000]uint8)
	r := 0
	for i := 0; i < len(runs); {
		c := runs[i]
		n, size := binary.Uvarint([]byte(runs[i+1 : min(i+1+binary.MaxVarintLen64, len(runs))]))
		if size <= 0 || n == 0 || n > uint64(len(t)-r) {
			return nil, fmt.Errorf("class runs: bad run at byte %d", i)
		}
		fill := t[r : r+int(n)]
		for j := range fill {
			fill[j] = c
		}
		r += int(n)
		i += 1 + size
	}
	if r != len(t) {
		return nil, fmt.Errorf("class runs cover %d code points, want %d", r, len(t))
	}
	return t, nil
}

func classOf(tab *[0x10000]uint8, r rune) uint8 {
	if r < 0x10000 {
		return tab[r]
	}
	return computeClass(r)
}

// computeClass derives the class flags of r from the predicates above.
func computeClass(r rune) uint8 {
	if r >= 0xD800 && r <= 0xDFFF {
		return cRemoved // never decoded from UTF-8; U+FFFD stands in
	}
	var c uint8
	if r == 0 || isRemoved(r) {
		c |= cRemoved
	}
	if isWhitespace(r) {
		c |= cSpace
	}
	if isPunct(r) {
		c |= cPunct
	}
	if isNonspacingMark(r) {
		c |= cMark
	}
	if isChinese(r) {
		c |= cChinese
	}
	var buf [8]byte
	if l := appendLower(buf[:0], r); string(l) != string(r) {
		c |= cCased
	}
	p := norm.NFD.PropertiesString(string(r))
	if !norm.NFD.IsNormalString(string(r)) && string(r) != nfdKept { // Hangul has no Decomposition()
		c |= cDecomposes
	}
	if p.CCC() != 0 {
		c |= cCombining
	}
	return c
}

// nfdKept is the one code point Go's NFD decomposes and the reference's
// (older) NFD tables leave alone: U+11938 DIVES AKURU VOWEL SIGN O.
const nfdKept = "\U00011938"

// appendNFD appends the NFD form of src to dst, as the reference computes
// it. (norm.Form.Append would re-normalize the end of dst together with
// src, so the iterator is used instead.)
func appendNFD(dst, src []byte, it *norm.Iter) []byte {
	for {
		i := bytes.Index(src, []byte(nfdKept))
		piece := src
		if i >= 0 {
			piece = src[:i]
		}
		it.Init(norm.NFD, piece)
		for !it.Done() {
			dst = append(dst, it.Next()...)
		}
		if i < 0 {
			return dst
		}
		// U+11938 is a starter, so no reordering crosses it.
		dst = append(dst, nfdKept...)
		src = src[i+len(nfdKept):]
	}
}

// runeRange is an inclusive range of code points.
type runeRange struct{ lo, hi rune }

func inTable(r rune, t []runeRange) bool {
	for _, rr := range t {
		if r < rr.lo {
			return false
		}
		if r <= rr.hi {
			return true
		}
	}
	return false
}
