package report

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
)

// WriteRun writes run in TREC format, "qid Q0 docid rank score tag", one
// line per retrieved document, queries sorted by id, each list in its
// ranking order, ranks from 1. Scores are written with the fewest digits
// that read back as the same float64, so trec_eval and "dreval metrics"
// order the documents exactly as the experiment scored them.
func WriteRun(w io.Writer, run metrics.Run, tag string) error {
	bw := bufio.NewWriter(w)
	qids := make([]string, 0, len(run))
	for q := range run {
		qids = append(qids, q)
	}
	sort.Strings(qids)
	if strings.IndexFunc(tag, unicode.IsSpace) >= 0 || tag == "" {
		return fmt.Errorf("run tag %q: TREC runs need a non-empty tag without spaces", tag)
	}
	var buf []byte
	for _, q := range qids {
		if strings.IndexFunc(q, unicode.IsSpace) >= 0 || q == "" {
			return fmt.Errorf("query id %q cannot be written to a TREC run: it is empty or holds white space", q)
		}
		for i, d := range run[q] {
			if strings.IndexFunc(d.DocID, unicode.IsSpace) >= 0 || d.DocID == "" {
				return fmt.Errorf("document id %q (query %s) cannot be written to a TREC run: it is empty or holds white space", d.DocID, q)
			}
			buf = buf[:0]
			buf = append(buf, q...)
			buf = append(buf, " Q0 "...)
			buf = append(buf, d.DocID...)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(i+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, d.Score, 'g', -1, 64)
			buf = append(buf, ' ')
			buf = append(buf, tag...)
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// WriteQrels writes qrels in TREC format ("qid 0 docid rel"), sorted. Ids
// holding white space cannot be written and are an error.
func WriteQrels(w io.Writer, qrels metrics.Qrels) error {
	bw := bufio.NewWriter(w)
	for _, q := range qrels.QueryIDs() {
		if strings.IndexFunc(q, unicode.IsSpace) >= 0 || q == "" {
			return fmt.Errorf("query id %q cannot be written to TREC qrels: it is empty or holds white space", q)
		}
		docs := make([]string, 0, len(qrels[q]))
		for d := range qrels[q] {
			docs = append(docs, d)
		}
		sort.Strings(docs)
		for _, d := range docs {
			if strings.IndexFunc(d, unicode.IsSpace) >= 0 || d == "" {
				return fmt.Errorf("document id %q (query %s) cannot be written to TREC qrels: it is empty or holds white space", d, q)
			}
			fmt.Fprintf(bw, "%s 0 %s %d\n", q, d, qrels[q][d])
		}
	}
	return bw.Flush()
}

// RunFile returns the output path of run rr of dataset ds:
// runs/<run name>.trec, under runs/<dataset>/ when res holds several
// datasets.
func RunFile(res *results.Results, ds *results.DatasetResult, rr *results.RunResult) string {
	if len(res.Datasets) > 1 {
		return "runs/" + ds.Name + "/" + rr.Name + ".trec"
	}
	return "runs/" + rr.Name + ".trec"
}

// QrelsFile returns the output path of a dataset's qrels.
func QrelsFile(ds *results.DatasetResult) string {
	return "qrels/" + ds.Name + ".qrels"
}
