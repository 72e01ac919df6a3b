package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
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

const searchUsage = `-corpus EMB.npy[,EMB2.npy...] -queries EMB.npy [flags] -out run.trec

Several -corpus files are shards of one corpus, in order (as "dreval encode
-shard I/N" writes them): they are searched one at a time and their top-k
lists merged, so memory holds one shard and k hits per query, and the run is
byte for byte the run of the concatenated corpus, ties broken alike. Their
rows are named by -corpus-ids (one ids file per shard, comma-separated), else
by their row numbers in the concatenation.`

func runSearch(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "search", searchUsage)
	corpusPath := fs.String("corpus", "", "corpus embeddings: .npy of shape (docs, dim), float32 or float16; several shards of one corpus comma-separated, in order")
	corpusIDs := fs.String("corpus-ids", "", "file with one document id per corpus row, one per -corpus file, comma-separated (default: row numbers 0..n-1 of the whole corpus)")
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
	shards := strings.Split(*corpusPath, ",")
	var shardIDs []string
	if *corpusIDs != "" {
		shardIDs = strings.Split(*corpusIDs, ",")
		if len(shardIDs) != len(shards) {
			return usageErrorf("-corpus-ids names %d files for %d -corpus files: want one ids file per shard", len(shardIDs), len(shards))
		}
	}
	for i, p := range shards {
		if p == "" || (shardIDs != nil && shardIDs[i] == "") {
			return usageErrorf("-corpus %q / -corpus-ids %q: an empty file name", *corpusPath, *corpusIDs)
		}
	}
	queries, err := retrieval.ReadNPYFile(*queriesPath)
	if err != nil {
		return err
	}
	var qIDs []string
	if *queryIDs != "" {
		if qIDs, err = readIDs(*queryIDs, queries.Rows, *queriesPath); err != nil {
			return err
		}
	}
	var hits [][]retrieval.Hit
	var docIDs []string
	if len(shards) == 1 {
		corpus, err := retrieval.ReadNPYFile(*corpusPath)
		if err != nil {
			return err
		}
		if *corpusIDs != "" {
			if docIDs, err = readIDs(*corpusIDs, corpus.Rows, *corpusPath); err != nil {
				return err
			}
		}
		if err := retrieval.CheckSearch(corpus, queries, *corpusPath, *queriesPath); err != nil {
			return err
		}
		hits, err = retrieval.TopK(corpus, queries, retrieval.Options{K: *k, Scoring: scoring, Threads: *threads, DocIDs: docIDs})
		if err != nil {
			return err
		}
	} else if hits, docIDs, err = searchShards(shards, shardIDs, queries, *queriesPath, retrieval.Options{K: *k, Scoring: scoring, Threads: *threads}); err != nil {
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

// searchShards searches the corpus shards one after the other, each read,
// searched and dropped before the next is read, and merges their top-k
// lists (retrieval.Merger): the result is the top-k of the concatenated
// corpus. Rows are named by the shards' ids files, else by their row
// numbers in the concatenation; an id in two shards is an error.
func searchShards(shards, idFiles []string, queries *retrieval.Matrix, queriesPath string, opt retrieval.Options) ([][]retrieval.Hit, []string, error) {
	merger := retrieval.NewMerger(queries.Rows, opt.K)
	type place struct {
		shard, line int
	}
	var seen map[string]place
	if idFiles != nil {
		seen = map[string]place{}
	}
	offset, dim := 0, -1
	for s, path := range shards {
		corpus, err := retrieval.ReadNPYFile(path)
		if err != nil {
			return nil, nil, err
		}
		if dim >= 0 && corpus.Dim != dim {
			return nil, nil, fmt.Errorf("%s has %d-dimensional vectors, %s has %d: shards of one corpus have one dimension", path, corpus.Dim, shards[0], dim)
		}
		dim = corpus.Dim
		if err := retrieval.CheckSearch(corpus, queries, path, queriesPath); err != nil {
			return nil, nil, err
		}
		ids := retrieval.ShardIDs(offset, corpus.Rows)
		if idFiles != nil {
			if ids, err = readIDs(idFiles[s], corpus.Rows, path); err != nil {
				return nil, nil, err
			}
			for i, id := range ids {
				if p, dup := seen[id]; dup {
					return nil, nil, fmt.Errorf("%s:%d: id %q is also on line %d of %s: the shards' ids must be unique", idFiles[s], i+1, id, p.line, idFiles[p.shard])
				}
				seen[id] = place{s, i + 1}
			}
		}
		o := opt
		o.DocIDs = ids
		hits, err := retrieval.TopK(corpus, queries, o)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if err := merger.Add(hits, ids); err != nil {
			return nil, nil, err
		}
		offset += corpus.Rows
		corpus, hits = nil, nil
		// The next shard's matrix replaces this one: give the memory back
		// first, so that the peak holds one shard.
		runtime.GC()
	}
	hits, ids := merger.Hits()
	return hits, ids, nil
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
