package tokenizer

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// decoder turns the tokens of a sequence back into text pieces, as Hugging
// Face's decoders do (decode_chain); Decode joins the pieces.
type decoder interface {
	decodeChain(tokens []string) []string
	// toJSON returns the decoder as tokenizer.json writes it.
	toJSON() any
}

// Decode turns ids back into text as the reference does: special tokens
// are dropped when skipSpecial is set, ids outside the vocabulary are
// dropped silently (as the reference does; perturbed ids can leave the
// vocabulary), and the remaining tokens go through the tokenizer's decoder
// (for BERT: continuation pieces "##ing" joined to the previous piece, the
// others separated by a space, cleanup rules " ." -> "."; for byte-level
// BPE: the bytes the tokens stand for, read as UTF-8 with each invalid
// sequence shown as U+FFFD; for SentencePiece: "▁" read as a space).
// Without a decoder in the tokenizer file the tokens are joined by spaces.
func (t *Tokenizer) Decode(ids []int32, skipSpecial bool) string {
	_, spm := t.decoder.(*spmDecoder)
	tokens := make([]string, 0, len(ids))
	for _, id := range ids {
		tok, ok := t.Token(id)
		// SentencePiece's decoder sees control pieces (they end a run of
		// byte pieces) and makes them invisible itself.
		if !ok || skipSpecial && t.specialText[tok] && !spm {
			continue
		}
		tokens = append(tokens, tok)
	}
	switch d := t.decoder.(type) {
	case nil:
		return strings.Join(tokens, " ")
	case *spmDecoder:
		dd := *d
		dd.showControls = !skipSpecial
		return strings.Join(dd.decodeChain(tokens), "")
	}
	return strings.Join(t.decoder.decodeChain(tokens), "")
}

// Tokens returns the vocabulary strings of ids, for display; an id outside
// the vocabulary shows as "<id N?>" rather than being dropped.
func (t *Tokenizer) Tokens(ids []int32) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		if tok, ok := t.Token(id); ok {
			out[i] = tok
		} else {
			out[i] = "<id " + strconv.Itoa(int(id)) + "?>"
		}
	}
	return out
}

// wordPieceDecoder joins continuation pieces to the previous piece and
// puts a space before the others; with cleanup it applies the cleanup
// rules to each piece.
type wordPieceDecoder struct {
	prefix  string
	cleanup bool
}

func (d wordPieceDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, tok := range tokens {
		if i > 0 {
			if strings.HasPrefix(tok, d.prefix) {
				tok = tok[len(d.prefix):]
			} else {
				tok = " " + tok
			}
		}
		if d.cleanup {
			tok = cleanup(tok)
		}
		out[i] = tok
	}
	return out
}

