package tokenizer

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// wordPiece is Hugging Face's WordPiece model: greedy longest-match-first
// subwords, continuations carrying the prefix ("##"); the whole word becomes
// the unknown token when some part matches nothing or when it has more than
// maxChars characters.
type wordPiece struct {
	ids      map[string]int32
	unk      string
	unk32    int32
	prefix   string
	maxChars int
}

func (m *wordPiece) kind() string { return "WordPiece" }

func (m *wordPiece) unkID() int32 { return m.unk32 }

func (m *wordPiece) appendIDs(dst []int32, w []byte, s *scratch) []int32 {
	if len(w) > m.maxChars && utf8.RuneCount(w) > m.maxChars {
		return append(dst, m.unk32)
	}
	mark := len(dst)
	for start := 0; start < len(w); {
		end := len(w)
		found := int32(-1)
		for start < end {
			var id int32
			var ok bool
			if start == 0 {
				id, ok = m.ids[string(w[:end])]
			} else {
				s.piece = append(append(s.piece[:0], m.prefix...), w[start:end]...)
				id, ok = m.ids[string(s.piece)]
			}
			if ok {
				found = id
				break
			}
			_, size := utf8.DecodeLastRune(w[start:end])
			end -= size
		}
		if found < 0 {
			return append(dst[:mark], m.unk32)
		}
		dst = append(dst, found)
		start = end
	}
	return dst
}

func (m *wordPiece) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "unk_token %q\nprefix %q\nmax_chars %d\n", m.unk, m.prefix, m.maxChars)
}

func (m *wordPiece) withVocab(_ []string, ids map[string]int32, _ [][2]int32) (model, error) {
	c := *m
	c.ids = ids
	id, ok := ids[m.unk]
	if !ok {
		return nil, fmt.Errorf("unknown token %q is not in the vocabulary", m.unk)
	}
	c.unk32 = id
	return &c, nil
}
