package ui

import (
	"strings"

	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/results"
)

// NewReproduction returns the reproduction of res with o's command and
// machine lines: what report.Reproduction writes as Markdown.
func NewReproduction(res *results.Results, o report.ReproductionOptions) *Reproduction {
	return &Reproduction{
		Command:  o.Command,
		Machine:  o.Machine,
		Protocol: report.ProtocolLine(res),
		Claims:   strings.TrimSpace(report.Claims(res)),
		Findings: report.Findings(res),
		Tables:   report.ReproductionTables(res, o.DropRates),
		Mode:     res.Config.Perturbation,
		Examples: report.ExampleGroups(res),
	}
}
