package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
)

// paperLabels are the paper's column names for the st measures.
var paperLabels = map[string]string{
	"accuracy@1":  "Acc@1",
	"precision@1": "Prec@1",
	"recall@1":    "Rec@1",
	"ndcg@10":     "NDCG@10",
	"mrr@10":      "MRR@10",
	"map@100":     "MAP@100",
}

// Label returns the column name of a measure of convention c: the
// paper's for the st measures ("NDCG@10"), the measure name otherwise.
func Label(c metrics.Convention, measure string) string {
	if c == metrics.ConventionST {
		if l, ok := paperLabels[measure]; ok {
			return l
		}
	}
	return measure
}

// conventionText is how the tables of a convention are named, titled and
// described: the one place that presents a convention.
type conventionText struct {
	name    string // the table's name: prefix + dataset name
	title   string // appended to the dataset's name
	what    string // the measures, as a caption names them
	caption string
}

func textOf(c metrics.Convention) conventionText {
	switch c {
	case metrics.ConventionST:
		return conventionText{title: "", what: "st measures",
			caption: "Convention: sentence-transformers (st); queries without a relevant document dropped."}
	case metrics.ConventionTREC:
		return conventionText{name: "trec-", title: ": trec_eval measures", what: "trec_eval measures",
			caption: "Convention: trec_eval (trec); every judged query averaged."}
	case metrics.ConventionDuReader:
		return conventionText{name: "dureader-", title: ": DuReader_retrieval measures", what: "DuReader_retrieval measures",
			caption: "Convention: DuReader_retrieval's official script (the first 50 ids of each list in ranked order; every reference query averaged, a missing one scoring 0; recall@k is a hit rate)."}
	}
	return conventionText{name: c.String() + "-", title: ": " + c.String() + " measures", what: c.String() + " measures",
		caption: "Convention: " + c.String() + "."}
}

// RateLabel returns "clean" for 0 and "perturbed 5%" for 0.05.
func RateLabel(rate float64) string {
	if rate == 0 {
		return "clean"
	}
	return "perturbed " + Percent(rate)
}

// Percent writes a rate as a percentage: 0.05 -> "5%", 0.125 -> "12.5%".
func Percent(rate float64) string {
	return strconv.FormatFloat(rate*100, 'f', -1, 64) + "%"
}

func seedsNote(res *results.Results) string {
	seeds := res.Config.Seeds
	switch {
	case len(res.Config.PerturbedRates()) == 0:
		return "Clean runs only (no rate > 0)."
	case len(seeds) == 1:
		return fmt.Sprintf("Perturbed rows: one seed (%s, mode %s), so no sd.", seedList(seeds), res.Config.Perturbation)
	}
	return fmt.Sprintf("Perturbed rows: mean ± sd over %d seeds (%s, mode %s).", len(seeds), seedList(seeds), res.Config.Perturbation)
}

func seedList(s []uint64) string {
	switch {
	case len(s) == 0:
		return "none"
	case len(s) == 1:
		return fmt.Sprintf("seed %d", s[0])
	case s[len(s)-1]-s[0] == uint64(len(s)-1):
		return fmt.Sprintf("seeds %d-%d", s[0], s[len(s)-1])
	}
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.FormatUint(v, 10)
	}
	return "seeds " + strings.Join(parts, ",")
}

// MainTable is the paper's table for one dataset: for every model a clean
// row and one row per perturbation rate, columns the st measures (Acc@1
// Prec@1 Rec@1 NDCG@10 MRR@10 MAP@100), perturbed cells mean ± sd over
// seeds (ConventionTable of the st convention).
func MainTable(res *results.Results, ds *results.DatasetResult) *Table {
	return ConventionTable(res, ds, metrics.ConventionST)
}

