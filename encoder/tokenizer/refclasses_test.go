package tokenizer

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/dreval/dreval/internal/sharedtest"
)

// refClassesFile is written by scripts/golden-tokenizer/families.js: for
// every code point, "lo hi G W D M NFC NFD NFKC NFKD LOWER PRECOMPILED"
// (see writeClasses there).
const refClassesFile = "testdata/ref-classes.txt.gz"

// refClass is one code point's line.
type refClass struct {
	g, w, d, m, xy string
	forms          [6]string // NFC NFD NFKC NFKD Lowercase Precompiled(ALBERT); "=" unchanged
}

// sampleCodePoints makes readRefClasses skip code points inside runs.
var sampleCodePoints bool

// readRefClasses calls f for every code point of the file.
func readRefClasses(t *testing.T, f func(r rune, c refClass)) {
	t.Helper()
	file, err := os.Open(refClassesFile)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	zr, err := gzip.NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	next := rune(0)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.SplitN(line, " ", 8)
		if len(fields) != 8 {
			t.Fatalf("%s: malformed line %q", refClassesFile, line)
		}
		lo, err1 := strconv.ParseInt(fields[0], 16, 32)
		hi, err2 := strconv.ParseInt(fields[1], 16, 32)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: malformed line %q", refClassesFile, line)
		}
		c := refClass{g: fields[2], w: fields[3], d: fields[4], m: fields[5], xy: fields[6]}
		rest := fields[7]
		dec := json.NewDecoder(strings.NewReader(rest))
		for i := range c.forms {
			rest = strings.TrimLeft(rest, " ")
			if strings.HasPrefix(rest, "=") {
				c.forms[i] = "="
				rest = rest[1:]
				continue
			}
			dec = json.NewDecoder(strings.NewReader(rest))
			var s string
			if err := dec.Decode(&s); err != nil {
				t.Fatalf("%s: malformed line %q: %v", refClassesFile, line, err)
			}
			c.forms[i] = s
			rest = rest[dec.InputOffset():]
		}
		for r := rune(lo); r <= rune(hi); r++ {
			if next == 0xD800 {
				next = 0xE000
			}
			if r != next {
				t.Fatalf("%s: code point %U missing", refClassesFile, next)
			}
			next = r + 1
			if sampleCodePoints && r-rune(lo) >= 4 && r%7 != 0 {
				continue
			}
			f(r, c)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if next != 0x110000 {
		t.Fatalf("%s ends at %U", refClassesFile, next)
	}
}

// goClasses is what this package says of r, in the file's terms.
func goClasses(r rune, pre *precompiledNorm) refClass {
	var c refClass
	switch {
	case r == ' ':
		c.g = "S"
	case r < utf8.RuneSelf:
		c.g = [...]string{"O", "L", "N", "S"}[asciiGPT2[r]]
	default:
		c.g = [...]string{"O", "L", "N", "S"}[onigClass(r)]
	}
	switch {
	case isWordChar(r):
		c.w = "w"
	case isRegexSpace(r):
		c.w = "s"
	default:
		c.w = "o"
	}
	c.d, c.m = "-", "-"
	if isNumeric(r) {
		c.d = "d"
	}
	if isCombiningMark(r) {
		c.m = "m"
	}
	c.xy = "--"
	if isOnigWord(r) {
		c.xy = "x-"
	}
	if onigClasses.Digit(r) {
		c.xy = c.xy[:1] + "y"
	}
	s := string(r)
	same := func(out []byte) string {
		if string(out) == s {
			return "="
		}
		return string(out)
	}
	for i, f := range []norm.Form{norm.NFC, norm.NFD, norm.NFKC, norm.NFKD} {
		c.forms[i] = same(appendForm(nil, f, s, nil))
	}
	c.forms[4] = same(lowercaseNorm{}.appendNormalized(nil, s, nil))
	if pre != nil {
		c.forms[5] = same(pre.appendNormalized(nil, s, nil))
	}
	return c
}

// albertPrecompiled returns the Precompiled normalizer of ALBERT's charsmap,
// or nil when the model is not installed.
func albertPrecompiled(t *testing.T) *precompiledNorm {
	p := filepath.Join(sharedtest.TokenizersDir(), "sentencepiece", "albert-30k.model")
	data, err := os.ReadFile(p)
	if err != nil {
		if sharedtest.InCI() {
			t.Fatalf("%v (make setup)", err)
		}
		t.Logf("%v: the charsmap column is not checked", err)
		return nil
	}
	m, err := parseSPM(data)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := newCharsmap(m.norm.charsmap)
	if err != nil {
		t.Fatal(err)
	}
	return &precompiledNorm{cm: cm}
}

