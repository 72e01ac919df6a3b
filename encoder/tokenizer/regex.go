package tokenizer

import (
	"unicode"
	"unicode/utf8"

	"github.com/dreval/dreval/internal/regex"
)

// onigClasses are the classes of the reference's Oniguruma (onig.go): its
// Split pre-tokenizer's and Replace normalizer's patterns match with them.
var onigClasses = &regex.Classes{
	Space:  isRegexSpace,
	Digit:  isOnigDigit,
	Word:   isOnigWord,
	Letter: isOnigLetter,
	Number: isOnigNumber,
}

// compileRegex compiles a pattern of tokenizer.json as the reference's
// Oniguruma reads it.
func compileRegex(pattern string) (*regex.Regexp, error) {
	return regex.Compile(pattern, onigClasses)
}

// isOnigWord is Oniguruma's \w: alphabetic characters, marks, decimal
// digits, connector punctuation and the join controls (as Rust's \w), and
// the Latin-1 characters its ISO-8859-1 table marks as word characters
// (ª ² ³ µ ¹ º ¼ ½ ¾).
func isOnigWord(r rune) bool {
	if r < 0x100 {
		switch r {
		case 0xAA, 0xB2, 0xB3, 0xB5, 0xB9, 0xBA, 0xBC, 0xBD, 0xBE:
			return true
		case 0xD7, 0xF7:
			return false
		}
		return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0xC0
	}
	return adjusted(r, goIsOnigWord, refOnigWord)
}

func goIsOnigWord(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) ||
		unicode.In(r, unicode.Nl, unicode.Other_Alphabetic, unicode.Pc)
}

// isOnigDigit is Oniguruma's \d: the decimal digits.
func isOnigDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return adjusted(r, func(r rune) bool { return unicode.Is(unicode.Nd, r) }, refOnigDigit)
}
