package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/dreval/dreval/results"
)

// ComparisonsFile is the output path of ComparisonsCSV.
const ComparisonsFile = "comparisons.csv"

// ComparisonsCSV writes every rate's comparison with the clean run in
// long form, one row per dataset, model, rate, convention and measure:
// the clean and perturbed means (the perturbed one averaged over seeds
// query by query), their difference, its bootstrap confidence interval,
// the two p-values and the number of queries. Numbers are written at full
// precision; a value that cannot be computed is empty. It is the file to
// read into a data frame.
func ComparisonsCSV(w io.Writer, res *results.Results) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"dataset", "model", "perturbation", "rate", "seeds", "convention", "measure", "clean", "perturbed", "diff", "ci_low", "ci_high", "p_randomization", "p_ttest", "queries"})
	f := func(v results.Float) string { return fullNum(float64(v)) }
	for _, ds := range res.Datasets {
		for _, mr := range ds.Models {
			for _, rs := range mr.Rates {
				for _, cm := range res.Conventions {
					for _, m := range cm.Names {
						c, ok := rs.Drop.Get(cm.Convention, m)
						if !ok {
							continue
						}
						cw.Write([]string{ds.Name, mr.Model, res.Config.Perturbation, results.FormatRate(rs.Rate), strconv.Itoa(len(rs.Seeds)),
							cm.Convention.String(), m, f(c.MeanA), f(c.MeanB), f(c.MeanDiff), f(c.CILow), f(c.CIHigh), f(c.PRandomization), f(c.PTTest), strconv.Itoa(c.N)})
					}
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
