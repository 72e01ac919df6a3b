package regex

import (
	"strings"
	"testing"
	"time"
	"unicode"
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
		re, err := Compile(c.pattern, nil)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		var got []string
		for _, p := range re.Split([]byte(c.text), nil) {
			if p.Match {
				got = append(got, c.text[p.Start:p.End])
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
		re, err := Compile(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		re.Split([]byte(strings.Repeat("1", 40)+strings.Repeat("a", 40)+strings.Repeat("x", 40)), nil)
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%q took %v", p, d)
		}
	}
}

// FuzzRegex compiles arbitrary patterns and matches them on arbitrary
// text: an error or a compiled pattern, never a panic, and the parts cover
// the text in order.
func FuzzRegex(f *testing.F) {
	for _, p := range []string{`'s|'t| ?\p{L}+|\s+(?!\S)|\s+`, `(?i:the)\b`, `(?<=[a-z])(?=[A-Z])`, `[\p{P}&&[^.]]`, `a{2,3}?b++`, `(?>\d+)\.`, `x*`, `[[:alpha:]]+`, `(`, `[a-`, `\p{Foo}`, `a{1000000}`} {
		f.Add(p, "The Quick, brown fox's 123.45 jumps  over\u3000the lazy dog.")
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		if len(pattern) > 200 || len(text) > 400 {
			return // backtracking on long inputs may be slow, not wrong
		}
		re, err := Compile(pattern, nil)
		if err != nil {
			return
		}
		b := []byte(text)
		parts := re.Split(b, nil)
		pos := int32(0)
		for _, p := range parts {
			if p.Start != pos || p.End < p.Start {
				t.Fatalf("%q on %q: parts %v do not cover the text", pattern, text, parts)
			}
			pos = p.End
		}
		if int(pos) != len(b) && !(len(parts) == 0 && len(b) == 0) {
			t.Fatalf("%q on %q: parts end at %d of %d", pattern, text, pos, len(b))
		}
	})
}

