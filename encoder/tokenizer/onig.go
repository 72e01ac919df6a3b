package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// The character classes of the reference's regular expressions: \p{L},
// \p{N} and \s of Oniguruma (GPT-2's pre-tokenization pattern, Split
// patterns) and \w and \s of Rust's regex crate (the Whitespace
// pre-tokenizer). They follow Go's unicode tables except where the
// reference's (older) tables differ: onig_tables.go lists those code
// points, checked one by one against the reference by TestOnigClasses.

// isRegexSpace is \s: the Unicode White_Space characters.
func isRegexSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r >= '\t' && r <= '\r'
	}
	return adjusted(r, goIsSpace, refSpace)
}

func goIsSpace(r rune) bool {
	switch r {
	case 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// isOnigLetter is Oniguruma's \p{L}.
func isOnigLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	return adjusted(r, unicode.IsLetter, refLetter)
}

// isOnigNumber is Oniguruma's \p{N}.
func isOnigNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return adjusted(r, unicode.IsNumber, refNumber)
}

// refDiff lists the code points where a class of the reference and Go's
// unicode tables disagree: added (in the reference's class only) and
// dropped (in Go's only).
type refDiff struct{ added, dropped []runeRange }

// adjusted is goIs(r) corrected by d.
func adjusted(r rune, goIs func(rune) bool, d refDiff) bool {
	if inTable(r, d.added) {
		return true
	}
	if inTable(r, d.dropped) {
		return false
	}
	return goIs(r)
}

// onigClass is the GPT-2 class of a non-ASCII character.
func onigClass(r rune) uint8 {
	switch {
	case isOnigLetter(r):
		return gLetter
	case isOnigNumber(r):
		return gNumber
	case isRegexSpace(r):
		return gSpace
	}
	return gOther
}

// isNumeric is Rust's char::is_numeric (the Digits pre-tokenizer): the
// number categories Nd, Nl and No.
func isNumeric(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return adjusted(r, unicode.IsNumber, refNumeric)
}
