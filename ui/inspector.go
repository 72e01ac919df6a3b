package ui

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/results"
)

// QueryRow is one query in the inspector.
type QueryRow struct {
	ID        string
	Text      string
	Decoded   string
	Perturbed string
	Changed   string // "3 of 12 tokens"
	// Before and After are the ranks (1-based) of the query's relevant
	// documents in the clean and perturbed runs, "-" when not retrieved.
	Before, After string
	// Clean, Pert and Damage are the query's ndcg@10, clean and perturbed,
	// and their difference (clean minus perturbed).
	Clean, Pert, Damage string
	damage              float64
}

// NewInspector returns the per-query inspector of the selected rate's
// first seed, queries sorted by damage (the largest ndcg@10 drop first).
// It needs the rankings (Results as experiment.Run returned them, not
// read back from JSON) and the decoded examples (experiment.Config's
// Examples at least the number of queries to show every query decoded).
func NewInspector(res *results.Results, sel Selection) (*QueryInspector, error) {
	ds, mr, rs, err := pick(res, sel)
	if err != nil {
		return nil, err
	}
	var pert *results.RunResult
	if len(rs.Seeds) > 0 {
		pert = mr.Run(rs.Rate, rs.Seeds[0])
	}
	if pert == nil || mr.Clean == nil {
		return nil, fmt.Errorf("the run of rate %s is missing", results.FormatRate(rs.Rate))
	}
	ex := map[string]results.Example{}
	for _, e := range mr.Examples {
		if e.Rate == rs.Rate && e.Seed == pert.Seed {
			ex[e.QueryID] = e
		}
	}
	const measure = "ndcg@10"
	in := &QueryInspector{Measure: measure, Seed: pert.Seed, Rate: results.FormatRate(rs.Rate)}
	for qid, rel := range ds.Qrels {
		row := QueryRow{ID: qid}
		if e, ok := ex[qid]; ok {
			row.Text, row.Decoded, row.Perturbed = e.Text, e.Decoded, e.PerturbedDecoded
			row.Changed = fmt.Sprintf("%d of %d tokens", e.Changed, e.Considered)
		}
		row.Before = ranks(mr.Clean.Run[qid], rel)
		row.After = ranks(pert.Run[qid], rel)
		a, okA := mr.Clean.Value(paperConvention, measure, qid)
		b, okB := pert.Value(paperConvention, measure, qid)
		if okA && okB {
			row.Clean, row.Pert = report.Num(a), report.Num(b)
			row.damage = a - b
			row.Damage = report.Signed(a - b)
		} else {
			row.Clean, row.Pert, row.Damage = "n/a", "n/a", "n/a"
			row.damage = math.Inf(-1)
		}
		in.Rows = append(in.Rows, row)
	}
	slices.SortFunc(in.Rows, func(a, b QueryRow) int {
		if c := cmp.Compare(b.damage, a.damage); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return in, nil
}

// ranks returns the 1-based ranks of the relevant documents of rel in
// list, as "1, 7, -" (sorted; "-" for each relevant document not
// retrieved).
func ranks(list metrics.Ranked, rel map[string]int) string {
	pos := map[string]int{}
	for i, d := range list {
		if _, seen := pos[d.DocID]; !seen {
			pos[d.DocID] = i + 1
		}
	}
	var found []int
	missing := 0
	for doc, r := range rel {
		if r <= 0 {
			continue
		}
		if p, ok := pos[doc]; ok {
			found = append(found, p)
		} else {
			missing++
		}
	}
	slices.Sort(found)
	var b []byte
	for _, p := range found {
		if len(b) > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(p), 10)
	}
	for range missing {
		if len(b) > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '-')
	}
	if len(b) == 0 {
		return "no relevant document"
	}
	return string(b)
}