// TestSearchBudget: a pattern that backtracks catastrophically is
// searched by the automaton (no budget); with lookaround it has none, and
// Search says when backtracking's step budget ran out (Find finds nothing
// then, as Oniguruma does).
func TestSearchBudget(t *testing.T) {
	text := []byte(strings.Repeat("x", 40))
	re, err := Compile(`(x+x+)+y`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := re.Search(text); ok || err != nil {
		t.Errorf("(x+x+)+y: Search = %v, %v; want false, nil", ok, err)
	}
	re, err = Compile(`(?=(x+x+)+y)x`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if re.automaton() != nil {
		t.Fatal("a pattern with lookahead has an automaton")
	}
	if ok, err := re.Search(text); ok || err != ErrBacktrackLimit {
		t.Errorf("Search = %v, %v; want ErrBacktrackLimit", ok, err)
	}
	if _, _, ok := re.Find(text, 0); ok {
		t.Error("Find found a match past the budget")
	}
	if ok, err := re.Search([]byte("xxy" + string(text))); !ok || err != nil {
		t.Errorf("Search with an early match = %v, %v", ok, err)
	}
}

// TestAutomatonAgrees: the automaton and backtracking find a match in the
// same texts, on patterns of every construct the automaton runs.
func TestAutomatonAgrees(t *testing.T) {
	patterns := []string{`a|ab`, `^\w+$`, `(?i)new\s+york`, `\bfour\b`, `x{2,3}y`, `(ab){2}`, `(a*)*b`, `.*anxi.*`,
		`C.*2.*H.*4`, `^$`, `\Aab\z`, `ab\Z`, `[^a-c]+d`, `(?:a|b|)+c`, `a{0}`, `\Bb`, `(a|b)*?c`, `x*`, `[\p{L}&&[^a]]+`}
	texts := []string{"", "a", "ab", "abab", "new  YORK", "fourth four", "xxy", "xxxxy", "aaab", "the anxious", "C12H24",
		"ab\n", "ab\ncd", "zzd", "abbc", "c", "\n", "b", "héllo", "\xff\xfe", "x\ny"}
	for _, p := range patterns {
		re, err := Compile(p, nil)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		a := re.automaton()
		if a == nil {
			t.Fatalf("%q: no automaton", p)
		}
		for _, tx := range texts {
			want, err := re.backtrackSearch([]byte(tx))
			if err != nil {
				t.Fatal(err)
			}
			if got := a.search([]byte(tx), re.classes.Word); got != want {
				t.Errorf("%q on %q: automaton %v, backtracking %v", p, tx, got, want)
			}
		}
	}
}

// FuzzAutomaton checks the automaton against backtracking on arbitrary
// patterns and texts (where backtracking stays within its budget).
func FuzzAutomaton(f *testing.F) {
	for _, p := range []string{`a|ab`, `(?i)x\s+y\b`, `(a*)*b`, `^x{2,3}$`, `[^a-c]+d`, `\Bq|\Aq|q\Z`, `.*a.*b`} {
		f.Add(p, "xa ab  X Y b\nqaab ccd")
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		if len(pattern) > 100 || len(text) > 200 {
			return
		}
		re, err := Compile(pattern, nil)
		if err != nil {
			return
		}
		a := re.automaton()
		if a == nil {
			return
		}
		want, err := re.backtrackSearch([]byte(text))
		if err != nil {
			return
		}
		if got := a.search([]byte(text), re.classes.Word); got != want {
			t.Fatalf("%q on %q: automaton %v, backtracking %v", pattern, text, got, want)
		}
	})
}

// TestClasses: \s, \d, \w, \b, \p{L} and \p{N} follow the classes given,
// and Go's unicode tables where none is.
func TestClasses(t *testing.T) {
	vowel := func(r rune) bool { return strings.ContainsRune("aeiou", r) }
	odd := func(r rune) bool { return r >= '0' && r <= '9' && (r-'0')%2 == 1 }
	custom := &Classes{Space: vowel, Digit: odd, Word: vowel, Letter: odd, Number: vowel}
	for _, c := range []struct {
		pattern, text string
		classes       *Classes
		want          bool
	}{
		{`x\sy`, "xay", custom, true},
		{`x\sy`, "x y", custom, false},
		{`x\sy`, "x y", nil, true},
		{`^\d+$`, "135", custom, true},
		{`^\d+$`, "123", custom, false},
		{`^\d+$`, "١٢٣", nil, true},
		{`\bb`, "ab", custom, true}, // a is a word character, b is not
		{`\bb`, "ab", nil, false},
		{`^\w+$`, "aei", custom, true},
		{`^\p{L}$`, "3", custom, true},
		{`^\p{N}$`, "e", custom, true},
		{`^\p{L}\p{N}$`, "é٣", nil, true},
		{`^[[:space:]]$`, "o", custom, true},
		{`^[^\W]$`, "u", custom, true},
	} {
		re, err := Compile(c.pattern, c.classes)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		if ok, err := re.Search([]byte(c.text)); ok != c.want || err != nil {
			t.Errorf("%q on %q (custom classes %v): %v, %v; want %v", c.pattern, c.text, c.classes != nil, ok, err, c.want)
		}
	}
}

// TestLiteral matches metacharacters as text.
func TestLiteral(t *testing.T) {
	re := Literal("a.b*")
	if s, e, ok := re.Find([]byte("xa.b*y aXbb"), 0); !ok || s != 1 || e != 5 {
		t.Errorf("Find = %d, %d, %v", s, e, ok)
	}
	if ok, _ := re.Search([]byte("aXbb")); ok {
		t.Error("the literal matched as a pattern")
	}
	if re.String() != "a.b*" {
		t.Errorf("String = %q", re.String())
	}
}

// TestNamedTables: the \p{...} names are Go's unicode.Categories and
// unicode.Scripts, every one (after a Go upgrade, add the new ones to
// unicode_tables.go).
func TestNamedTables(t *testing.T) {
	for _, c := range []struct {
		name string
		list []namedTable
		want map[string]*unicode.RangeTable
	}{{"categories", categories, unicode.Categories}, {"scripts", scripts, unicode.Scripts}} {
		got := map[string]*unicode.RangeTable{}
		for _, n := range c.list {
			got[n.name] = n.table
		}
		if len(got) != len(c.want) || len(c.list) != len(c.want) {
			t.Errorf("%s: %d names (%d distinct), unicode has %d", c.name, len(c.list), len(got), len(c.want))
		}
		for k, tab := range c.want {
			if got[k] != tab {
				t.Errorf("%s: %q is missing or names another table", c.name, k)
			}
		}
	}
	re, err := Compile(`^\p{Old_Italic}\p{Cyrillic}\p{Lu}$`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := re.Search([]byte("\U00010300жA")); !ok {
		t.Error(`\p{Old_Italic}\p{Cyrillic}\p{Lu} does not match "𐌀жA"`)
	}
}
