package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/dreval/dreval/encoder/tokenizer"
)

func init() {
	register(&command{
		name:    "tokenize",
		summary: "print the token ids of each input line (tokenizer.json, vocab.txt, vocab.json+merges.txt, SentencePiece .model, or a model directory)",
		run:     runTokenize,
	})
}

// tokenizeLine is one line of "dreval tokenize -json" output.
type tokenizeLine struct {
	Text   string   `json:"text"`
	IDs    []int32  `json:"ids"`
	Tokens []string `json:"tokens"`
}

func runTokenize(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "tokenize", "-tokenizer PATH [-json] [-no-special] [-max-len N] [-in FILE]")
	tokPath := fs.String("tokenizer", "", "a tokenizer.json, vocab.txt, vocab.json (merges.txt beside it) or SentencePiece .model file, or a model directory holding one (required)")
	asJSON := fs.Bool("json", false, `print one JSON object per line: {"text","ids","tokens"}`)
	noSpecial := fs.Bool("no-special", false, "do not add special tokens ([CLS] ... [SEP], <s> ... </s>)")
	maxLen := fs.Int("max-len", -1, "truncate to N ids, special tokens included; 0 = no truncation; default: as the tokenizer file says")
	in := fs.String("in", "", "read lines from FILE instead of standard input")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	if *tokPath == "" {
		return usageErrorf("-tokenizer is required")
	}
	if *maxLen < -1 {
		return usageErrorf("-max-len %d: want 0 (no truncation) or a positive number", *maxLen)
	}
	tk, err := tokenizer.Load(*tokPath)
	if err != nil {
		return err
	}
	o := tk.DefaultOptions()
	o.AddSpecial = !*noSpecial
	if *maxLen >= 0 {
		o.MaxLength = *maxLen
	}
	var r io.Reader = env.stdin
	name := "standard input"
	if *in != "" {
		f, err := os.Open(*in)
		if err != nil {
			return err
		}
		defer f.Close()
		r, name = f, *in
	}
	w := bufio.NewWriter(env.stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	br := bufio.NewReader(r)
	var num []byte
	for line := 1; ; line++ {
		text, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s: line %d: %w", name, line, err)
		}
		if text == "" && err == io.EOF {
			break
		}
		text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
		e := tk.EncodeWith(text, o)
		if *asJSON {
			// Encode ends the object with the line's newline.
			if err := enc.Encode(tokenizeLine{text, e.IDs, e.Tokens}); err != nil {
				return err
			}
		} else {
			for i, id := range e.IDs {
				if i > 0 {
					w.WriteByte(' ')
				}
				num = strconv.AppendInt(num[:0], int64(id), 10)
				w.Write(num)
			}
			w.WriteByte('\n')
		}
		if err == io.EOF {
			break
		}
	}
	return w.Flush()
}
