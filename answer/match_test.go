package answer

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/regex"
)

// TestMatch checks each mode against cases worked out by hand from the
// definitions in the package documentation.
func TestMatch(t *testing.T) {
	const (
		S  = String
		R  = Regex
		Sb = Substring
	)
	tests := []struct {
		name    string
		mode    Mode
		answers []string
		text    string
		want    bool
	}{
		{"plain", S, []string{"Denver Broncos"}, "The Denver Broncos won.", true},
		{"case", S, []string{"denver broncos"}, "DENVER BRONCOS", true},
		{"word prefix is not a token", S, []string{"four"}, "the fourth quarter", false},
		{"any answer", S, []string{"Panthers", "fourth"}, "the fourth quarter", true},
		{"apostrophe tokens", S, []string{"Levi's Stadium"}, "at Levi's Stadium in", true},
		{"apostrophe missing in passage", S, []string{"Levi's"}, "Levis Stadium", false},
		{"1,000 vs 1000", S, []string{"1,000"}, "1000 people", false},
		{"1000 vs 1,000", S, []string{"1000"}, "about 1,000 people", false},
		{"1,000 vs 1,000", S, []string{"1,000"}, "about 1,000 people", true},
		{"spaces around comma ignored", S, []string{"May 18, 2018"}, "on May 18 , 2018", true},
		{"abbreviation", S, []string{"U.S."}, "the U.S. army", true},
		{"composed answer, decomposed passage", S, []string{"R\u00f6ntgen"}, "Wilhelm Ro\u0308ntgen", true},
		{"decomposed answer, composed passage", S, []string{"Ro\u0308ntgen"}, "Wilhelm R\u00f6ntgen", true},
		{"accent is not stripped", S, []string{"Rontgen"}, "Wilhelm R\u00f6ntgen", false},
		{"accented capital", S, []string{"caf\u00e9"}, "CAF\u00c9 society", true},
		{"hyphen is a token", S, []string{"gold themed"}, "a gold-themed show", false},
		{"hyphen splits words", S, []string{"York"}, "New-York", true},
		{"white space of any kind", S, []string{"New   York"}, "new\n\tyork", true},
		{"soft hyphen (Cf) is not a token", S, []string{"ab cd"}, "ab\u00adcd", true},
		{"final sigma", S, []string{"\u039f\u0394\u039f\u03a3"}, "\u03bf\u03b4\u03bf\u03c2", true},
		{"final sigma is not medial sigma", S, []string{"\u039f\u0394\u039f\u03a3"}, "\u03bf\u03b4\u03bf\u03c3", false},
		{"NFD is not NFKD: ligature", S, []string{"fine"}, "\ufb01ne", false},
		{"NFD is not NFKD: full width", S, []string{"abc"}, "\uff21\uff22\uff23", false},
		{"other digits are other tokens", S, []string{"100"}, "\u0661\u0660\u0660", false},
		{"CJK run is one token", S, []string{"北京"}, "我爱北京天安门", false},
		{"whole CJK run", S, []string{"北京天安门"}, "我爱 北京天安门。", true},
		{"CJK with inner space", S, []string{"北京 天安门"}, "北京天安门", false},
		{"empty answer", S, []string{""}, "anything", false},
		{"blank answer", S, []string{"  \t"}, "anything", false},
		{"format-only answer", S, []string{"\u200b"}, "a\u200bb", false},
		{"no answers", S, nil, "anything", false},
		{"empty passage", S, []string{"a"}, "", false},

		{"substring: CJK inside run", Sb, []string{"北京"}, "我爱北京天安门", true},
		{"substring: spaces removed both sides", Sb, []string{"北京 天安门"}, "北京天安 门", true},
		{"substring: word prefix", Sb, []string{"four"}, "the fourth quarter", true},
		{"substring: case", Sb, []string{"LEVI'S"}, "levi's stadium", true},
		{"substring: punctuation kept", Sb, []string{"1,000"}, "1000", false},
		{"substring: composed vs decomposed", Sb, []string{"R\u00f6ntgen"}, "ro\u0308ntgen", true},
		{"substring: format characters removed (keeps String => Substring)", Sb, []string{"ab cd"}, "ab\u00adcd", true},
		{"substring: final sigma per token (keeps String => Substring)", Sb, []string{"\u03b1\u03c2"}, "\u0391\u03a3 \u0392", true},
		{"substring: empty answer", Sb, []string{" "}, "anything", false},

		{"regex: alternation and optional", R, []string{`20\s?,?\s?(32|40)0\s?-?\s?f(ee|oo)t`}, "it is 20,320 feet tall", true},
		{"regex: case-insensitive", R, []string{"After the Fall|Finishing the Play"}, "AFTER THE FALL (1964)", true},
		{"regex: multi-line anchor", R, []string{"^Paris"}, "Capital:\nParis is large", true},
		{"regex: anchor without line start", R, []string{"^Paris"}, "Capital: Paris", false},
		{"regex: search, not whole-word", R, []string{"four"}, "fourth", true},
		{"regex: word boundary", R, []string{`\bfour\b`}, "fourth", false},
		{"regex: \\s is Unicode as in Python", R, []string{`New\sYork`}, "New\u00a0York", true},
		{"regex: \\s inside a class", R, []string{`New[\s-]York`}, "New\u2003York", true},
		{"regex: \\S", R, []string{`a\Sb`}, "a\u00a0b", false},
		{"regex: pattern NFD too", R, []string{"R\u00f6ntgen"}, "R\u00f6ntgen", true},
		{"regex: escaped comma", R, []string{`Music\, Mayhem`}, "Music, Mayhem, Murder", true},
		{"regex: lazy and non-capturing", R, []string{`(?:Watson.*?Crick)`}, "Watson and Crick", true},
		{"regex: escaped non-ASCII letter is the letter", R, []string{`Sne[zž]ka|Sn\ě\žka`}, "Sněžka", true},
		{"regex: escaped dash is a dash", R, []string{`1963\–1980`}, "born 1963–1980", true},
		{"regex: empty pattern", R, []string{""}, "anything", false},
		// Python's re, as DPR's regex_match runs it (checked with CPython
		// 3.11): lookaround, Unicode classes, \b after a combining accent.
		{"regex: lookahead", R, []string{`foo(?=bar)`}, "foobar", true},
		{"regex: lookahead fails", R, []string{`foo(?=bar)`}, "foobaz", false},
		{"regex: negative lookbehind", R, []string{`(?<!x)y`}, "xy zy", true},
		{"regex: a combining accent ends a word after NFD", R, []string{`\bcafe\b`}, "café au lait", true},
		{"regex: \\w is Unicode", R, []string{`\w+ly\b`}, "Ünly", true},
		{"regex: \\d is Unicode", R, []string{`^\d+$`}, "٣٤", true},
		{"regex: \\s has the information separators", R, []string{`x\sy`}, "x\x1cy", true},
		{"regex: \\Z is the end of the text", R, []string{`York\Z`}, "New York\n", false},
		{"regex: \\Z at the end", R, []string{`York\Z`}, "New York", true},
		{"regex: Python's named group", R, []string{`(?P<c>New) York`}, "new york", true},
		{"regex: . is not a newline", R, []string{`a.b`}, "a\nb", false},
		{"regex: braces in a class are literal", R, []string{`x[{2,1}]`}, "x{", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HasAnswer(tc.answers, tc.text, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("HasAnswer(%q, %q, %s) = %v, want %v", tc.answers, tc.text, tc.mode, got, tc.want)
			}
		})
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Levi's Stadium.", []string{"levi", "'", "s", "stadium", "."}},
		{"1,000", []string{"1", ",", "000"}},
		{"R\u00f6ntgen", []string{"ro\u0308ntgen"}},
		{"我爱北京。", []string{"我爱北京", "。"}},
		{"a\u00a0b\u200bc\x00d", []string{"a", "b", "c", "d"}},
		{"\u2460 $5", []string{"\u2460", "$", "5"}}, // ① is No: a number
		{"ΣΑΣ Σ", []string{"σας", "σ"}},             // final sigma needs a cased letter before it
		{"\xff", []string{"\ufffd"}},
		{"", nil},
	}
	for _, tc := range tests {
		if got := Tokens(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBadPattern(t *testing.T) {
	for _, p := range []string{`(a)\1`, `a{2,1}`, `(unclosed`, `[z-a]`} {
		_, err := NewMatcher("q7", []string{"fine", p}, Regex)
		var pe *PatternError
		if !errors.As(err, &pe) {
			t.Errorf("pattern %q: got %v, want a *PatternError", p, err)
			continue
		}
		if pe.QueryID != "q7" || pe.Pattern != p {
			t.Errorf("pattern %q: error names %q %q", p, pe.QueryID, pe.Pattern)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []Mode{String, Regex, Substring} {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseMode("fuzzy"); err == nil {
		t.Error("ParseMode(fuzzy) succeeded")
	}
}

func TestYesNo(t *testing.T) {
	tests := []struct {
		in   []string
		want bool
	}{
		{[]string{"yes"}, true}, {[]string{" No "}, true}, {[]string{"yes", "no"}, true},
		{[]string{"yes", "maybe"}, false}, {nil, false}, {[]string{"noon"}, false},
	}
	for _, tc := range tests {
		if got := IsYesNo(tc.in); got != tc.want {
			t.Errorf("IsYesNo(%q) = %v", tc.in, got)
		}
	}
}

// TestBacktrackLimit: a pattern that would backtrack catastrophically
// is searched by the automaton, in linear time; one the automaton cannot
// run (lookaround) and that backtracks past the engine's budget on a
// passage is an error naming the question and the pattern, not a "no
// match".
func TestBacktrackLimit(t *testing.T) {
	text := strings.Repeat("x", 40)
	if ok, err := HasAnswer([]string{`(x+x+)+y`}, text, Regex); ok || err != nil {
		t.Errorf("(x+x+)+y: got %v, %v; want no match", ok, err)
	}
	m, err := NewMatcher("q3", []string{"fine", `(?=(x+x+)+y)x`}, Regex)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Match(text)
	var pe *PatternError
	if !errors.As(err, &pe) || pe.QueryID != "q3" || pe.Pattern != `(?=(x+x+)+y)x` || !errors.Is(err, regex.ErrBacktrackLimit) {
		t.Fatalf("got %v, want a *PatternError for q3 wrapping regex.ErrBacktrackLimit", err)
	}
	if ok, err := m.Match("fine " + text); !ok || err != nil {
		t.Errorf("an earlier answer that matches: got %v, %v", ok, err)
	}
}
