package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
)

// DuReaderTable is ConventionTable of the dureader convention's
// measures (MRR@10, recall@1, recall@50); nil unless the task is dureader
// and the dataset has qrels.
func DuReaderTable(res *results.Results, ds *results.DatasetResult) *Table {
	if ds.QrelsAbsent {
		return nil
	}
	return ConventionTable(res, ds, metrics.ConventionDuReader)
}

// answerNote describes the denominator of a dataset's answer accuracy.
func answerNote(ds *results.DatasetResult) string {
	a := ds.Answers
	if a == nil {
		return ""
	}
	s := fmt.Sprintf("Answer-span top-k accuracy (DPR) with the dataset's %s: every one of the %d questions is in the denominator.", a.Source, a.Questions)
	if n := len(a.Unanswerable); n > 0 {
		s += fmt.Sprintf(" %d of them have answers the collection declares not passage spans (yes/no): they count as misses in every run, so no run exceeds %s.",
			n, Num(float64(a.Questions-n)/float64(a.Questions)))
	}
	if n := len(a.WithoutAnswers); n > 0 {
		s += fmt.Sprintf(" %d searched queries have no answers and are left out.", n)
	}
	if ds.QrelsAbsent {
		s += " The dataset has no relevance judgments (qrels), like DPR's question sets: its questions with answers were searched"
		if ds.Unanswered > 0 {
			s += fmt.Sprintf(" (%d queries without answers were not)", ds.Unanswered)
		}
		s += ", and the answer accuracy is its only measure."
	}
	return s
}

// AnswerTable is the answer-span accuracy of one dataset: for every model
// a clean row and one row per rate, columns Top-k for every cut-off of
// every matching mode, perturbed cells mean ± sd over seeds. It returns
// nil when the results hold no answer accuracy.
func AnswerTable(res *results.Results, ds *results.DatasetResult) *Table {
	if ds.Answers == nil || len(res.AnswerModes) == 0 || len(ds.Models) == 0 || ds.Models[0].Clean.Answers == nil {
		return nil
	}
	hdr := []string{"Model", "Run"}
	ks := map[string][]int{}
	for _, mode := range res.AnswerModes {
		a := ds.Models[0].Clean.Answers[mode]
		if a == nil {
			continue
		}
		ks[mode] = a.Ks
		for _, k := range a.Ks {
			if len(res.AnswerModes) > 1 {
				hdr = append(hdr, fmt.Sprintf("%s Top-%d", mode, k))
			} else {
				hdr = append(hdr, fmt.Sprintf("Top-%d", k))
			}
		}
	}
	t := &Table{
		Name:    "answers-" + ds.Name,
		Title:   fmt.Sprintf("%s: answer-span accuracy (%d questions; match %s)", ds.Name, ds.Answers.Questions, strings.Join(res.AnswerModes, ", ")),
		Header:  hdr,
		Groups:  map[int]bool{},
		Caption: seedsNote(res) + " " + answerNote(ds),
	}
	for _, m := range ds.Models {
		t.Groups[len(t.Rows)] = true
		row := []Cell{TextCell(m.Model), TextCell("clean")}
		for _, mode := range res.AnswerModes {
			a := m.Clean.Answers[mode]
			for j := range ks[mode] {
				if a == nil || j >= len(a.Accuracy) {
					row = append(row, TextCell("–"))
					continue
				}
				row = append(row, NumCell(a.Accuracy[j]))
			}
		}
		t.Rows = append(t.Rows, row)
		for _, rs := range m.Rates {
			row := []Cell{TextCell(m.Model), TextCell(RateLabel(rs.Rate))}
			for _, mode := range res.AnswerModes {
				st := rs.Answers[mode]
				for j := range ks[mode] {
					if j >= len(st) {
						row = append(row, TextCell("–"))
						continue
					}
					row = append(row, StatCell(st[j]))
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// AnswerDropTable is, for one dataset, the change of every answer
// accuracy from the clean run to the perturbed runs: the paired
// comparison of each question's hit@k (perturbed averaged over seeds),
// with the randomization test's p-value. Nil without answer accuracy or
// perturbed runs.
func AnswerDropTable(res *results.Results, ds *results.DatasetResult) *Table {
	at := AnswerTable(res, ds)
	if at == nil || len(res.Config.PerturbedRates()) == 0 {
		return nil
	}
	hdr := []string{"Model", "Rate"}
	for _, h := range at.Header[2:] {
		hdr = append(hdr, "Δ"+h)
	}
	t := &Table{
		Name:   "answers-drop-" + ds.Name,
		Title:  ds.Name + ": change of the answer accuracy from the clean run",
		Header: hdr,
		Groups: map[int]bool{},
		Caption: "Δ = perturbed minus clean of each question's hit@k (1 when an answer-bearing passage is in the top k), the perturbed value averaged over the seeds first; p: the paired randomization test's. " +
			res.Significance + ".",
	}
	for _, m := range ds.Models {
		t.Groups[len(t.Rows)] = true
		for _, rs := range m.Rates {
			row := []Cell{TextCell(m.Model), TextCell(Percent(rs.Rate))}
			for _, mode := range res.AnswerModes {
				for _, c := range rs.AnswerDrop[mode] {
					row = append(row, DiffCell(c))
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// AverageDropTable is the paper's Table 3: for every model and rate in
// rates (every perturbed rate when nil), the drop of each st measure
// averaged over the datasets, clean minus perturbed, absolute (with the
// randomization test's p-value over the pooled queries) and relative to
// the clean value. Nil when the results hold no average drops.
func AverageDropTable(res *results.Results, rates []float64) *Table {
	if len(res.Average) == 0 {
		return nil
	}
	if rates == nil {
		rates = res.Config.PerturbedRates()
	}
	st := metrics.ConventionST
	hdr := []string{"Model", "Rate"}
	for _, m := range res.Measures(st) {
		hdr = append(hdr, "drop "+Label(st, m), "rel. "+Label(st, m))
	}
	n := res.Average[0].Datasets
	t := &Table{
		Name:   "average-drop",
		Title:  fmt.Sprintf("Average drop over %d datasets", n),
		Header: hdr,
		Groups: map[int]bool{},
		Caption: "drop = clean minus perturbed, each averaged over the datasets (perturbed: mean over seeds first); positive = worse under perturbation. " +
			"rel. = drop / clean. p: two-sided paired randomization test over the queries of all datasets pooled (clean against perturbed averaged over seeds). " +
			res.Significance + ".",
	}
	find := func(model string, rate float64, measure string) *results.AverageDrop {
		for _, a := range res.Average {
			if a.Model == model && a.Rate == rate && a.Measure == measure {
				return a
			}
		}
		return nil
	}
	for _, model := range modelNames(res) {
		first := true
		for _, rate := range rates {
			row := []Cell{TextCell(model), TextCell(Percent(rate))}
			found := false
			for _, m := range res.Measures(st) {
				a := find(model, rate, m)
				if a == nil {
					row = append(row, TextCell("–"), TextCell("–"))
					continue
				}
				found = true
				row = append(row,
					Cell{Num: true, Mean: float64(a.Drop), P: float64(a.Pooled.PRandomization), HasP: true},
					relCell(float64(a.Relative)))
			}
			if !found {
				continue
			}
			if first {
				t.Groups[len(t.Rows)] = true
				first = false
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// relCell shows a relative change as a percentage; NaN (clean 0) as "–".
func relCell(v float64) Cell {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return TextCell("–")
	}
	return TextCell(fmt.Sprintf("%.1f%%", 100*v))
}
