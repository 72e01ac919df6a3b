package ui

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

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
	// Moves are each relevant document's rank before and after, as
	// "2 → 27" ("-" when not retrieved), by rank before.
	Moves []string
	// DecodedParts and PerturbedParts are Decoded and Perturbed as words,
	// those the perturbation changed marked (wordDiff).
	DecodedParts, PerturbedParts []Part
	// TopBefore and TopAfter are the first documents of the clean and
	// perturbed rankings.
	TopBefore, TopAfter []TopDoc
	// Clean, Pert and Damage are the query's ndcg@10, clean and perturbed,
	// and their difference (clean minus perturbed).
	Clean, Pert, Damage string
	damage              float64
}

// Part is a word of a decoded query, with the space after it; Changed
// marks a word absent from the other side.
type Part struct {
	Text    string
	Changed bool
}

// TopDoc is a document of a ranking: its rank, id and judgment (Grade,
// when Judged).
type TopDoc struct {
	Rank   int
	DocID  string
	Grade  int
	Judged bool
}

// Label is the document as the inspector lists it: "3. doc-17 (relevant,
// grade 2)".
func (d TopDoc) Label() string {
	s := fmt.Sprintf("%d. %s", d.Rank, d.DocID)
	switch {
	case d.Judged && d.Grade > 0:
		s += fmt.Sprintf(" (relevant, grade %d)", d.Grade)
	case d.Judged:
		s += " (judged not relevant)"
	}
	return s
}

// Relevant reports whether the document is judged relevant.
func (d TopDoc) Relevant() bool { return d.Judged && d.Grade > 0 }

// TopShown is how many documents of each ranking the inspector lists.
const TopShown = 5

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
			row.DecodedParts, row.PerturbedParts = wordDiff(e.Decoded, e.PerturbedDecoded)
		}
		row.Before = ranks(mr.Clean.Run[qid], rel)
		row.After = ranks(pert.Run[qid], rel)
		row.Moves = moves(mr.Clean.Run[qid], pert.Run[qid], rel)
		row.TopBefore = top(mr.Clean.Run[qid], rel, TopShown)
		row.TopAfter = top(pert.Run[qid], rel, TopShown)
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
	// sort.Slice, not slices.SortFunc: each element type slices sorts adds
	// 19 KB of code to the browser app; sort.Slice shares one (wasm-size.py).
	sort.Slice(in.Rows, func(i, j int) bool {
		a, b := &in.Rows[i], &in.Rows[j]
		if c := cmp.Compare(b.damage, a.damage); c != 0 {
			return c < 0
		}
		return a.ID < b.ID
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

// rankOf maps each document of list to its first 1-based rank.
func rankOf(list metrics.Ranked) map[string]int {
	pos := map[string]int{}
	for i, d := range list {
		if _, seen := pos[d.DocID]; !seen {
			pos[d.DocID] = i + 1
		}
	}
	return pos
}

// moves returns each relevant document's rank in before and in after, as
// "2 → 27" ("-" when not retrieved), sorted by the rank before (the
// documents retrieved before first), then by id.
func moves(before, after metrics.Ranked, rel map[string]int) []string {
	pb, pa := rankOf(before), rankOf(after)
	var docs []string
	for doc, r := range rel {
		if r > 0 {
			docs = append(docs, doc)
		}
	}
	key := func(doc string) int {
		if p, ok := pb[doc]; ok {
			return p
		}
		return math.MaxInt
	}
	slices.SortFunc(docs, func(a, b string) int {
		if c := cmp.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	rank := func(pos map[string]int, doc string) string {
		if p, ok := pos[doc]; ok {
			return strconv.Itoa(p)
		}
		return "-"
	}
	out := make([]string, len(docs))
	for i, doc := range docs {
		out[i] = rank(pb, doc) + " → " + rank(pa, doc)
	}
	return out
}

// top returns the first n documents of list with their judgments.
func top(list metrics.Ranked, rel map[string]int, n int) []TopDoc {
	var out []TopDoc
	for i, d := range list {
		if i == n {
			break
		}
		g, judged := rel[d.DocID]
		out = append(out, TopDoc{Rank: i + 1, DocID: d.DocID, Grade: g, Judged: judged})
	}
	return out
}

// wordDiff splits a and b into words and marks in each the words not in
// a longest common subsequence of the two: the words the perturbation
// changed ("mcdouble" on one side, "mc darioble" on the other).
func wordDiff(a, b string) (pa, pb []Part) {
	wa, wb := strings.Fields(a), strings.Fields(b)
	// lcs[i][j]: the longest common subsequence of wa[i:] and wb[j:].
	lcs := make([][]int, len(wa)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(wb)+1)
	}
	for i := len(wa) - 1; i >= 0; i-- {
		for j := len(wb) - 1; j >= 0; j-- {
			if wa[i] == wb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	keepA, keepB := make([]bool, len(wa)), make([]bool, len(wb))
	for i, j := 0, 0; i < len(wa) && j < len(wb); {
		switch {
		case wa[i] == wb[j]:
			keepA[i], keepB[j] = true, true
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	parts := func(w []string, keep []bool) []Part {
		out := make([]Part, len(w))
		for i, s := range w {
			if i < len(w)-1 {
				s += " "
			}
			out[i] = Part{Text: s, Changed: !keep[i]}
		}
		return out
	}
	return parts(wa, keepA), parts(wb, keepB)
}

// topClass is a listed document's class: "rel" for a relevant one.
func topClass(d TopDoc) any {
	if d.Relevant() {
		return "rel"
	}
	return nil
}
