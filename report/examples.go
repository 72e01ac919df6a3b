package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dreval/dreval/experiment"
)

// Examples writes the decoded examples of perturbed queries as Markdown,
// the paper's Table 1: per dataset and model, the original query decoded
// from its clean ids and the decoded perturbed ids, with the number of
// tokens changed. Models sharing a tokenizer show the same examples once.
func Examples(w io.Writer, res *experiment.Results) error {
	var b strings.Builder
	b.WriteString("# Perturbed queries\n\n")
	fmt.Fprintf(&b, "Original and perturbed query token ids, decoded with the clean vocabulary (special tokens shown); mode %s, first seed of each rate.\n", res.Config.Perturbation)
	for _, ds := range res.Datasets {
		shown := map[string]string{} // tokenizer fingerprint -> model shown
		for _, m := range ds.Models {
			if len(m.Examples) == 0 {
				continue
			}
			fmt.Fprintf(&b, "\n## %s / %s\n\n", ds.Name, m.Model)
			if prev, ok := shown[m.TokenizerFingerprint]; ok {
				fmt.Fprintf(&b, "Same tokenizer as %s: same perturbed queries.\n", prev)
				continue
			}
			shown[m.TokenizerFingerprint] = m.Model
			b.WriteString("| Query | Rate | Seed | Changed | Original | Perturbed |\n|---|---:|---:|---:|---|---|\n")
			for _, ex := range m.Examples {
				fmt.Fprintf(&b, "| %s | %s | %d | %d/%d | %s | %s |\n", mdCell(ex.QueryID), Percent(ex.Rate), ex.Seed,
					ex.Changed, ex.Considered, mdCell(ex.Decoded), mdCell(ex.PerturbedDecoded))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell makes s safe inside a Markdown table cell.
func mdCell(s string) string {
	s = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
	if s == "" {
		return " "
	}
	return s
}
