package browser

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/dreval/dreval/retrieval"
)

// vectorsK and vectorsTag are "dreval search"'s defaults: the page's run
// is the one "dreval search -corpus C -queries Q -corpus-ids ... -out R"
// writes.
const (
	vectorsK   = 100
	vectorsTag = "dreval"
)

// vectors searches uploaded corpus and query embeddings (.npy, with
// optional id files) as "dreval search" does (exact top-100 by cosine),
// then scores the run against the uploaded qrels as "dreval metrics"
// does.
func (a *App) vectors(q *VectorsRequest) (*MetricsReply, error) {
	corpus, err := readNPY(q.Corpus)
	if err != nil {
		return nil, err
	}
	queries, err := readNPY(q.Queries)
	if err != nil {
		return nil, err
	}
	cname, qname := q.Corpus.Name, q.Queries.Name
	docIDs, err := readIDs(q.CorpusIDs, corpus.Rows, cname)
	if err != nil {
		return nil, err
	}
	qIDs, err := readIDs(q.QueryIDs, queries.Rows, qname)
	if err != nil {
		return nil, err
	}
	if err := retrieval.CheckSearch(corpus, queries, cname, qname); err != nil {
		return nil, err
	}
	hits, err := retrieval.TopK(corpus, queries, retrieval.Options{K: vectorsK, Scoring: retrieval.Cosine, Threads: 1, DocIDs: docIDs})
	if err != nil {
		return nil, err
	}
	var runBuf strings.Builder
	if err := retrieval.WriteRun(&runBuf, hits, qIDs, docIDs, vectorsTag); err != nil {
		return nil, err
	}
	run := runBuf.String()
	return a.metrics(q.Scoring, q.Qrels, "search of "+qname, run, &MetricsReply{Run: run, Docs: corpus.Rows, Queries: queries.Rows, Dim: corpus.Dim})
}

// readNPY reads the .npy of an uploaded file.
func readNPY(f *BinaryFile) (*retrieval.Matrix, error) {
	if f == nil {
		return nil, fmt.Errorf("missing embeddings file")
	}
	return retrieval.ReadNPY(bytes.NewReader(f.Data), f.Name)
}

// readIDs reads an uploaded id file (nil: row numbers) as "dreval search
// -corpus-ids" does: one unique id per line, no white space, one per row
// of the matrix called matrix.
func readIDs(f *TextFile, rows int, matrix string) ([]string, error) {
	if f == nil {
		return nil, nil
	}
	return retrieval.ParseIDs(f.Text, f.Name, rows, matrix)
}
