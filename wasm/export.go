//go:build js && wasm

package main

import (
	"archive/zip"
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/metrics"
)

// resultsCSV returns one row per dataset, model, rate and measure: the
// clean and perturbed means, the difference, its CI and p-values.
func resultsCSV(res *experiment.Results) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write([]string{"dataset", "model", "perturbation", "rate", "seeds", "convention", "measure", "clean", "perturbed", "diff", "ci_low", "ci_high", "p_randomization", "p_ttest", "queries"})
	f := func(v experiment.Float) string { return strconv.FormatFloat(float64(v), 'g', -1, 64) }
	for _, ds := range res.Datasets {
		for _, mr := range ds.Models {
			for _, rs := range mr.Rates {
				for _, conv := range []struct {
					name  string
					names []string
					drop  map[string]experiment.Comparison
				}{{"st", res.STMeasures, rs.Drop}, {"trec", res.TRECMeasures, rs.TRECDrop}} {
					for _, m := range conv.names {
						c, ok := conv.drop[m]
						if !ok {
							continue
						}
						w.Write([]string{ds.Name, mr.Model, res.Config.Perturbation, experiment.FormatRate(rs.Rate), strconv.Itoa(len(rs.Seeds)),
							conv.name, m, f(c.MeanA), f(c.MeanB), f(c.MeanDiff), f(c.CILow), f(c.CIHigh), f(c.PRandomization), f(c.PTTest), strconv.Itoa(c.N)})
					}
				}
			}
		}
	}
	w.Flush()
	return b.String()
}

// trecRun returns a run in TREC format ("qid Q0 docid rank score tag"),
// queries sorted, documents in rank order.
func trecRun(rr *experiment.RunResult) string {
	var b strings.Builder
	qids := rr.Run.QueryIDs()
	for _, q := range qids {
		list := slices.Clone(rr.Run[q])
		slices.SortStableFunc(list, func(x, y metrics.ScoredDoc) int { return cmp.Compare(y.Score, x.Score) })
		for i, d := range list {
			b.WriteString(q + " Q0 " + d.DocID + " " + strconv.Itoa(i+1) + " " + strconv.FormatFloat(d.Score, 'g', -1, 64) + " " + rr.Name + "\n")
		}
	}
	return b.String()
}

// runsZip returns a zip archive of every run in TREC format, with each
// dataset's qrels beside them: runs/<run>.trec and qrels/<dataset>.qrels.
func runsZip(res *experiment.Results) ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	add := func(name, text string) error {
		w, err := z.Create(name)
		if err != nil {
			return err
		}
		_, err = w.Write([]byte(text))
		return err
	}
	for _, ds := range res.Datasets {
		var q strings.Builder
		qids := make([]string, 0, len(ds.Qrels))
		for id := range ds.Qrels {
			qids = append(qids, id)
		}
		sort.Strings(qids)
		for _, id := range qids {
			docs := make([]string, 0, len(ds.Qrels[id]))
			for d := range ds.Qrels[id] {
				docs = append(docs, d)
			}
			sort.Strings(docs)
			for _, d := range docs {
				fmt.Fprintf(&q, "%s 0 %s %d\n", id, d, ds.Qrels[id][d])
			}
		}
		if err := add("qrels/"+ds.Name+".qrels", q.String()); err != nil {
			return nil, err
		}
		for _, mr := range ds.Models {
			for _, rr := range append([]*experiment.RunResult{mr.Clean}, mr.Perturbed...) {
				if rr == nil {
					continue
				}
				if err := add("runs/"+ds.Name+"__"+rr.Name+".trec", trecRun(rr)); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
