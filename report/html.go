package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dreval/dreval/experiment"
)

// The HTML of this file is written by hand, not with html/template: the
// browser app imports report, and text/template's reflection keeps every
// exported method of the program in the wasm build (over 1 MB gzip more).
// Every text that comes from the results goes through esc.

// esc escapes s for HTML text and quoted attribute values as html/template
// does: ", &, ', +, < and > as character references, NUL as U+FFFD.
func esc(s string) string {
	var b strings.Builder
	written := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		var repl string
		switch r {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		}
		if repl != "" {
			b.WriteString(s[written:i])
			b.WriteString(repl)
			written = i + w
		}
		i += w
	}
	if written == 0 {
		return s
	}
	b.WriteString(s[written:])
	return b.String()
}

// HTML writes one self-contained page bundling res: configuration, data
// and model fingerprints, warnings, every table, the charts (inline SVG,
// from charts, as report/ratechart's Files returns them) and the decoded
// examples. It loads nothing from elsewhere.
func HTML(w io.Writer, res *experiment.Results, charts []File) error {
	var b strings.Builder
	short := func(s string) string { return s[:min(len(s), 16)] }
	c := res.Config
	b.WriteString(pageHead)
	fmt.Fprintf(&b, "<p>dreval %s &middot; perturbation <code>%s</code>", esc(res.Version), esc(c.Perturbation))
	if c.OOV != "" {
		fmt.Fprintf(&b, " (out-of-vocabulary: %s)", esc(c.OOV))
	}
	if c.ProtectSpecial {
		b.WriteString(", special tokens protected")
	}
	b.WriteString("\n&middot; rates ")
	for i, r := range c.Rates {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(esc(Percent(r)))
	}
	fmt.Fprintf(&b, "\n&middot; %d seeds &middot; top %d &middot; split <code>%s</code></p>\n\n", len(c.Seeds), c.K, esc(c.Split))

	b.WriteString("<h2>Data and models</h2>\n<table>\n<tr><th>Dataset</th><th>Source</th><th>Documents</th><th>Judged queries</th><th>Excluded (no judgments)</th><th>SHA-256</th></tr>\n")
	for _, d := range res.Datasets {
		searched, excluded := fmt.Sprint(d.Judged), fmt.Sprint(d.Unjudged)
		if d.QrelsAbsent { // searched: the questions with answers
			searched = "no qrels; " + fmt.Sprint(d.Judged) + " questions"
			excluded = fmt.Sprint(d.Unanswered) + " without answers"
			if d.Answers != nil {
				searched = "no qrels; " + fmt.Sprint(d.Answers.Questions) + " questions"
			}
		}
		fmt.Fprintf(&b, `<tr><td>%s</td><td><code>%s</code></td><td class="n">%d</td><td class="n">%s</td><td class="n">%s</td><td><code title="%s">%s</code></td></tr>`+"\n",
			esc(d.Name), esc(d.Source), d.Docs, esc(searched), esc(excluded), esc(d.SHA256), esc(short(d.SHA256)))
	}
	b.WriteString("</table>\n<table>\n<tr><th>Dataset</th><th>Model</th><th>Kind</th><th>Engine / analyser</th><th>Model fingerprint</th><th>Tokenizer fingerprint</th><th>Corpus vectors</th></tr>\n")
	for _, d := range res.Datasets {
		for _, m := range d.Models {
			fmt.Fprintf(&b, `<tr><td>%s</td><td>%s</td><td>%s</td><td>%s%s</td><td><code title="%s">%s</code></td><td><code title="%s">%s</code></td><td>%s</td></tr>`+"\n",
				esc(d.Name), esc(m.Model), esc(string(m.Kind)), esc(m.Engine), esc(m.Analyzer), esc(m.Fingerprint), esc(short(m.Fingerprint)),
				esc(m.TokenizerFingerprint), esc(short(m.TokenizerFingerprint)), esc(m.CorpusCache))
		}
	}
	b.WriteString("</table>\n")
	if len(res.Warnings) > 0 {
		b.WriteString(`<div class="warn"><strong>Warnings</strong><ul>`)
		for _, w := range res.Warnings {
			b.WriteString("<li>" + esc(w) + "</li>")
		}
		b.WriteString("</ul></div>")
	}

	b.WriteString("\n\n<h2>Results</h2>\n")
	for _, t := range Tables(res) {
		fmt.Fprintf(&b, "\n<table>\n<caption><strong>%s.</strong> %s</caption>\n<tr>", esc(t.Title), esc(t.Caption))
		for _, h := range t.Header {
			b.WriteString("<th>" + esc(h) + "</th>")
		}
		b.WriteString("</tr>\n")
		t.writeRows(&b)
		b.WriteString("</table>\n")
	}

	b.WriteString("\n\n<h2>Charts</h2>\n")
	for _, c := range charts {
		fmt.Fprintf(&b, "<figure>%s<figcaption>%s</figcaption></figure>\n", inlineSVG(c.Data), esc(c.Path))
	}

	b.WriteString("\n\n<h2>Perturbed queries</h2>\n<p>Original and perturbed query token ids decoded with the clean vocabulary (special tokens shown), first seed of each rate.</p>\n")
	for _, g := range exampleGroups(res) {
		fmt.Fprintf(&b, "<h3>%s / %s</h3>\n", esc(g.Dataset), esc(g.Model))
		if g.SameAs != "" {
			fmt.Fprintf(&b, "<p>Same perturbed queries as %s (same tokenizer).</p>", esc(g.SameAs))
		} else {
			b.WriteString("\n<table>\n<tr><th>Query</th><th>Rate</th><th>Seed</th><th>Changed</th><th>Original</th><th>Perturbed</th></tr>\n")
			writeExampleRows(&b, g.Examples)
			b.WriteString("</table>")
		}
		b.WriteString("\n")
	}

	fmt.Fprintf(&b, `

<h2>Files</h2>
<p>Every run is in <code>runs/</code> in TREC format, scored against <code>qrels/</code> with every judged query counted
(<code>dreval metrics -c -qrels qrels/DATASET.qrels -run runs/RUN.trec</code>, or <code>trec_eval -c</code>);
<code>results.json</code> holds every number, per query too. %s.</p>
</body>
</html>
`, esc(res.Significance))
	_, err := io.WriteString(w, b.String())
	return err
}

