package tokenizer

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// byteChar maps each byte to the character GPT-2's byte-level alphabet
// writes it as (bytes_to_unicode): the printable bytes ! .. ~, ¡ .. ¬ and
// ® .. ÿ stand for themselves; the others, in order, for U+0100, U+0101,
// ... (so a space is "Ġ", U+0120). charByte is the inverse.
var byteChar, charByte = func() (bc [256]rune, cb map[rune]byte) {
	cb = make(map[rune]byte, 256)
	printable := func(b int) bool {
		return b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE && b <= 0xFF
	}
	n := rune(0)
	for b := range 256 {
		if printable(b) {
			bc[b] = rune(b)
		} else {
			bc[b] = 256 + n
			n++
		}
		cb[bc[b]] = byte(b)
	}
	return bc, cb
}()

// byteCharUTF8 holds the UTF-8 encoding of each byte's character.
var byteCharUTF8 = func() (t [256]string) {
	for b := range 256 {
		t[b] = string(byteChar[b])
	}
	return t
}()

// appendByteLevel appends the byte-level form of b: each byte written as
// its alphabet character.
func appendByteLevel(dst, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, byteCharUTF8[c]...)
	}
	return dst
}

// byteLevelPre is Hugging Face's ByteLevel pre-tokenizer: a space is
// prepended to each piece that lacks one (add_prefix_space), the piece is
// split as GPT-2's regular expression does (use_regex), and every byte is
// written as its alphabet character.
type byteLevelPre struct {
	addPrefixSpace bool
	useRegex       bool
}

func (b byteLevelPre) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "ByteLevel add_prefix_space=%t use_regex=%t", b.addPrefixSpace, b.useRegex)
}

func (b byteLevelPre) split(p *pretok, in, out []span) []span {
	for _, sp := range in {
		src := sp
		if b.addPrefixSpace && p.arena[sp.start] != ' ' {
			start := int32(len(p.arena))
			p.arena = append(p.arena, ' ')
			p.arena = append(p.arena, p.arena[sp.start:sp.end]...)
			src = span{start, int32(len(p.arena)), sp.first}
		}
		if !b.useRegex {
			start := int32(len(p.arena))
			p.arena = appendByteLevel(p.arena, p.arena[src.start:src.end])
			out = append(out, span{start, int32(len(p.arena)), src.first})
			continue
		}
		for i := src.start; i < src.end; {
			n := gpt2Match(p.arena[i:src.end])
			start := int32(len(p.arena))
			p.arena = appendByteLevel(p.arena, p.arena[i:i+int32(n)])
			out = append(out, span{start, int32(len(p.arena)), src.first && i == src.start})
			i += int32(n)
		}
	}
	return out
}

// GPT-2 character classes: letters (\p{L}), numbers (\p{N}), whitespace
// (\s) and everything else, as the reference's regular expression engine
// (Oniguruma) classifies them.
const (
	gOther = iota
	gLetter
	gNumber
	gSpace
)

var asciiGPT2 = func() (t [utf8.RuneSelf]uint8) {
	for c := range utf8.RuneSelf {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			t[c] = gLetter
		case c >= '0' && c <= '9':
			t[c] = gNumber
		case c == ' ', c >= '\t' && c <= '\r':
			t[c] = gSpace
		}
	}
	return t
}()

// gpt2Class returns the class of the character starting b and its length.
func gpt2Class(b []byte) (uint8, int) {
	if b[0] < utf8.RuneSelf {
		return asciiGPT2[b[0]], 1
	}
	r, size := utf8.DecodeRune(b)
	return onigClass(r), size
}

// gpt2Match returns the length of the match of GPT-2's pre-tokenization
// pattern at the start of b (never 0 for a non-empty b):
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// The alternatives are tried in order, as a backtracking engine does; the
// lookahead (?!\S) makes a run of whitespace followed by a non-space give
// its last character to the next match.
func gpt2Match(b []byte) int {
	if b[0] == '\'' && len(b) >= 2 {
		switch b[1] {
		case 's', 't', 'm', 'd':
			return 2
		case 'r':
			if len(b) >= 3 && b[2] == 'e' {
				return 3
			}
		case 'v':
			if len(b) >= 3 && b[2] == 'e' {
				return 3
			}
		case 'l':
			if len(b) >= 3 && b[2] == 'l' {
				return 3
			}
		}
	}
	// ` ?X+` for X in letters, numbers, others.
	i := 0
	if b[0] == ' ' && len(b) > 1 {
		i = 1
	}
	c, size := gpt2Class(b[i:])
	if c == gSpace && i == 1 {
		// " " followed by whitespace: no ` ?X+` can match with or without
		// the space (a space is not X), so fall to the whitespace rules.
		i, c, size = 0, gSpace, 1
	}
	if c != gSpace {
		n := i + size
		for n < len(b) {
			d, sz := gpt2Class(b[n:])
			if d != c {
				break
			}
			n += sz
		}
		return n
	}
	// Whitespace at b[0]: the run, less its last character when a
	// non-space follows it (and the run is longer than one character).
	n, last := 0, 0
	for n < len(b) {
		d, sz := gpt2Class(b[n:])
		if d != gSpace {
			break
		}
		last = sz
		n += sz
	}
	if n < len(b) && n > last {
		return n - last
	}
	return n
}
