package perturb

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TextStats counts a text perturbation's edits (Changed) out of its
// candidate characters, character pairs or words (Considered).
type TextStats struct {
	Changed    int
	Considered int
}

// Text applies a text mode of c (typo, charswap, charinsert, chardelete,
// worddrop) to the text of query queryID. Bytes that are not valid UTF-8
// are copied through untouched and never considered, and at rate 0 (or when
// nothing is drawn) the text is returned byte for byte.
func Text(c Config, queryID, text string) (string, TextStats, error) {
	if err := c.Validate(); err != nil {
		return "", TextStats{}, err
	}
	if !c.Mode.IsText() {
		return "", TextStats{}, fmt.Errorf("perturb.Text: mode %s does not perturb text (text modes: %s, %s, %s, %s, %s)", c.Mode, Typo, CharSwap, CharInsert, CharDelete, WordDrop)
	}
	r := newRNG(c, "text", queryID)
	if c.Mode == WordDrop {
		return dropWords(c.Rate, r, text)
	}
	chars := splitChars(text)
	var st TextStats
	var b strings.Builder
	b.Grow(len(text) + 8)
	// Every candidate position draws r and, where the mode needs one, its
	// replacement, whatever the rate, so each position reads the same values
	// at every rate and the edits at a lower rate are among those at a
	// higher one (see the package doc, "Nested rates").
	switch c.Mode {
	case Typo:
		for _, ch := range chars {
			k, upper, ok := keyOf(ch)
			if !ok {
				b.WriteString(ch)
				continue
			}
			st.Considered++
			p := r.Float64()
			nb := keyNeighbours[k]
			n := nb[r.IntN(uint64(len(nb)))]
			if p >= c.Rate {
				b.WriteString(ch)
				continue
			}
			if upper && n >= 'a' && n <= 'z' {
				n -= 'a' - 'A'
			}
			b.WriteByte(n)
			st.Changed++
		}
	case CharSwap:
		// Pair i (characters i and i+1) draws whenever both are word
		// characters, even when character i was taken by the swap of pair
		// i-1: such a pair is not considered and its draw is discarded.
		taken := false
		for i := range chars {
			candidate := i+1 < len(chars) && isWordChar(chars[i]) && isWordChar(chars[i+1])
			var p float64
			if candidate {
				p = r.Float64()
			}
			if taken {
				taken = false // written with the previous pair
				continue
			}
			if !candidate {
				b.WriteString(chars[i])
				continue
			}
			st.Considered++
			if p >= c.Rate {
				b.WriteString(chars[i])
				continue
			}
			b.WriteString(chars[i+1])
			b.WriteString(chars[i])
			if chars[i] != chars[i+1] {
				st.Changed++
			}
			taken = true // a swapped character is not swapped again
		}
	case CharInsert:
		for _, ch := range chars {
			b.WriteString(ch)
			if !isWordChar(ch) {
				continue
			}
			st.Considered++
			p := r.Float64()
			letter := byte('a' + r.IntN(26))
			if p < c.Rate {
				b.WriteByte(letter)
				st.Changed++
			}
		}
	case CharDelete:
		for _, ch := range chars {
			if !isWordChar(ch) {
				b.WriteString(ch)
				continue
			}
			st.Considered++
			if r.Float64() < c.Rate {
				st.Changed++
				continue
			}
			b.WriteString(ch)
		}
	}
	if st.Changed == 0 {
		return text, st, nil
	}
	return b.String(), st, nil
}

// splitChars splits s into characters: each valid UTF-8 rune, and each byte
// of an invalid sequence on its own, as substrings of s.
func splitChars(s string) []string {
	chars := make([]string, 0, len(s))
	for i := 0; i < len(s); {
		_, n := utf8.DecodeRuneInString(s[i:])
		chars = append(chars, s[i:i+n])
		i += n
	}
	return chars
}

// isWordChar reports whether ch is a valid, non-space rune.
func isWordChar(ch string) bool {
	r, n := utf8.DecodeRuneInString(ch)
	if r == utf8.RuneError && n <= 1 {
		return false
	}
	return !unicode.IsSpace(r)
}

// keyOf returns the lowercase keyboard key of an ASCII letter or digit.
func keyOf(ch string) (key byte, upper, ok bool) {
	if len(ch) != 1 {
		return 0, false, false
	}
	k := ch[0]
	if k >= 'A' && k <= 'Z' {
		k += 'a' - 'A'
		upper = true
	}
	if _, ok := keyNeighbours[k]; !ok {
		return 0, false, false
	}
	return k, upper, true
}

// dropWords drops each whitespace-separated word with probability rate. If a
// word is dropped the kept words are joined by single spaces; otherwise the
// text is returned unchanged.
func dropWords(rate float64, r *rng, text string) (string, TextStats, error) {
	words := strings.FieldsFunc(text, func(c rune) bool { return unicode.IsSpace(c) })
	st := TextStats{Considered: len(words)}
	kept := words[:0:0]
	for _, w := range words {
		if r.Float64() < rate {
			st.Changed++
			continue
		}
		kept = append(kept, w)
	}
	if st.Changed == 0 {
		return text, st, nil
	}
	return strings.Join(kept, " "), st, nil
}