const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>dreval report</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #ddd; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.g td { border-top: 2px solid #888; }
caption { caption-side: bottom; text-align: left; font-size: 0.85em; color: #555; padding-top: 0.4em; }
code { font-size: 0.9em; }
.warn { background: #fff4e0; border-left: 4px solid #e0a000; padding: 0.5em 1em; }
figure { margin: 1em 0; }
</style>
</head>
<body>
<h1>dreval report</h1>
`

// writeRows writes t's rows as HTML table rows, one a line: number cells
// with class "n", the first row of each group (but the first) with class
// "g".
func (t *Table) writeRows(b *strings.Builder) {
	for i, row := range t.Rows {
		b.WriteString("<tr")
		if i > 0 && t.Groups[i] {
			b.WriteString(` class="g"`)
		}
		b.WriteString(">")
		for _, c := range row {
			if c.Num {
				b.WriteString(`<td class="n">`)
			} else {
				b.WriteString("<td>")
			}
			b.WriteString(esc(c.String()) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
}

// writeExampleRows writes decoded examples as HTML table rows.
func writeExampleRows(b *strings.Builder, exs []experiment.Example) {
	for _, e := range exs {
		fmt.Fprintf(b, `<tr><td>%s</td><td class="n">%s</td><td class="n">%d</td><td class="n">%d/%d</td><td>%s</td><td>%s</td></tr>`+"\n",
			esc(e.QueryID), esc(Percent(e.Rate)), e.Seed, e.Changed, e.Considered, esc(e.Decoded), esc(e.PerturbedDecoded))
	}
}

// inlineSVG returns an SVG document without its XML prolog, for inlining.
// The SVG comes from the caller's chart code (report/ratechart), never
// from input data.
func inlineSVG(b []byte) string {
	s := string(b)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return s
}

type exampleGroup struct {
	Dataset, Model string
	SameAs         string
	Examples       []experiment.Example
}

// exampleGroups returns each dataset's and model's examples; a model
// whose examples equal an earlier model's on the dataset (a shared
// tokenizer) gets SameAs instead.
func exampleGroups(res *experiment.Results) []exampleGroup {
	var out []exampleGroup
	for _, ds := range res.Datasets {
		var shown []*experiment.ModelResult
		for _, m := range ds.Models {
			if len(m.Examples) == 0 {
				continue
			}
			g := exampleGroup{Dataset: ds.Name, Model: m.Model, Examples: m.Examples}
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

// HTML writes t as an HTML table (a fragment, not a page): the title and
// caption in its caption, a header row and a row per row, number cells
// with class "n", the first row of each group with class "g". Every text
// is escaped; the table's data-name attribute is t.Name.
func (t *Table) HTML(w io.Writer) error {
	var b strings.Builder
	t.writeHTML(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (t *Table) writeHTML(b *strings.Builder) {
	fmt.Fprintf(b, "<table data-name=\"%s\">\n<caption><strong>%s.</strong>", esc(t.Name), esc(t.Title))
	if t.Caption != "" {
		b.WriteString(" " + esc(t.Caption))
	}
	b.WriteString("</caption>\n<thead><tr>")
	for _, h := range t.Header {
		b.WriteString("<th>" + esc(h) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	t.writeRows(b)
	b.WriteString("</tbody>\n</table>\n")
}

// ReproductionHTML writes what Reproduction writes, as an HTML fragment
// for a page that has its own headings and styles: the protocol line,
// what the study claims, the findings as a list, the tables of
// ReproductionTables (Table.HTML) and the decoded examples (Table 1).
// The numbers are those of Reproduction; o's Command and Machine are
// shown when set.
func ReproductionHTML(w io.Writer, res *experiment.Results, o ReproductionOptions) error {
	var b strings.Builder
	b.WriteString("<div class=\"reproduction\">\n")
	if o.Command != "" {
		fmt.Fprintf(&b, "<p>Command: <code>%s</code></p>\n", esc(o.Command))
	}
	if o.Machine != "" {
		fmt.Fprintf(&b, "<p>Machine: %s</p>\n", esc(o.Machine))
	}
	fmt.Fprintf(&b, "<p class=\"protocol\">%s</p>\n<h3>What the study claims, and what we can check</h3>\n<p>%s</p>\n",
		esc(protocolLine(res)), esc(strings.TrimSpace(claims(res))))
	b.WriteString("<h3>Findings, checked against our numbers</h3>\n<ul class=\"findings\">\n")
	for _, f := range Findings(res) {
		b.WriteString("<li>" + esc(f) + "</li>\n")
	}
	b.WriteString("</ul>\n<h3>Tables</h3>\n")
	for _, t := range ReproductionTables(res, o.DropRates) {
		t.writeHTML(&b)
	}
	fmt.Fprintf(&b, "<h3>Table 1: decoded examples</h3>\n<p>Original and perturbed query token ids, decoded with the clean vocabulary (special tokens shown); mode %s, first seed of each rate.</p>\n",
		esc(res.Config.Perturbation))
	for _, g := range exampleGroups(res) {
		fmt.Fprintf(&b, "<h4>%s / %s</h4>\n", esc(g.Dataset), esc(g.Model))
		if g.SameAs != "" {
			fmt.Fprintf(&b, "<p>Same perturbed queries as %s (same tokenizer).</p>\n", esc(g.SameAs))
			continue
		}
		b.WriteString("<table class=\"examples\">\n<thead><tr><th>Query</th><th>Rate</th><th>Seed</th><th>Changed</th><th>Original</th><th>Perturbed</th></tr></thead>\n<tbody>\n")
		writeExampleRows(&b, g.Examples)
		b.WriteString("</tbody>\n</table>\n")
	}
	b.WriteString("</div>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
