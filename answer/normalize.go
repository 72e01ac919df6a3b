package answer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Tokens returns the String-mode tokens of s: NFD-normalised, split by the
// pattern [\p{L}\p{N}\p{M}]+|[^\p{Z}\p{C}], each lower-cased.
func Tokens(s string) []string {
	var out []string
	eachToken(s, func(tok string) { out = append(out, lowerToken(tok)) })
	return out
}

// eachToken calls f with each token of s in order, not yet lower-cased.
func eachToken(s string, f func(string)) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = norm.NFD.String(s)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if isWordRune(r) {
			j := i + n
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !isWordRune(r2) {
					break
				}
				j += n2
			}
			f(s[i:j])
			i = j
			continue
		}
		if !isSkipped(r) {
			f(s[i : i+n])
		}
		i += n
	}
}

// isWordRune reports whether r is in \p{L}, \p{N} or \p{M}.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// isSkipped reports whether r is in \p{Z} or \p{C}; \p{C} includes the
// unassigned code points (Cn), as in Python's regex module.
func isSkipped(r rune) bool {
	if r < utf8.RuneSelf {
		return r <= ' ' || r == 0x7f
	}
	if unicode.In(r, unicode.Z, unicode.C) {
		return true
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

// lowerToken lower-cases one token as Python's str.lower does: simple
// lower-case mappings, except that a capital sigma preceded by a cased
// letter and not followed by one (case-ignorable characters skipped)
// becomes the final sigma ς.
func lowerToken(t string) string {
	ascii := true
	for i := 0; i < len(t); i++ {
		if t[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(t)
	}
	if !strings.ContainsRune(t, 'Σ') {
		return strings.ToLower(t)
	}
	rs := []rune(t)
	var b strings.Builder
	for i, r := range rs {
		if r == 'Σ' && finalSigma(rs, i) {
			b.WriteRune('ς')
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// finalSigma reports whether rs[i] is in Unicode's Final_Sigma context.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && caseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !cased(rs[j])
}

func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// caseIgnorable approximates Unicode's Case_Ignorable for the characters a
// token can hold (letters, numbers, marks): nonspacing and enclosing marks
// and modifier letters.
func caseIgnorable(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Lm)
}

// tokenForm returns the tokens of s joined and surrounded by NUL (which no
// token contains): a token sequence occurs contiguously in another exactly
// when its form is a substring of the other's form. It returns "" when s has
// no tokens.
func tokenForm(s string) string {
	b := make([]byte, 0, len(s)+len(s)/4)
	eachToken(s, func(tok string) {
		b = append(b, 0)
		b = appendLower(b, tok)
	})
	if len(b) == 0 {
		return ""
	}
	return string(append(b, 0))
}

// substringForm returns the Substring-mode form of s: its tokens
// concatenated.
func substringForm(s string) string {
	b := make([]byte, 0, len(s))
	eachToken(s, func(tok string) { b = appendLower(b, tok) })
	return string(b)
}

// appendLower appends lowerToken(tok) to b, without allocating for ASCII.
func appendLower(b []byte, tok string) []byte {
	for i := 0; i < len(tok); i++ {
		if tok[i] >= utf8.RuneSelf {
			return append(b, lowerToken(tok)...)
		}
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// SubstringForm returns the Substring-mode form of s: NFD, lower-cased, with
// every separator and control or format character removed.
func SubstringForm(s string) string { return substringForm(s) }
