//go:build js && wasm

package main

import (
	"bytes"
	"fmt"
	"strings"
	"syscall/js"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/retrieval"
	"github.com/dreval/dreval/ui"
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
// does. msg holds corpus and queries ({name, data: Uint8Array}),
// corpusIDs and queryIDs ({name, text}, or null for row numbers) and
// qrels ({name, text}).
func (a *app) vectors(msg js.Value) (map[string]any, error) {
	corpus, err := readNPYMsg(msg.Get("corpus"))
	if err != nil {
		return nil, err
	}
	queries, err := readNPYMsg(msg.Get("queries"))
	if err != nil {
		return nil, err
	}
	cname, qname := msg.Get("corpus").Get("name").String(), msg.Get("queries").Get("name").String()
	docIDs, err := idsMsg(msg.Get("corpusIDs"), corpus.Rows, cname)
	if err != nil {
		return nil, err
	}
	qIDs, err := idsMsg(msg.Get("queryIDs"), queries.Rows, qname)
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
	rname := "search of " + qname
	qrelsName, qrelsText := msg.Get("qrels").Get("name").String(), msg.Get("qrels").Get("text").String()
	res, err := scoring(msg).Evaluate(strings.NewReader(qrelsText), qrelsName, strings.NewReader(run), rname)
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	if err := metrics.WriteTREC(&text, res, false); err != nil {
		return nil, err
	}
	var csv strings.Builder
	if err := metrics.WriteCSV(&csv, res, true); err != nil {
		return nil, err
	}
	h, err := ui.Render(ui.NewMetricsView(rname, res, text.String()))
	if err != nil {
		return nil, err
	}
	return map[string]any{"html": h, "text": text.String(), "csv": csv.String(), "run": run,
		"docs": corpus.Rows, "queries": queries.Rows, "dim": corpus.Dim}, nil
}

// readNPYMsg reads the .npy of an uploaded {name, data} file.
func readNPYMsg(f js.Value) (*retrieval.Matrix, error) {
	if f.IsUndefined() || f.IsNull() {
		return nil, fmt.Errorf("missing embeddings file")
	}
	name := f.Get("name").String()
	return retrieval.ReadNPY(bytes.NewReader(bytesOf(f.Get("data"))), name)
}

// idsMsg reads an uploaded id file ({name, text}; null: row numbers) as
// "dreval search -corpus-ids" does: one unique id per line, no white
// space, one per row of the matrix called matrix.
func idsMsg(f js.Value, rows int, matrix string) ([]string, error) {
	if f.IsUndefined() || f.IsNull() {
		return nil, nil
	}
	return retrieval.ParseIDs(f.Get("text").String(), f.Get("name").String(), rows, matrix)
}
