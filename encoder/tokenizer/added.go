package tokenizer

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// matcher finds added tokens in text the way the reference does:
// non-overlapping, leftmost first, the longest token at that position,
// honouring single_word, lstrip and rstrip.
type matcher struct {
	tokens []addedToken // longest content first
	first  [256]bool    // first bytes of the contents
}

func newMatcher(tokens []addedToken) matcher {
	var m matcher
	for _, a := range tokens {
		if a.Content == "" {
			continue
		}
		m.tokens = append(m.tokens, a)
		m.first[a.Content[0]] = true
	}
	sort.SliceStable(m.tokens, func(i, j int) bool { return len(m.tokens[i].Content) > len(m.tokens[j].Content) })
	return m
}

// each calls f for every match in text, in order, with the span the token
// replaces (widened by lstrip and rstrip). It follows the reference's
// Aho-Corasick search (leftmost, then longest): the search goes on after
// each match found, so a single_word token that is rejected hides any
// token starting inside it.
func (m *matcher) each(text string, f func(id int32, start, end int)) {
	prevEnd := 0
	for i := 0; i < len(text); {
		if !m.first[text[i]] {
			i++
			continue
		}
		var a *addedToken
		for k := range m.tokens {
			if strings.HasPrefix(text[i:], m.tokens[k].Content) {
				a = &m.tokens[k]
				break
			}
		}
		if a == nil {
			i++
			continue
		}
		start, end := i, i+len(a.Content)
		i = end
		if a.SingleWord && (endsWithWordChar(text[:start]) || startsWithWordChar(text[end:])) {
			continue
		}
		if a.LStrip {
			s := start
			for s > 0 {
				r, size := utf8.DecodeLastRuneInString(text[:s])
				if !isWhitespace(r) {
					break
				}
				s -= size
			}
			start = max(s, prevEnd)
		}
		if a.RStrip {
			for end < len(text) {
				r, size := utf8.DecodeRuneInString(text[end:])
				if !isWhitespace(r) {
					break
				}
				end += size
			}
		}
		f(a.ID, start, end)
		prevEnd = end
	}
}

// isWordChar reports whether r matches the regular expression \w as the
// reference (Rust's regex crate) defines it: Alphabetic, marks, decimal
// digits, connector punctuation and the join controls.
func isWordChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return adjusted(r, goIsWordChar, refWord)
}

func goIsWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) ||
		unicode.In(r, unicode.Nl, unicode.Other_Alphabetic, unicode.Pc, unicode.Join_Control)
}

func endsWithWordChar(s string) bool {
	if s == "" {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return isWordChar(r)
}

func startsWithWordChar(s string) bool {
	if s == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	return isWordChar(r)
}
