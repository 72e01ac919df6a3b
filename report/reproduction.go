package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
)

// FindingsMeasure is the measure the findings rank and compare by.
const FindingsMeasure = "ndcg@10"

// modelDrop returns model's change at rate on measure, perturbed minus
// clean (negative: a drop), averaged over the datasets, with the paired
// randomization test's p-value (over the pooled queries with several
// datasets).
func modelDrop(res *results.Results, model string, rate float64, measure string) (diff, p float64, ok bool) {
	for _, a := range res.Average {
		if a.Model == model && a.Rate == rate && a.Measure == measure {
			return -float64(a.Drop), float64(a.Pooled.PRandomization), true
		}
	}
	if len(res.Datasets) != 1 {
		return 0, 0, false
	}
	m := res.Datasets[0].Model(model)
	if m == nil {
		return 0, 0, false
	}
	for _, rs := range m.Rates {
		if rs.Rate == rate {
			c := rs.Drop[metrics.ConventionST][measure]
			return float64(c.MeanDiff), float64(c.PRandomization), true
		}
	}
	return 0, 0, false
}

// cleanMean returns model's clean value of measure averaged over the
// datasets it ran on every one of.
func cleanMean(res *results.Results, model, measure string) (float64, bool) {
	var sum float64
	for _, d := range res.Datasets {
		m := d.Model(model)
		if m == nil {
			return 0, false
		}
		sum += m.Clean.Means[metrics.ConventionST][measure]
	}
	return sum / float64(len(res.Datasets)), len(res.Datasets) > 0
}

// Findings returns the study's findings checked against res, one
// paragraph each: (a) the ranking of the models by clean effectiveness,
// (b) their ranking by drop at the highest rate, (c) whether the drop
// grows with the rate, (d) whether every model is affected (a significant
// drop at the highest rate, p < 0.05). Every number is read from res, on
// FindingsMeasure averaged over the datasets.
func Findings(res *results.Results) []string {
	models := modelNames(res)
	rates := res.Config.PerturbedRates()
	lbl := Label(metrics.ConventionST, FindingsMeasure)
	var out []string
	type mv struct {
		m string
		v float64
	}
	var clean []mv
	for _, m := range models {
		if v, ok := cleanMean(res, m, FindingsMeasure); ok {
			clean = append(clean, mv{m, v})
		}
	}
	// sort.SliceStable, not slices.SortStableFunc: each element type slices
	// sorts adds code to the browser app; sort.SliceStable shares one.
	sort.SliceStable(clean, func(i, j int) bool { return cmpF(clean[i].v, clean[j].v) > 0 })
	parts := make([]string, len(clean))
	for i, x := range clean {
		parts[i] = fmt.Sprintf("%s (%s)", x.m, Num(x.v))
	}
	over := fmt.Sprintf("mean over %d datasets", len(res.Datasets))
	if len(res.Datasets) == 1 {
		over = "on " + res.Datasets[0].Name
	}
	out = append(out, fmt.Sprintf("(a) Ranking by clean effectiveness (%s, %s): %s.", lbl, over, strings.Join(parts, " > ")))
	if len(rates) == 0 {
		return append(out, "(b)-(d) need perturbed runs: none were made.")
	}
	hi, lo := rates[len(rates)-1], rates[0]
	var drops []mv
	for _, m := range models {
		if d, _, ok := modelDrop(res, m, hi, FindingsMeasure); ok {
			drops = append(drops, mv{m, d})
		}
	}
	sort.SliceStable(drops, func(i, j int) bool { return cmpF(drops[i].v, drops[j].v) < 0 })
	parts = parts[:0]
	for _, x := range drops {
		parts = append(parts, fmt.Sprintf("%s (%s)", x.m, Signed(x.v)))
	}
	out = append(out, fmt.Sprintf("(b) Ranking by change at %s (%s, perturbed minus clean, largest drop first): %s.", Percent(hi), lbl, strings.Join(parts, ", ")))
	if lo == hi {
		out = append(out, fmt.Sprintf("(c) Drop grows with rate: cannot be checked with one rate (%s).", Percent(hi)))
	} else {
		var holds, fails []string
		for _, m := range models {
			var vals []string
			dl, _, ok1 := modelDrop(res, m, lo, FindingsMeasure)
			dh, _, ok2 := modelDrop(res, m, hi, FindingsMeasure)
			if !ok1 || !ok2 {
				continue
			}
			for _, r := range rates {
				if d, _, ok := modelDrop(res, m, r, FindingsMeasure); ok {
					vals = append(vals, fmt.Sprintf("%s: %s", Percent(r), Signed(d)))
				}
			}
			s := fmt.Sprintf("%s (%s)", m, strings.Join(vals, ", "))
			if dh < dl {
				holds = append(holds, s)
			} else {
				fails = append(fails, s)
			}
		}
		out = append(out, fmt.Sprintf("(c) Drop grows with rate (%s drop at %s larger than at %s): holds for: %s; does not hold for: %s.",
			lbl, Percent(hi), Percent(lo), listOrNone(holds), listOrNone(fails)))
	}
	var sig, not []string
	for _, m := range models {
		d, p, ok := modelDrop(res, m, hi, FindingsMeasure)
		if !ok {
			continue
		}
		s := fmt.Sprintf("%s (%s, %s)", m, Signed(d), PValue(p))
		if d < 0 && p < 0.05 {
			sig = append(sig, s)
		} else {
			not = append(not, s)
		}
	}
	out = append(out, fmt.Sprintf("(d) All models are affected (a significant %s drop at %s, paired randomization test, p < 0.05): affected: %s; not shown to be affected: %s.",
		lbl, Percent(hi), listOrNone(sig), listOrNone(not)))
	return out
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, "; ")
}

