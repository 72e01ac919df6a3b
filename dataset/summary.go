package dataset

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/dreval/dreval/metrics"
)

// Summary counts a BEIR-layout folder's contents without keeping them in
// memory.
type Summary struct {
	Docs    int
	Queries int
	Splits  []SplitSummary
}

// SplitSummary counts the judgments of one split.
type SplitSummary struct {
	Name string
	// Queries counts the judged query ids, Judgments the (query, doc)
	// pairs.
	Queries   int
	Judgments int
}

// Summarize streams the corpus, queries and every qrels/<split>.tsv of the
// BEIR-layout folder dir and counts them. It checks every line's syntax
// but, unlike LoadBEIR, not that ids are unique.
func Summarize(dir string) (Summary, error) {
	var s Summary
	fsys := os.DirFS(dir)
	err := withFile(fsys, dir, "corpus.jsonl", func(r io.Reader, name string) error {
		cr := NewCorpusReader(r, name)
		for {
			if _, err := cr.Next(); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			s.Docs++
		}
	})
	if err != nil {
		return s, err
	}
	if s.Docs == 0 {
		return s, fmt.Errorf("%s: the corpus is empty", filepath.Join(dir, "corpus.jsonl"))
	}
	err = withFile(fsys, dir, "queries.jsonl", func(r io.Reader, name string) error {
		qr := NewQueryReader(r, name)
		for {
			if _, err := qr.Next(); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			s.Queries++
		}
	})
	if err != nil {
		return s, err
	}
	for _, split := range splitsFS(fsys) {
		err := withFile(fsys, dir, path.Join("qrels", split+".tsv"), func(r io.Reader, name string) error {
			q, err := metrics.ReadQrels(r, name)
			if err != nil {
				return err
			}
			ss := SplitSummary{Name: split, Queries: len(q)}
			for _, docs := range q {
				ss.Judgments += len(docs)
			}
			s.Splits = append(s.Splits, ss)
			return nil
		})
		if err != nil {
			return s, err
		}
	}
	return s, nil
}
