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

// TestSearchBudget: Search says when the step budget ran out (Find finds
// nothing then, as Oniguruma does), and finds a match that comes first.
func TestSearchBudget(t *testing.T) {
	re, err := Compile(`(x+x+)+y`, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := []byte(strings.Repeat("x", 40))
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