// ReproductionOptions are what Reproduction writes beside the numbers.
type ReproductionOptions struct {
	// Command is the command line that made the results; Machine
	// describes the machine.
	Command string
	Machine string
	// DropRates are the rates of the average drop table (the paper's 5%
	// and 20%); nil means every perturbed rate.
	DropRates []float64
}

// Reproduction writes docs/reproduction.md: the study's claims, the
// findings checked against res (Findings), and the study's table shapes
// (Table 1 examples, Tables 5-7 per dataset, Table 2 average, Table 3
// average drop).
func Reproduction(w io.Writer, res *results.Results, o ReproductionOptions) error {
	var b strings.Builder
	b.WriteString("# Reproduction of the tokenizer-poisoning study\n\n")
	b.WriteString("Generated by `dreval reproduce`; do not edit by hand.\n\n")
	if o.Command != "" {
		fmt.Fprintf(&b, "Command: `%s`  \n", o.Command)
	}
	if o.Machine != "" {
		fmt.Fprintf(&b, "Machine: %s  \n", o.Machine)
	}
	b.WriteString(ProtocolLine(res) + "\n\n")
	b.WriteString("## What the study claims, and what we can check\n\n")
	b.WriteString(Claims(res))
	b.WriteString("\n\n## Findings, checked against our numbers\n\n")
	for _, f := range Findings(res) {
		b.WriteString("- " + f + "\n")
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	for _, t := range ReproductionTables(res, o.DropRates) {
		if err := t.Markdown(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "## Table 1: decoded examples")
	fmt.Fprintln(w)
	var ex strings.Builder
	if err := Examples(&ex, res); err != nil {
		return err
	}
	s := strings.TrimPrefix(ex.String(), "# Perturbed queries\n\n")
	s = strings.ReplaceAll(s, "\n## ", "\n### ")
	_, err := io.WriteString(w, s)
	return err
}

// ProtocolLine describes the run: version, datasets, models, perturbation,
// rates and seeds.
func ProtocolLine(res *results.Results) string {
	return fmt.Sprintf("dreval %s; datasets: %s; models: %s; perturbation %s (oov %s, special tokens perturbed: %v); rates %s; %s.",
		res.Version, strings.Join(res.Config.Data, ", "), strings.Join(res.Config.Models, ", "), res.Config.Perturbation, res.Config.OOV,
		!res.Config.ProtectSpecial, rateList(res.Config.Rates), seedList(res.Config.Seeds))
}

// Claims is the paragraph on what the study claims and what can be
// checked, ending with a space.
func Claims(res *results.Results) string {
	var b strings.Builder
	b.WriteString("The study reports that dense retrievers lose effectiveness under tokenizer poisoning (query token ids shifted), that the drop grows from 5% to 20% of the tokens perturbed, and that all the models it tests are affected: BERT, DPR, Contriever, SimCSE and ANCE. ")
	b.WriteString("We cannot run those models here: we run the models installed (" + strings.Join(res.Config.Models, ", ") + "), so the model-by-model numbers are not comparable; what can be compared is the shape of the findings. ")
	if scores := denseScores(res); len(scores) == 1 && scores[0] == "cos" {
		b.WriteString("As the study did (\"we used cosine similarity\"), every dense model is scored by cosine here, whatever its own score (DPR, ANCE and Contriever are dot-product models; dreval eval scores them by dot product). ")
	} else if len(scores) > 0 {
		b.WriteString("Unlike the study, which scored every model by cosine, the dense models here are scored as their files say (" + strings.Join(scores, ", ") + "). ")
	}
	if len(res.Config.Seeds) < 5 {
		fmt.Fprintf(&b, "Note: %d seeds, fewer than the protocol's 5. ", len(res.Config.Seeds))
	}
	return b.String()
}

// denseScores returns the scores of the dense models of res, each once,
// sorted.
func denseScores(res *results.Results) []string {
	seen := map[string]bool{}
	var out []string
	for _, ds := range res.Datasets {
		for _, m := range ds.Models {
			if m.Kind == results.Dense && m.Score != "" && !seen[m.Score] {
				seen[m.Score] = true
				out = append(out, m.Score)
			}
		}
	}
	slices.Sort(out)
	return out
}

// ReproductionTables returns the tables of the reproduction in the
// study's shapes and order, titled with the study's numbers: Table 3, the
// average drop at dropRates (nil: every perturbed rate), Table 2, the
// average over datasets (with several datasets), then per dataset Tables
// 5-7, the main table, and its drop table.
func ReproductionTables(res *results.Results, dropRates []float64) []*Table {
	tables := []*Table{}
	if t := AverageDropTable(res, dropRates); t != nil {
		t.Title = "Table 3: " + t.Title
		tables = append(tables, t)
	}
	if t := AverageTable(res); t != nil {
		t.Title = "Table 2: " + t.Title
		tables = append(tables, t)
	}
	for _, ds := range res.Datasets {
		t := MainTable(res, ds)
		t.Title = "Tables 5-7: " + t.Title
		tables = append(tables, t)
		if d := DropTable(res, ds); len(d.Rows) > 0 {
			tables = append(tables, d)
		}
	}
	return tables
}

func rateList(rs []float64) string {
	p := make([]string, len(rs))
	for i, r := range rs {
		p[i] = Percent(r)
	}
	return strings.Join(p, ", ")
}
