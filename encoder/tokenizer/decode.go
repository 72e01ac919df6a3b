package tokenizer

import (
	"strconv"
	"strings"
)

// Decode turns ids back into text as the reference does: special tokens
// are dropped when skipSpecial is set, ids outside the vocabulary are
// dropped silently (as the reference does; perturbed ids can leave the
// vocabulary), continuation pieces ("##ing") are joined to the previous
// piece, other pieces are separated by a space, and the WordPiece decoder's
// cleanup rules (" ." -> ".", " 's" -> "'s", ...) are applied to each piece.
// Without a decoder in the tokenizer file the pieces are joined by spaces.
func (t *Tokenizer) Decode(ids []int32, skipSpecial bool) string {
	var b strings.Builder
	n := 0
	for _, id := range ids {
		tok, ok := t.Token(id)
		if !ok || skipSpecial && t.specialText[tok] {
			continue
		}
		if !t.decoder.present {
			if n > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(tok)
			n++
			continue
		}
		if n > 0 {
			if strings.HasPrefix(tok, t.decoder.prefix) {
				tok = tok[len(t.decoder.prefix):]
			} else {
				tok = " " + tok
			}
		}
		if t.decoder.cleanup {
			tok = cleanup(tok)
		}
		b.WriteString(tok)
		n++
	}
	return b.String()
}

// cleanupRules are the WordPiece decoder's cleanup rules. The rules
// run one after the other in the reference, so they are applied in order.
var cleanupRules = [][2]string{
	{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
	{" n't", "n't"}, {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"},
	{" 've", "'ve"}, {" 're", "'re"},
}

func cleanup(s string) string {
	if !strings.Contains(s, " ") {
		return s
	}
	for _, r := range cleanupRules {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
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