// cleanupRules are the WordPiece decoder's cleanup rules. The rules
// run one after the other in the reference, so they are applied in order.
var cleanupRules = [][2]string{
	{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
	{" n't", "n't"}, {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"},
	{" 've", "'ve"}, {" 're", "'re"},
}

// cleanup applies cleanupRules to s. Every rule's pattern starts with a
// space and one of the bytes .?!,'nd, and a rule only runs where s holds
// that pair: no rule makes a pair a later rule starts with unless s held
// it already (the ones that remove a space before X join the byte before
// it to X again; " ' " leaves " '" only where s had it), so the result is
// that of running every rule (FuzzCleanup checks it against them).
func cleanup(s string) string {
	var pairs uint8 // bit i: s holds a space followed by cleanupLead[i]
	for i := 0; i+1 < len(s); i++ {
		if s[i] == ' ' {
			if j := strings.IndexByte(cleanupLead, s[i+1]); j >= 0 {
				pairs |= 1 << j
			}
		}
	}
	if pairs == 0 {
		return s
	}
	for _, r := range cleanupRules {
		if pairs&(1<<strings.IndexByte(cleanupLead, r[0][1])) != 0 {
			s = strings.ReplaceAll(s, r[0], r[1])
		}
	}
	return s
}

// cleanupLead are the bytes after the space that cleanupRules' patterns
// start with.
const cleanupLead = ".?!,'nd"

// byteLevelDecoder turns byte-level tokens back into the bytes they stand
// for (a token holding a character outside the alphabet stands for its own
// UTF-8 bytes) and reads all of them as UTF-8, each invalid sequence
// becoming U+FFFD (Rust's String::from_utf8_lossy).
type byteLevelDecoder struct{}

func (byteLevelDecoder) decodeChain(tokens []string) []string {
	var b []byte
	for _, tok := range tokens {
		mark := len(b)
		ok := true
		for _, r := range tok {
			c, in := charByte[r]
			if !in {
				ok = false
				break
			}
			b = append(b, c)
		}
		if !ok {
			b = append(b[:mark], tok...)
		}
	}
	return []string{string(appendLossy(nil, b))}
}

// appendLossy appends b with every invalid UTF-8 sequence replaced by
// U+FFFD, one per maximal subpart of a valid sequence, as Rust's
// from_utf8_lossy (and the WHATWG decoder) does: "\xe2\x82" is one
// replacement character, "\xff\xfe" two.
func appendLossy(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		if r, size := utf8.DecodeRune(b[i:]); r != utf8.RuneError || size > 1 {
			dst = append(dst, b[i:i+size]...)
			i += size
			continue
		}
		n := invalidLen(b[i:])
		dst = append(dst, "\uFFFD"...)
		i += n
	}
	return dst
}

// invalidLen returns the length of the invalid sequence at the start of b:
// the bytes that begin a valid sequence but do not complete one, or 1.
func invalidLen(b []byte) int {
	cont := func(i int, lo, hi byte) bool { return i < len(b) && b[i] >= lo && b[i] <= hi }
	c := b[0]
	switch {
	case c >= 0xE0 && c <= 0xEF:
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xE0 {
			lo = 0xA0
		} else if c == 0xED {
			hi = 0x9F
		}
		if cont(1, lo, hi) {
			return 2
		}
	case c >= 0xF0 && c <= 0xF4:
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
		if cont(1, lo, hi) {
			if cont(2, 0x80, 0xBF) {
				return 3
			}
			return 2
		}
	}
	return 1
}

// metaspaceDecoder replaces the replacement character by a space, except
// at the start of the first token when the scheme prepends one.
type metaspaceDecoder struct {
	replacement rune
	scheme      prependScheme
	splitWords  bool // only written back to the file
}

func (d metaspaceDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, tok := range tokens {
		// The reference drops every replacement character of the first
		// token when the scheme prepends one, not only its first.
		var b strings.Builder
		for _, r := range tok {
			switch {
			case r != d.replacement:
				b.WriteRune(r)
			case i == 0 && d.scheme != prependNever:
			default:
				b.WriteByte(' ')
			}
		}
		out[i] = b.String()
	}
	return out
}

// byteFallbackDecoder turns runs of <0xNN> tokens into the text their
// bytes spell, or one U+FFFD per byte when they are not valid UTF-8.
type byteFallbackDecoder struct{}

func (byteFallbackDecoder) decodeChain(tokens []string) []string {
	out := make([]string, 0, len(tokens))
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, tok := range tokens {
		if b, ok := byteToken(tok); ok {
			pending = append(pending, b)
			continue
		}
		flush()
		out = append(out, tok)
	}
	flush()
	return out
}

// byteToken reads a byte-fallback token "<0xNN>".
func byteToken(tok string) (byte, bool) {
	if len(tok) != 6 || !strings.HasPrefix(tok, "<0x") || tok[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(tok[3:5], 16, 8)
	if err != nil {
		return 0, false
	}
	return byte(v), true
}

// fuseDecoder joins all tokens into one.
type fuseDecoder struct{}

func (fuseDecoder) decodeChain(tokens []string) []string {
	return []string{strings.Join(tokens, "")}
}

// stripDecoder removes up to start leading and stop trailing copies of
// content from each token.
type stripDecoder struct {
	content     rune
	start, stop int
}

func (d stripDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, tok := range tokens {
		rs := []rune(tok)
		lo := 0
		for lo < d.start && lo < len(rs) && rs[lo] == d.content {
			lo++
		}
		hi := len(rs)
		for n := 0; n < d.stop && hi > lo && rs[hi-1] == d.content; n++ {
			hi--
		}
		out[i] = string(rs[lo:hi])
	}
	return out
}

// replaceDecoder replaces the pattern's matches in each token by content.
type replaceDecoder struct {
	pattern pattern
	content string
}

func (d replaceDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, tok := range tokens {
		out[i] = d.pattern.replaceAll(tok, d.content)
	}
	return out
}

// bpeDecoder puts a space where a token ends with the end-of-word suffix.
type bpeDecoder struct{ suffix string }

func (d bpeDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, tok := range tokens {
		rep := " "
		if i == len(tokens)-1 {
			rep = ""
		}
		out[i] = strings.ReplaceAll(tok, d.suffix, rep)
	}
	return out
}

// sequenceDecoder runs decoders one after the other.
type sequenceDecoder []decoder

func (q sequenceDecoder) decodeChain(tokens []string) []string {
	for _, d := range q {
		tokens = d.decodeChain(tokens)
	}
	return tokens
}
