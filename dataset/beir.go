package dataset

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dreval/dreval/metrics"
)

// LoadBEIR loads a collection in the BEIR folder layout from dir:
// corpus.jsonl, queries.jsonl (or queries.<split>.jsonl) and
// qrels/<split>.tsv, plus answers.jsonl when present. Every query of the
// queries file is kept, judged for split or not; Stats and Warnings count
// the unjudged ones. Duplicate document or query ids and an empty corpus
// are errors.
//
// A DPR-style folder, with answers.jsonl and no qrels folder (no
// qrels/*.tsv of any split), loads with NoQrels set and Qrels nil. Without
// qrels and without answers the folder has nothing to evaluate against,
// and a split missing beside the qrels of others is taken for a mistake:
// both are errors.
func LoadBEIR(dir, split string) (*Collection, error) {
	return loadBEIR(os.DirFS(dir), dir, filepath.Base(filepath.Clean(dir)), split, true)
}

// LoadTopics loads the queries and qrels of a BEIR-layout folder that has
// no corpus (as for users who bring their own corpus): queries.<split>.jsonl
// or queries.jsonl, and qrels/<split>.tsv (or, as for LoadBEIR, no qrels
// at all and answers.jsonl). The collection's Corpus is nil.
func LoadTopics(dir, split string) (*Collection, error) {
	return loadBEIR(os.DirFS(dir), dir, filepath.Base(filepath.Clean(dir)), split, false)
}

// LoadFS loads the collection in the BEIR folder layout at dir of fsys
// (a slash-separated path), as LoadBEIR does from disk: the browser app
// loads the folders it is given from memory. Errors name the files by
// their path in fsys.
func LoadFS(fsys fs.FS, dir, split string) (*Collection, error) {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	return loadBEIR(sub, dir, path.Base(path.Clean(dir)), split, true)
}

// LoadTopicsFS loads the queries and qrels (or answers) of the BEIR folder
// at dir of fsys, as LoadTopics does from disk: the corpus is not read
// (Corpus is nil). A pipeline that streams the corpus elsewhere plans its
// queries with it.
func LoadTopicsFS(fsys fs.FS, dir, split string) (*Collection, error) {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	return loadBEIR(sub, dir, path.Base(path.Clean(dir)), split, false)
}

// IsFile reports whether file (slash-separated, relative to a collection
// folder) is one the loaders read: corpus.jsonl, queries.jsonl or
// queries.<split>.jsonl, qrels/<split>.tsv, answers.jsonl and
// yesno_query_ids.txt. The browser app copies only these of a folder it
// is given.
func IsFile(file string) bool {
	switch file {
	case "corpus.jsonl", "queries.jsonl", AnswersFile, NotSpansFile:
		return true
	}
	if q, ok := strings.CutPrefix(file, "queries."); ok && strings.HasSuffix(q, ".jsonl") && !strings.Contains(q, "/") {
		return true
	}
	q, ok := strings.CutPrefix(file, "qrels/")
	return ok && strings.HasSuffix(q, ".tsv") && !strings.Contains(q, "/") && len(q) > len(".tsv")
}

// Load loads "demo" (the embedded demo collection; write "./demo" for a
// folder of that name) or a BEIR-layout directory.
func Load(pathOrName, split string) (*Collection, error) {
	if pathOrName == "demo" {
		return Demo(split)
	}
	fi, err := os.Stat(pathOrName)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: not a built-in collection (\"demo\") and %w", pathOrName, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("dataset %q is a file; want a directory in the BEIR layout (corpus.jsonl, queries.jsonl, qrels/<split>.tsv; answers.jsonl in place of qrels for a DPR-style question set) or \"demo\"", pathOrName)
	}
	return LoadBEIR(pathOrName, split)
}

