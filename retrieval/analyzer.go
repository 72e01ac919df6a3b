package retrieval

import (
	"strings"
	"unicode"
)

// Analyzer turns a text into the terms BM25 indexes and searches. A
// WordPiece analyser, for example, is a func returning token strings.
type Analyzer func(text string) []string

// WordAnalyzer splits text into maximal runs of letters, digits and
// combining marks (Unicode-aware) and lower-cases them. Everything else
// (spaces, punctuation, symbols) separates words.
func WordAnalyzer(text string) []string {
	var out []string
	start := -1
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, strings.ToLower(text[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, strings.ToLower(text[start:]))
	}
	return out
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// isCJK reports whether r is a Han, Hiragana, Katakana or Hangul character
// (counting the katakana prolonged sound mark ー, which Unicode puts in the
// Common script).
func isCJK(r rune) bool {
	return r == 0x30FC || r == 0xFF70 || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// BigramAnalyzer indexes CJK text (Chinese in particular) as overlapping
// character bigrams, as Lucene's CJKAnalyzer does: "北京大学" gives
// "北京", "京大", "大学"; a CJK character standing alone gives itself.
// Other runs of letters and digits become lower-cased words as in
// WordAnalyzer. Full-width ASCII (Ａ, １) is folded to ASCII first.
func BigramAnalyzer(text string) []string {
	var out []string
	var word []rune
	var cjk []rune
	flushWord := func() {
		if len(word) > 0 {
			out = append(out, strings.ToLower(string(word)))
			word = word[:0]
		}
	}
	flushCJK := func() {
		switch {
		case len(cjk) == 1:
			out = append(out, string(cjk))
		case len(cjk) > 1:
			for i := 0; i+1 < len(cjk); i++ {
				out = append(out, string(cjk[i:i+2]))
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range text {
		if r >= 0xFF01 && r <= 0xFF5E { // full-width ASCII
			r -= 0xFEE0
		}
		switch {
		case isCJK(r):
			flushWord()
			cjk = append(cjk, r)
		case isWordRune(r):
			flushCJK()
			word = append(word, r)
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
	return out
}
