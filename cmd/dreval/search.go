package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dreval/dreval/retrieval"
)

func init() {
	register(&command{
		name:    "search",
		summary: "exact top-k retrieval over your own embeddings (.npy), written as a TREC run",
		run:     runSearch,
	})
}

func runSearch(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "search", "-corpus EMB.npy -queries EMB.npy [flags] -out run.trec")
	corpusPath := fs.String("corpus", "", "corpus embeddings: .npy of shape (docs, dim), float32 or float16")
	corpusIDs := fs.String("corpus-ids", "", "file with one document id per corpus row (default: row numbers 0..n-1)")
	queriesPath := fs.String("queries", "", "query embeddings: .npy of shape (queries, dim)")
	queryIDs := fs.String("query-ids", "", "file with one query id per query row (default: row numbers 0..n-1)")
	k := fs.Int("k", 100, "documents retrieved per query (all of them if the corpus is smaller)")
	score := fs.String("score", "cos", "similarity: cos (cosine) or dot (raw dot product)")
	threads := fs.Int("threads", 0, "goroutines scoring queries in parallel (0: one per CPU)")
	tag := fs.String("tag", "dreval", "run tag written in the sixth column")
	out := fs.String("out", "", "TREC run file to write (- for standard output)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	case *corpusPath == "":
		return usageErrorf("-corpus is required")
	case *queriesPath == "":
		return usageErrorf("-queries is required")
	case *out == "":
		return usageErrorf("-out is required (- for standard output)")
	case *k < 1:
		return usageErrorf("-k %d: want at least 1", *k)
	case *threads < 0:
		return usageErrorf("-threads %d: want 0 (one per CPU) or more", *threads)
	case *tag == "" || strings.ContainsAny(*tag, " \t\r\n"):
		return usageErrorf("-tag %q: want a non-empty name without spaces", *tag)
	}
	scoring, err := retrieval.ParseScoring(*score)
	if err != nil {
		return usageErrorf("-score: %v", err)
	}
	corpus, err := retrieval.ReadNPYFile(*corpusPath)
	if err != nil {
		return err
	}
	queries, err := retrieval.ReadNPYFile(*queriesPath)
	if err != nil {
		return err
	}
	var docIDs, qIDs []string
	if *corpusIDs != "" {
		if docIDs, err = readIDs(*corpusIDs, corpus.Rows, *corpusPath); err != nil {
			return err
		}
	}
	if *queryIDs != "" {
		if qIDs, err = readIDs(*queryIDs, queries.Rows, *queriesPath); err != nil {
			return err
		}
	}
	if err := retrieval.CheckSearch(corpus, queries, *corpusPath, *queriesPath); err != nil {
		return err
	}
	hits, err := retrieval.TopK(corpus, queries, retrieval.Options{K: *k, Scoring: scoring, Threads: *threads, DocIDs: docIDs})
	if err != nil {
		return err
	}
	var w io.Writer = env.stdout
	var f *os.File
	if *out != "-" {
		if f, err = os.Create(*out); err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if err := retrieval.WriteRun(w, hits, qIDs, docIDs, *tag); err != nil {
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", *out, err)
		}
	}
	return nil
}

// readIDs reads an ids file for a matrix of the given rows (see
// retrieval.ParseIDs).
func readIDs(path string, rows int, matrix string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return retrieval.ParseIDs(string(b), path, rows, matrix)
}
