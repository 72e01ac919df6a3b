package tokenizer

import (
	"strings"
	"testing"
	"time"
)

// TestRegexMatches checks the engine on patterns whose matches are known:
// alternation order, lookaround, lazy and possessive quantifiers, classes.
func TestRegexMatches(t *testing.T) {
	for _, c := range []struct {
		pattern, text string
		want          []string // the matches, in order
	}{
		{`a|ab`, "ab", []string{"a"}},
		{`ab|a`, "ab", []string{"ab"}},
		{`\s+(?!\S)|\s+`, "a   b", []string{"  ", " "}},
		{`(?<=a)b`, "abcb", []string{"b"}},
		{`(?<!a)b`, "abcb", []string{"b"}},
		{`\d+?`, "123", []string{"1", "2", "3"}},
		{`a++a`, "aaa", nil},
		{`(?>a+)b`, "aab", []string{"aab"}},
		{`(?i:the)`, "The THE tHe", []string{"The", "THE", "tHe"}},
		{`[\p{L}&&[^a]]+`, "bab", []string{"b", "b"}},
		{`\p{N}{1,3}`, "12345", []string{"123", "45"}},
		{`^\w|\w$`, "abc", []string{"a", "c"}},
		{`x*`, "axb", []string{"", "x", ""}},
		{`(\d*)*$`, "123", []string{"123"}},
		{`[[:alpha:]]+`, "ab1c", []string{"ab", "c"}},
		{`[[:^digit:]]+`, "a1b", []string{"a", "b"}},
		{`[x[:]]+`, "x:a", []string{"x:"}},
	} {
		re, err := compileRegex(c.pattern)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		var got []string
		for _, p := range re.parts([]byte(c.text), nil) {
			if p.match {
				got = append(got, c.text[p.start:p.end])
			}
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("%q on %q: matches %q, want %q", c.pattern, c.text, got, c.want)
		}
	}
}

// TestRegexBounded: nested quantifiers are folded, and a pattern that
// still backtracks catastrophically stops at the step budget.
func TestRegexBounded(t *testing.T) {
	for _, p := range []string{`(\d**\x80)`, `(a|aa)*b`, `(x+x+)+y`} {
		re, err := compileRegex(p)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		re.parts([]byte(strings.Repeat("1", 40)+strings.Repeat("a", 40)+strings.Repeat("x", 40)), nil)
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%q took %v", p, d)
		}
	}
}