// ConventionTable is MainTable with the measures of convention c; nil when
// the runs were not scored under c. For a dataset without qrels
// (QrelsAbsent) it has no rows, only a title and caption saying why:
// callers skip tables without rows (see DatasetTables), as they skip a
// DropTable of clean runs.
func ConventionTable(res *results.Results, ds *results.DatasetResult, c metrics.Convention) *Table {
	measures := res.Measures(c)
	if measures == nil {
		return nil
	}
	ct := textOf(c)
	if ds.QrelsAbsent {
		return noQrelsTable(ct.name+ds.Name, ds.Name+ct.title+": no relevance judgments (qrels)", ct.what, res, ds)
	}
	t := &Table{
		Name:    ct.name + ds.Name,
		Title:   ds.Name + ct.title,
		Header:  append([]string{"Model", "Run"}, labels(c, measures)...),
		Groups:  map[int]bool{},
		Caption: seedsNote(res) + " " + ct.caption + scoresNote(ds),
	}
	if c == metrics.ConventionST {
		t.Title = fmt.Sprintf("%s (%d queries, %d documents)", ds.Name, ds.Judged, ds.Docs)
	}
	for _, m := range ds.Models {
		t.Groups[len(t.Rows)] = true
		row := []Cell{TextCell(m.Model), TextCell("clean")}
		for _, name := range measures {
			row = append(row, NumCell(m.Clean.Means[c][name]))
		}
		t.Rows = append(t.Rows, row)
		for _, rs := range m.Rates {
			row := []Cell{TextCell(m.Model), TextCell(RateLabel(rs.Rate))}
			for _, name := range measures {
				row = append(row, StatCell(rs.Stats[c][name]))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// scoresNote says how the dataset's dense models scored, as " Scores:
// minilm cosine, dpr dot product." ("" without dense models).
func scoresNote(ds *results.DatasetResult) string {
	var parts []string
	for _, m := range ds.Models {
		if m.Kind != results.Dense || m.Score == "" {
			continue
		}
		name := map[string]string{"cos": "cosine", "dot": "dot product"}[m.Score]
		if name == "" {
			name = m.Score
		}
		if m.Towers > 1 {
			name += ", two towers"
		}
		parts = append(parts, m.Model+" "+name)
	}
	if len(parts) == 0 {
		return ""
	}
	return " Scores: " + strings.Join(parts, "; ") + "."
}

// noQrelsTable is the table without rows that stands for a qrels-based
// table of a dataset without qrels.
func noQrelsTable(name, title, what string, res *results.Results, ds *results.DatasetResult) *Table {
	caption := "The dataset has no relevance judgments (qrels): the " + what + " cannot be computed and are not reported."
	if AnswerTable(res, ds) != nil {
		caption += " Its results are the answer-span accuracy."
	}
	return &Table{Name: name, Title: title, Header: []string{"Model", "Run"}, Groups: map[int]bool{}, Caption: caption}
}

// DatasetTables returns the tables of one dataset in reading order: one
// table per convention scored (st, trec, then the task's, such as
// dureader), the answer table of the task, the drop table and the answer
// drop table. Tables that do not apply are left out: those of the task
// when it has none, drop tables without perturbed runs, and the
// qrels-based tables of a dataset without qrels.
func DatasetTables(res *results.Results, ds *results.DatasetResult) []*Table {
	var ts []*Table
	for _, c := range res.Conventions {
		ts = append(ts, ConventionTable(res, ds, c.Convention))
	}
	ts = append(ts, AnswerTable(res, ds), DropTable(res, ds), AnswerDropTable(res, ds))
	var out []*Table
	for _, t := range ts {
		if t != nil && len(t.Rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}

func labels(c metrics.Convention, ms []string) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = Label(c, m)
	}
	return out
}

// AverageTable is MainTable averaged over datasets: clean cells are the
// mean of the datasets' clean values; perturbed cells average the
// datasets' runs seed by seed, then give mean ± sd over seeds. Datasets
// without qrels have no st values and are left out; it returns nil with
// fewer than two datasets with qrels.
func AverageTable(res *results.Results) *Table {
	st := metrics.ConventionST
	var datasets []*results.DatasetResult
	for _, d := range res.Datasets {
		if !d.QrelsAbsent {
			datasets = append(datasets, d)
		}
	}
	if len(datasets) < 2 {
		return nil
	}
	names := make([]string, len(datasets))
	for i, d := range datasets {
		names[i] = d.Name
	}
	t := &Table{
		Name:    "average",
		Title:   fmt.Sprintf("Average over %d datasets (%s)", len(datasets), strings.Join(names, ", ")),
		Header:  append([]string{"Model", "Run"}, labels(st, res.Measures(st))...),
		Groups:  map[int]bool{},
		Caption: seedsNote(res) + " Each seed's value is first averaged over the datasets.",
	}
	for _, model := range modelNames(res) {
		per := make([]*results.ModelResult, 0, len(datasets))
		for _, d := range datasets {
			if m := d.Model(model); m != nil {
				per = append(per, m)
			}
		}
		if len(per) != len(datasets) {
			continue // not run on every dataset: no honest average
		}
		t.Groups[len(t.Rows)] = true
		row := []Cell{TextCell(model), TextCell("clean")}
		for _, name := range res.Measures(st) {
			var sum float64
			for _, m := range per {
				sum += m.Clean.Means[st][name]
			}
			row = append(row, NumCell(sum/float64(len(per))))
		}
		t.Rows = append(t.Rows, row)
		for _, rate := range res.Config.PerturbedRates() {
			row := []Cell{TextCell(model), TextCell(RateLabel(rate))}
			for _, name := range res.Measures(st) {
				var xs []float64
				for _, seed := range res.Config.Seeds {
					var sum float64
					n := 0
					for _, m := range per {
						if rr := m.Run(rate, seed); rr != nil {
							sum += rr.Means[st][name]
							n++
						}
					}
					if n == len(per) {
						xs = append(xs, sum/float64(n))
					}
				}
				row = append(row, StatCell(results.NewStat(xs)))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// DropTable is, for one dataset, the change of every st measure from the
// clean run to the perturbed runs averaged over seeds (query by query),
// with the two-sided paired randomization test's p-value, and the
// realised fraction of changed query tokens. It has no rows without
// perturbed runs, or for a dataset without qrels (QrelsAbsent).
func DropTable(res *results.Results, ds *results.DatasetResult) *Table {
	st := metrics.ConventionST
	hdr := []string{"Model", "Rate", "Changed tokens"}
	for _, m := range res.Measures(st) {
		hdr = append(hdr, "Δ"+Label(st, m))
	}
	t := &Table{
		Name:   "drop-" + ds.Name,
		Title:  ds.Name + ": change from the clean run",
		Header: hdr,
		Groups: map[int]bool{},
		Caption: "Δ = perturbed minus clean, each query's perturbed value averaged over the seeds first; p: the randomization test's. " +
			res.Significance + "; t-test p-values and confidence intervals are in comparisons.csv, report.html and results.json. " +
			"Changed tokens: realised fraction of query tokens changed (mean ± sd over seeds).",
	}
	if ds.QrelsAbsent {
		return t
	}
	for _, m := range ds.Models {
		t.Groups[len(t.Rows)] = true
		for _, rs := range m.Rates {
			row := []Cell{TextCell(m.Model), TextCell(Percent(rs.Rate)), StatCell(rs.ChangedFraction)}
			for _, name := range res.Measures(st) {
				row = append(row, DiffCell(rs.Drop[st][name]))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// modelNames returns the models in the order of the configuration, then
// any others met in the datasets.
func modelNames(res *results.Results) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, d := range res.Datasets {
		for _, m := range d.Models {
			add(m.Model)
		}
	}
	return out
}
