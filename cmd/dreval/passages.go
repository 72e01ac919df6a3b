package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/dreval/dreval/answer"
	"github.com/dreval/dreval/dataset"
)

func init() {
	register(&command{
		name:    "passages",
		summary: "split a corpus into fixed-length passages in DPR's tsv layout",
		run:     runPassages,
	})
}

func runPassages(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "passages", "-in corpus.jsonl -out passages.tsv [-words 100] [-ids doc|seq]")
	in := fs.String("in", "", "corpus `FILE`: BEIR corpus.jsonl or DPR tsv (- for standard input)")
	out := fs.String("out", "", "DPR tsv `FILE` to write: id, text, title with a header line (- for standard output)")
	words := fs.Int("words", 100, "words per passage (split at white space, as DPR split Wikipedia; text without spaces, such as Chinese, is one word)")
	ids := fs.String("ids", "doc", "passage ids: doc (<docid>-<n>, n from 0) or seq (1, 2, ... across the corpus, as DPR's psgs_w100.tsv)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	case *in == "":
		return usageErrorf("-in is required")
	case *out == "":
		return usageErrorf("-out is required (- for standard output)")
	case *words < 1:
		return usageErrorf("-words %d: want at least 1", *words)
	case *ids != "doc" && *ids != "seq":
		return usageErrorf("-ids %q: want doc or seq", *ids)
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
	docs, err := answer.ReadPassages(r, name)
	if err != nil {
		return err
	}
	s := &answer.Splitter{Words: *words}
	if *ids == "seq" {
		s.IDs = answer.Sequential
	}
	var passages []dataset.Doc
	empty := 0
	for _, d := range docs {
		ps, err := s.Split(d)
		if err != nil {
			return err
		}
		if len(ps) == 1 && ps[0].Text == "" {
			empty++
		}
		passages = append(passages, ps...)
	}
	if _, err := answer.NewPassages(passages); err != nil {
		return fmt.Errorf("%s: %w: the input repeats a document id", name, err)
	}
	w := env.stdout
	var f *os.File
	if *out != "-" {
		if f, err = os.Create(*out); err != nil {
			return err
		}
		w = f
	}
	bw := bufio.NewWriter(w)
	err = answer.WriteDPRPassages(bw, passages)
	if err == nil {
		err = bw.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "dreval passages: %d documents -> %d passages of at most %d words", len(docs), len(passages), *words)
	if empty > 0 {
		fmt.Fprintf(env.stderr, " (%d documents without words kept as one passage with empty text)", empty)
	}
	fmt.Fprintln(env.stderr)
	return nil
}

// readAnswerPassages reads DPR tsv or BEIR corpus.jsonl passages.
func readAnswerPassages(path string) ([]dataset.Doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return answer.ReadPassages(f, path)
}
