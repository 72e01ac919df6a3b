package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dreval/dreval/results"
)

// Examples writes the decoded examples of perturbed queries as Markdown,
// the paper's Table 1: per dataset and model, the original query decoded
// from its clean ids and the decoded perturbed ids, with the number of
// tokens changed. Examples equal to an earlier model's (models sharing a
// tokenizer) are shown once.
func Examples(w io.Writer, res *results.Results) error {
	var b strings.Builder
	b.WriteString("# Perturbed queries\n\n")
	fmt.Fprintf(&b, "Original and perturbed query token ids, decoded with the clean vocabulary (special tokens shown); mode %s, first seed of each rate.\n", res.Config.Perturbation)
	for _, g := range ExampleGroups(res) {
		fmt.Fprintf(&b, "\n## %s / %s\n\n", g.Dataset, g.Model)
		if g.SameAs != "" {
			fmt.Fprintf(&b, "Same perturbed queries as %s (same tokenizer).\n", g.SameAs)
			continue
		}
		b.WriteString("| Query | Rate | Seed | Changed | Original | Perturbed |\n|---|---:|---:|---:|---|---|\n")
		for _, ex := range g.Examples {
			fmt.Fprintf(&b, "| %s | %s | %d | %d/%d | %s | %s |\n", mdCell(ex.QueryID), Percent(ex.Rate), ex.Seed,
				ex.Changed, ex.Considered, mdCell(ex.Decoded), mdCell(ex.PerturbedDecoded))
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

// ExampleGroup is one dataset's and model's decoded examples.
type ExampleGroup struct {
	Dataset, Model string
	// SameAs names an earlier model of the dataset whose examples these
	// equal (a shared tokenizer); Examples is then nil.
	SameAs   string
	Examples []results.Example
}

// ExampleGroups returns each dataset's and model's examples; a model
// whose examples equal an earlier model's on the dataset (a shared
// tokenizer) gets SameAs instead.
func ExampleGroups(res *results.Results) []ExampleGroup {
	var out []ExampleGroup
	for _, ds := range res.Datasets {
		var shown []*results.ModelResult
		for _, m := range ds.Models {
			if len(m.Examples) == 0 {
				continue
			}
			g := ExampleGroup{Dataset: ds.Name, Model: m.Model, Examples: m.Examples}
			for _, prev := range shown {
				if slices.Equal(prev.Examples, m.Examples) {
					g.SameAs, g.Examples = prev.Model, nil
					break
				}
			}
			if g.SameAs == "" {
				shown = append(shown, m)
			}
			out = append(out, g)
		}
	}
	return out
}
