package tokenizer

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

// Golden files written by scripts/golden-tokenizer (the Hugging Face
// tokenizers library itself); see its README.
const (
	goldenFile  = "testdata/golden.jsonl.gz"
	unicodeFile = "testdata/unicode-classes.txt.gz"
)

type goldenCase struct {
	Src            string  `json:"src"`
	Ref            string  `json:"ref"` // a string of ../shared/data (goldenref_test.go)
	Sha            string  `json:"sha"`
	Text           string  `json:"text"`
	MiniLM         []int32 `json:"minilm"`
	Chinese        []int32 `json:"chinese"`
	MiniLMDec      *string `json:"minilm_dec"`
	MiniLMDecSkip  *string `json:"minilm_dec_skip"`
	ChineseDecSkip *string `json:"chinese_dec_skip"`
	MiniLMTrunc    []int32 `json:"minilm_trunc"`
}

func readGolden(t testing.TB) []goldenCase {
	t.Helper()
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var c goldenCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: line %d: %v", goldenFile, len(cases)+1, err)
		}
		if c.Ref != "" {
			c.Text = refText(t, c.Ref, c.Sha)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// minilm loads the installed all-MiniLM-L6-v2 tokenizer.json.
func minilm(t testing.TB) *Tokenizer {
	t.Helper()
	tk, err := Load(filepath.Join(sharedtest.ModelDir(t, "minilm"), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// chinese loads bert-base-chinese's tokenizer.json (older layout).
func chinese(t testing.TB) *Tokenizer {
	t.Helper()
	tk, err := Load(sharedtest.Path(t, "tokenizers/bert-base-chinese/tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestGolden(t *testing.T) {
	cases := readGolden(t)
	if len(cases) < 20000 {
		t.Fatalf("%s has %d strings; want at least 20000", goldenFile, len(cases))
	}
	toks := []struct {
		name string
		tk   *Tokenizer
		ids  func(c *goldenCase) []int32
		skip func(c *goldenCase) *string
	}{
		{"minilm", minilm(t), func(c *goldenCase) []int32 { return c.MiniLM }, func(c *goldenCase) *string { return c.MiniLMDecSkip }},
		{"bert-base-chinese", chinese(t), func(c *goldenCase) []int32 { return c.Chinese }, func(c *goldenCase) *string { return c.ChineseDecSkip }},
	}
	noTrunc := Options{AddSpecial: true}
	for _, tt := range toks {
		t.Run(tt.name, func(t *testing.T) {
			bad, ids, decoded := 0, 0, 0
			for i := range cases {
				c := &cases[i]
				want := tt.ids(c)
				got := tt.tk.EncodeWith(c.Text, noTrunc).IDs
				ids += len(want)
				if !slices.Equal(got, want) {
					if bad++; bad <= 5 {
						t.Errorf("%s %q:\n got %v\nwant %v", c.Src, clip(c.Text), got, want)
					}
					continue
				}
				if w := tt.skip(c); w != nil {
					decoded++
					if got := tt.tk.Decode(want, true); got != *w {
						t.Errorf("%s: Decode(skip special) of %q:\n got %q\nwant %q", c.Src, clip(c.Text), got, *w)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d strings differ from the reference", bad, len(cases))
			}
			t.Logf("%d strings, %d ids, %d decodings equal the reference", len(cases)-bad, ids, decoded)
		})
	}
	t.Run("minilm decode and truncation", func(t *testing.T) {
		tk := toks[0].tk
		nTrunc := 0
		for _, c := range cases {
			if c.MiniLMDec != nil {
				if got := tk.Decode(c.MiniLM, false); got != *c.MiniLMDec {
					t.Errorf("%s: Decode of %q:\n got %q\nwant %q", c.Src, clip(c.Text), got, *c.MiniLMDec)
				}
			}
			if c.MiniLMTrunc != nil {
				nTrunc++
				e := tk.Encode(c.Text) // the file's truncation, no padding
				if !slices.Equal(e.IDs, c.MiniLMTrunc) {
					t.Errorf("%s: Encode (truncated) of %q:\n got %v\nwant %v", c.Src, clip(c.Text), e.IDs, c.MiniLMTrunc)
				}
				if want := len(c.MiniLM) - len(c.MiniLMTrunc); e.Truncated != want {
					t.Errorf("%s: Truncated = %d, want %d", c.Src, e.Truncated, want)
				}
			}
		}
		if nTrunc < 100 {
			t.Errorf("only %d truncation cases in %s", nTrunc, goldenFile)
		}
	})
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// TestUnicodeClasses checks every code point's treatment by both BERT
// normalizers (uncased with accent stripping; cased) and the pre-tokenizer
// against the reference's.
func TestUnicodeClasses(t *testing.T) {
	f, err := os.Open(unicodeFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	lower := &bertNormalizer{cleanText: true, chineseChars: true, stripAccents: true, lowercase: true}
	cased := &bertNormalizer{cleanText: true, chineseChars: true}
	expect := func(kind, s string) (string, error) {
		switch kind {
		case "=":
			return s, nil
		case "-":
			return "", nil
		case "_":
			return " ", nil
		case "c":
			return " " + s + " ", nil
		}
		var out string
		err := json.Unmarshal([]byte(kind), &out)
		return out, err
	}
	sc := bufio.NewScanner(zr)
	next, bad, line := rune(0), 0, 0
	for sc.Scan() {
		line++
		// "lo hi lowerKind casedKind class"; kinds may be JSON strings
		// holding spaces, so split the three leading fields and the last.
		fields := strings.SplitN(sc.Text(), " ", 3)
		if len(fields) != 3 {
			t.Fatalf("%s:%d: malformed line %q", unicodeFile, line, sc.Text())
		}
		lo, err1 := strconv.ParseInt(fields[0], 16, 32)
		hi, err2 := strconv.ParseInt(fields[1], 16, 32)
		rest := fields[2]
		cls := rest[len(rest)-1:]
		kinds := rest[:len(rest)-2]
		lk, ck, err3 := splitKinds(kinds)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("%s:%d: malformed line %q", unicodeFile, line, sc.Text())
		}
		for r := rune(lo); r <= rune(hi); r++ {
			if next == 0xD800 { // surrogates are not characters
				next = 0xE000
			}
			if r != next {
				t.Fatalf("%s:%d: code point %U missing", unicodeFile, line, next)
			}
			next = r + 1
			if testing.Short() && r-rune(lo) >= 4 && r%7 != 0 {
				continue // under -short (js/wasm): each run's start and every 7th code point
			}
			s := string(r)
			wl, err1 := expect(lk, s)
			wc, err2 := expect(ck, s)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s:%d: bad kind in %q", unicodeFile, line, sc.Text())
			}
			gl := lower.appendNormalized(nil, s, nil)
			gc := cased.appendNormalized(nil, s, nil)
			gcls := "o"
			if c := classOf(classTable(), r); c&cSpace != 0 {
				gcls = "w"
			} else if c&cPunct != 0 {
				gcls = "p"
			}
			if string(gl) != wl || string(gc) != wc || gcls != cls {
				if bad++; bad <= 20 {
					t.Errorf("%U: uncased %q (want %q), cased %q (want %q), class %s (want %s)", r, gl, wl, gc, wc, gcls, cls)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if next != 0x110000 {
		t.Fatalf("%s ends at %U; want every code point", unicodeFile, next)
	}
	if bad > 0 {
		t.Errorf("%d code points differ from the reference", bad)
	}
}

// splitKinds splits "K1 K2" where each kind is a one-letter code or a JSON
// string.
func splitKinds(s string) (string, string, error) {
	if s == "" {
		return "", "", fmt.Errorf("empty")
	}
	if s[0] != '"' {
		a, b, ok := strings.Cut(s, " ")
		if !ok {
			return "", "", fmt.Errorf("one kind")
		}
		return a, b, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var first string
	if err := dec.Decode(&first); err != nil {
		return "", "", err
	}
	off := int(dec.InputOffset())
	if off >= len(s) || s[off] != ' ' {
		return "", "", fmt.Errorf("no second kind")
	}
	return s[:off], s[off+1:], nil
}
