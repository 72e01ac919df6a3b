package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode"

	"github.com/dreval/dreval/encoder/tokenizer"
)

func init() {
	register(&command{
		name:    "unk",
		summary: "how much of a text file a tokenizer maps to [UNK], and which characters",
		run:     runUnk,
	})
}

func runUnk(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "unk", "-tokenizer PATH -in FILE [-fields title,text] [-top 20] [-format text|json]")
	tokPath := fs.String("tokenizer", "", "tokenizer: a tokenizer.json, vocab.txt, vocab.json or SentencePiece .model file, or a model directory")
	in := fs.String("in", "", "texts: a .jsonl file (the -fields of each object; a field may be a string or a list of strings) or plain text, one text per line (- for standard input)")
	fields := fs.String("fields", "title,text", "JSON fields to read from .jsonl input, comma-separated; absent fields are skipped")
	top := fs.Int("top", 20, "number of most frequent [UNK] characters to list")
	format := fs.String("format", "text", "output format: text or json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	case *tokPath == "":
		return usageErrorf("-tokenizer is required")
	case *in == "":
		return usageErrorf("-in is required")
	case *top < 0:
		return usageErrorf("-top %d: want 0 or more", *top)
	case *format != "text" && *format != "json":
		return usageErrorf("-format %q: want text or json", *format)
	}
	tok, err := tokenizer.Load(*tokPath)
	if err != nil {
		return err
	}
	var r io.Reader = env.stdin
	name := "standard input"
	if *in != "-" {
		f, err := os.Open(*in)
		if err != nil {
			return err
		}
		defer f.Close()
		r, name = f, *in
	}
	var fieldList []string
	if strings.HasSuffix(name, ".jsonl") {
		for _, f := range strings.Split(*fields, ",") {
			if f = strings.TrimSpace(f); f != "" {
				fieldList = append(fieldList, f)
			}
		}
		if len(fieldList) == 0 {
			return usageErrorf("-fields %q: no field names", *fields)
		}
	}
	c := newUnkCounter(tok)
	if err := eachUnkText(r, name, fieldList, c.add); err != nil {
		return err
	}
	st := c.stats(*top)
	if *format == "json" {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "tokenizer %s, input %s: %d texts\n", tok.Name(), name, st.Texts)
	fmt.Fprintf(&b, "tokens: %d, [UNK]: %d (%.4f of tokens); texts with [UNK]: %d\n", st.Tokens, st.Unk, st.UnkFraction, st.TextsWithUnk)
	fmt.Fprintf(&b, "characters (not white space): %d, of which %d (%.4f) encode alone to [UNK]: %d distinct\n", st.Chars, st.UnkChars, st.UnkCharFraction, st.DistinctUnkChars)
	if len(st.TopUnkChars) > 0 {
		fmt.Fprintf(&b, "most frequent [UNK] characters:\n")
		for _, u := range st.TopUnkChars {
			fmt.Fprintf(&b, "  %s  %-8s %d\n", u.Char, u.CodePoint, u.Count)
		}
	}
	_, err = env.stdout.Write(b.Bytes())
	return err
}

// eachUnkText calls f with every text of r: the named fields of each JSON
// line when fields is non-empty, else each line.
func eachUnkText(r io.Reader, name string, fields []string, f func(string)) error {
	br := bufio.NewReaderSize(r, 64*1024)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(b) == 0 && err == io.EOF {
			return nil
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		b = bytes.TrimRight(b, "\r\n")
		if fields == nil {
			if len(bytes.TrimSpace(b)) > 0 {
				f(string(b))
			}
			continue
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil {
			return fmt.Errorf("%s:%d: not a JSON object: %v", name, line, err)
		}
		for _, field := range fields {
			raw, ok := obj[field]
			if !ok {
				continue
			}
			var s string
			if json.Unmarshal(raw, &s) == nil {
				f(s)
				continue
			}
			var list []string
			if err := json.Unmarshal(raw, &list); err != nil {
				return fmt.Errorf("%s:%d: field %q: want a string or a list of strings", name, line, field)
			}
			for _, s := range list {
				f(s)
			}
		}
	}
}

// unkCounter counts tokens, [UNK] tokens and characters that the tokenizer
// cannot represent.
type unkCounter struct {
	tok                     *tokenizer.Tokenizer
	unkID                   int32
	texts, withUnk          int
	tokens, unk, chars, unc int
	isUnk                   map[rune]bool // a character's own encoding is [UNK]
	unkChars                map[rune]int
}

func newUnkCounter(tok *tokenizer.Tokenizer) *unkCounter {
	return &unkCounter{tok: tok, unkID: tok.UnkID(), isUnk: map[rune]bool{}, unkChars: map[rune]int{}}
}

// add counts one text, encoded without special tokens or truncation. An
// empty text (such as a missing title) is not counted.
func (c *unkCounter) add(text string) {
	if text == "" {
		return
	}
	c.texts++
	ids := c.tok.EncodeWith(text, tokenizer.Options{})
	n := 0
	for _, id := range ids.IDs {
		if id == c.unkID {
			n++
		}
	}
	c.tokens += len(ids.IDs)
	c.unk += n
	if n > 0 {
		c.withUnk++
	}
	for _, r := range text {
		if unicode.IsSpace(r) {
			continue
		}
		c.chars++
		u, ok := c.isUnk[r]
		if !ok {
			e := c.tok.EncodeWith(string(r), tokenizer.Options{}).IDs
			u = len(e) == 1 && e[0] == c.unkID
			c.isUnk[r] = u
		}
		if u {
			c.unc++
			c.unkChars[r]++
		}
	}
}

// unkStats is the summary printed by dreval unk.
type unkStats struct {
	Texts            int       `json:"texts"`
	TextsWithUnk     int       `json:"texts_with_unk"`
	Tokens           int       `json:"tokens"`
	Unk              int       `json:"unk"`
	UnkFraction      float64   `json:"unk_fraction"`
	Chars            int       `json:"chars"`
	UnkChars         int       `json:"unk_chars"`
	UnkCharFraction  float64   `json:"unk_char_fraction"`
	DistinctUnkChars int       `json:"distinct_unk_chars"`
	TopUnkChars      []unkChar `json:"top_unk_chars"`
}

type unkChar struct {
	Char      string `json:"char"`
	CodePoint string `json:"code_point"`
	Count     int    `json:"count"`
}

func unkFrac(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (c *unkCounter) stats(top int) unkStats {
	st := unkStats{Texts: c.texts, TextsWithUnk: c.withUnk, Tokens: c.tokens, Unk: c.unk, UnkFraction: unkFrac(c.unk, c.tokens),
		Chars: c.chars, UnkChars: c.unc, UnkCharFraction: unkFrac(c.unc, c.chars), DistinctUnkChars: len(c.unkChars), TopUnkChars: []unkChar{}}
	rs := make([]rune, 0, len(c.unkChars))
	for r := range c.unkChars {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool {
		if c.unkChars[rs[i]] != c.unkChars[rs[j]] {
			return c.unkChars[rs[i]] > c.unkChars[rs[j]]
		}
		return rs[i] < rs[j]
	})
	for _, r := range rs[:min(top, len(rs))] {
		st.TopUnkChars = append(st.TopUnkChars, unkChar{Char: string(r), CodePoint: fmt.Sprintf("U+%04X", r), Count: c.unkChars[r]})
	}
	return st
}