// loadBEIR loads from fsys; where names the folder in error messages.
func loadBEIR(fsys fs.FS, where, name, split string, withCorpus bool) (*Collection, error) {
	if split == "" || strings.ContainsAny(split, `/\`) || split == "." || split == ".." {
		return nil, fmt.Errorf("%s: invalid split %q", where, split)
	}
	c := &Collection{Name: name}
	if withCorpus {
		corpus, err := readCorpusFile(fsys, where, "corpus.jsonl")
		if err != nil {
			return nil, err
		}
		c.Corpus = corpus
	}
	qname := "queries." + split + ".jsonl"
	if _, err := fs.Stat(fsys, qname); err != nil {
		qname = "queries.jsonl"
	}
	queries, err := readQueriesFile(fsys, where, qname)
	if err != nil {
		return nil, err
	}
	c.Queries = queries
	qrelsName := path.Join("qrels", split+".tsv")
	err = withFile(fsys, where, qrelsName, func(r io.Reader, name string) error {
		q, err := metrics.ReadQrels(r, name)
		c.Qrels = q
		return err
	})
	splits := splitsFS(fsys)
	switch {
	case errors.Is(err, fs.ErrNotExist) && len(splits) > 0:
		// Qrels of other splits: the split asked for is likely a
		// mistake, never a reason to evaluate without judgments.
		return nil, fmt.Errorf("%s: no qrels for split %q (%s); splits here: %s", where, split, qrelsName, splitList(splits))
	case errors.Is(err, fs.ErrNotExist):
		c.NoQrels = true
	case err != nil:
		return nil, err
	}
	err = withFile(fsys, where, AnswersFile, func(r io.Reader, name string) error {
		a, e, err := readAnswers(r, name)
		c.Answers, c.ExtractiveAnswers = a, e
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	// Without qrels the answers are the only ground truth: a folder with
	// neither has nothing to evaluate against.
	if c.NoQrels && len(c.Answers) == 0 {
		why := "no " + AnswersFile
		if c.Answers != nil {
			why = AnswersFile + " is empty"
		}
		return nil, fmt.Errorf("%s: no qrels for split %q (%s) and %s: nothing to evaluate against (a folder without qrels needs the answers of a DPR-style question set)", where, split, qrelsName, why)
	}
	err = withFile(fsys, where, NotSpansFile, func(r io.Reader, name string) error {
		ids, err := readIDList(r, name)
		c.NotSpans = ids
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	c.warn()
	if c.NoQrels {
		c.Warnings = append([]string{fmt.Sprintf("no qrels for split %q (%s): no relevance judgments, only the answers of %s", split, qrelsName, AnswersFile)}, c.Warnings...)
	}
	return c, nil
}

// AnswersFile names the file of a collection holding its answer strings
// (Collection.Answers).
const AnswersFile = "answers.jsonl"

// NotSpansFile names the file of a collection listing the queries whose
// answers are not passage spans (Collection.NotSpans).
const NotSpansFile = "yesno_query_ids.txt"

// readIDList reads one id per line; blank lines are skipped, a repeated id
// is an error.
func readIDList(r io.Reader, name string) (map[string]bool, error) {
	lr := newLineReader(r, name)
	ids := map[string]bool{}
	for {
		b, err := lr.next()
		if err == io.EOF {
			return ids, nil
		}
		if err != nil {
			return nil, err
		}
		id := strings.TrimSpace(string(b))
		if id == "" {
			continue
		}
		if ids[id] {
			return nil, lr.errorf("query id %q listed twice", id)
		}
		ids[id] = true
	}
}

// withFile opens name in fsys and calls f with it; the name passed to f
// (for error messages) is where/name.
func withFile(fsys fs.FS, where, name string, f func(io.Reader, string) error) error {
	file, err := fsys.Open(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s: %w", filepath.Join(where, name), err)
	}
	defer file.Close()
	return f(file, filepath.Join(where, name))
}

func readCorpusFile(fsys fs.FS, where, name string) ([]Doc, error) {
	var docs []Doc
	err := withFile(fsys, where, name, func(r io.Reader, name string) error {
		cr := NewCorpusReader(r, name)
		seen := map[string]int{}
		for {
			d, err := cr.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if first, dup := seen[d.ID]; dup {
				return fmt.Errorf("%s:%d: duplicate doc id %q (first on line %d)", name, cr.Line(), d.ID, first)
			}
			seen[d.ID] = cr.Line()
			docs = append(docs, d)
		}
	})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: the corpus is empty", filepath.Join(where, name))
	}
	return docs, nil
}

func readQueriesFile(fsys fs.FS, where, name string) ([]Query, error) {
	var queries []Query
	err := withFile(fsys, where, name, func(r io.Reader, name string) error {
		qr := NewQueryReader(r, name)
		seen := map[string]int{}
		for {
			q, err := qr.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if first, dup := seen[q.ID]; dup {
				return fmt.Errorf("%s:%d: duplicate query id %q (first on line %d)", name, qr.lr.Line(), q.ID, first)
			}
			seen[q.ID] = qr.lr.Line()
			queries = append(queries, q)
		}
	})
	if err != nil {
		return nil, err
	}
	if len(queries) == 0 {
		return nil, fmt.Errorf("%s: no queries", filepath.Join(where, name))
	}
	return queries, nil
}

// Splits lists the splits of a BEIR-layout directory: the names of its
// qrels/<split>.tsv files, sorted.
func Splits(dir string) []string {
	return splitsFS(os.DirFS(dir))
}

func splitsFS(fsys fs.FS) []string {
	m, _ := fs.Glob(fsys, "qrels/*.tsv")
	var out []string
	for _, p := range m {
		out = append(out, strings.TrimSuffix(path.Base(p), ".tsv"))
	}
	sort.Strings(out)
	return out
}

func splitList(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}
