package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
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
	if corpus.Rows == 0 {
		return fmt.Errorf("%s: empty corpus (shape (0, %d)): nothing to search", *corpusPath, corpus.Dim)
	}
	if queries.Dim != corpus.Dim {
		return fmt.Errorf("%s has %d-dimensional vectors, %s has %d: embed both with the same model", *queriesPath, queries.Dim, *corpusPath, corpus.Dim)
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
	if err := writeRun(w, hits, qIDs, docIDs, *tag); err != nil {
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", *out, err)
		}
	}
	return nil
}

// readIDs reads one id per line from path; there must be exactly rows of
// them (matrix names the embedding file they label).
func readIDs(path string, rows int, matrix string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := string(b)
	s = strings.TrimSuffix(s, "\n")
	var ids []string
	if len(b) > 0 {
		ids = strings.Split(s, "\n")
	}
	line := make(map[string]int, len(ids))
	for i, id := range ids {
		id = strings.TrimSuffix(id, "\r")
		if id == "" || strings.ContainsAny(id, " \t") {
			return nil, fmt.Errorf("%s:%d: id %q is empty or contains white space, which a TREC run cannot hold", path, i+1, id)
		}
		if prev, dup := line[id]; dup {
			return nil, fmt.Errorf("%s:%d: id %q repeats line %d: ids must be unique", path, i+1, id, prev)
		}
		line[id] = i + 1
		ids[i] = id
	}
	if len(ids) != rows {
		return nil, fmt.Errorf("%s has %d ids but %s has %d rows: want one id per line for every row", path, len(ids), matrix, rows)
	}
	return ids, nil
}

// writeRun writes hits as a TREC run: "qid Q0 docid rank score tag", with
// float32 scores printed in the shortest form that reads back exactly.
func writeRun(w io.Writer, hits [][]retrieval.Hit, qIDs, docIDs []string, tag string) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	line := make([]byte, 0, 256)
	var q, d []byte
	for qi, hs := range hits {
		q = appendID(q[:0], qi, qIDs)
		for r, h := range hs {
			d = appendID(d[:0], h.Doc, docIDs)
			line = append(line[:0], q...)
			line = append(line, " Q0 "...)
			line = append(line, d...)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(r+1), 10)
			line = append(line, ' ')
			line = strconv.AppendFloat(line, float64(h.Score), 'g', -1, 32)
			line = append(line, ' ')
			line = append(line, tag...)
			line = append(line, '\n')
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// appendID appends ids[i], or i in decimal when ids is nil.
func appendID(b []byte, i int, ids []string) []byte {
	if ids != nil {
		return append(b, ids[i]...)
	}
	return strconv.AppendInt(b, int64(i), 10)
}