// TestRefClasses checks every code point's treatment by GPT-2's pattern,
// the Whitespace and Digits pre-tokenizers, StripAccents, the four Unicode
// normalization forms, Lowercase and ALBERT's charsmap against the
// reference's.
func TestRefClasses(t *testing.T) {
	// Under -short (js/wasm): each run's start and every 7th code point.
	sampleCodePoints = testing.Short()
	defer func() { sampleCodePoints = false }()
	pre := albertPrecompiled(t)
	bad := 0
	names := []string{"NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Precompiled"}
	readRefClasses(t, func(r rune, want refClass) {
		got := goClasses(r, pre)
		diff := ""
		if got.g != want.g || got.w != want.w || got.d != want.d || got.m != want.m || got.xy != want.xy {
			diff = fmt.Sprintf("classes %s %s %s %s %s, want %s %s %s %s %s", got.g, got.w, got.d, got.m, got.xy, want.g, want.w, want.d, want.m, want.xy)
		}
		for i := range got.forms {
			if i == 5 && pre == nil {
				continue
			}
			if got.forms[i] != want.forms[i] {
				diff += fmt.Sprintf(" %s %q, want %q", names[i], got.forms[i], want.forms[i])
			}
		}
		if diff != "" {
			if bad++; bad <= 20 {
				t.Errorf("%U: %s", r, diff)
			}
		}
	})
	if bad > 0 {
		t.Errorf("%d code points differ from the reference (rewrite ref_tables.go: go test -run TestGenerateRefTables -args -gen-unicode-tables)", bad)
	}
}

// TestGenerateRefTables rewrites ref_tables.go from ref-classes.txt.gz:
//
//	go test ./encoder/tokenizer -run TestGenerateRefTables -args -gen-unicode-tables
func TestGenerateRefTables(t *testing.T) {
	if !*genTables {
		t.Skip("run with -gen-unicode-tables to rewrite ref_tables.go")
	}
	sets := map[string][]rune{}
	diff := func(name string, goIs bool, ref bool, r rune) {
		switch {
		case ref && !goIs:
			sets[name+".added"] = append(sets[name+".added"], r)
		case goIs && !ref:
			sets[name+".dropped"] = append(sets[name+".dropped"], r)
		}
	}
	readRefClasses(t, func(r rune, want refClass) {
		if r < utf8.RuneSelf {
			return
		}
		s := string(r)
		diff("refLetter", unicode.IsLetter(r), want.g == "L", r)
		diff("refNumber", unicode.IsNumber(r), want.g == "N", r)
		diff("refSpace", goIsSpace(r), want.g == "S", r)
		diff("refWord", goIsWordChar(r), want.w == "w", r)
		diff("refNumeric", unicode.IsNumber(r), want.d == "d", r)
		if r >= 0x300 {
			diff("refCombining", unicode.IsMark(r), want.m == "m", r)
		}
		if r >= 0x100 {
			diff("refOnigWord", goIsOnigWord(r), want.xy[0] == 'x', r)
		}
		diff("refOnigDigit", unicode.Is(unicode.Nd, r), want.xy[1] == 'y', r)
		unknown := false
		for i, f := range []norm.Form{norm.NFC, norm.NFD, norm.NFKC, norm.NFKD} {
			goOut := string(f.AppendString(nil, s))
			if goOut == s {
				goOut = "="
			}
			if goOut != want.forms[i] && want.forms[i] == "=" {
				unknown = true
			}
		}
		if unknown {
			sets["normUnknown"] = append(sets["normUnknown"], r)
		}
	})
	ranges := func(rs []rune) []runeRange {
		var out []runeRange
		for _, r := range rs {
			if n := len(out); n > 0 && out[n-1].hi == r-1 {
				out[n-1].hi = r
				continue
			}
			out = append(out, runeRange{r, r})
		}
		return out
	}
	writeRanges := func(b *bytes.Buffer, rs []runeRange) {
		b.WriteString("[]runeRange{")
		for i, rr := range rs {
			if i%4 == 0 {
				b.WriteString("\n\t\t")
			}
			fmt.Fprintf(b, "{0x%04X, 0x%04X}, ", rr.lo, rr.hi)
		}
		b.WriteString("\n\t}")
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by TestGenerateRefTables -gen-unicode-tables; DO NOT EDIT.\n\npackage tokenizer\n\n")
	b.WriteString("// Code points where Go's unicode tables (Unicode 15.0) and the reference's\n// (older for normalization and StripAccents, newer for its regular\n// expressions and Rust's char methods) disagree, for the classes of onig.go,\n// added.go and normalizers.go. They come from running every code point\n// through the reference (scripts/golden-tokenizer writes\n// testdata/ref-classes.txt.gz); TestRefClasses checks all of them.\nvar (\n")
	for _, name := range []string{"refLetter", "refNumber", "refSpace", "refWord", "refNumeric", "refCombining", "refOnigWord", "refOnigDigit"} {
		fmt.Fprintf(&b, "\t%s = refDiff{\n\t\tadded: ", name)
		writeRanges(&b, ranges(sets[name+".added"]))
		b.WriteString(",\n\t\tdropped: ")
		writeRanges(&b, ranges(sets[name+".dropped"]))
		b.WriteString(",\n\t}\n")
	}
	b.WriteString("\tnormUnknown = ")
	writeRanges(&b, ranges(sets["normUnknown"]))
	b.WriteString("\n")
	b.WriteString(")\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("ref_tables.go", src, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, s := range sets {
		t.Logf("%s: %d code points", name, len(s))
	}
}
