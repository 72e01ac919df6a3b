package report

import (
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/dreval/dreval/experiment"
)

// HTML writes one self-contained page bundling res: configuration, data
// and model fingerprints, warnings, every table, the charts (inline SVG,
// from charts as Charts returns them) and the decoded examples. It loads
// nothing from elsewhere.
func HTML(w io.Writer, res *experiment.Results, charts []File) error {
	type chart struct {
		Name string
		SVG  template.HTML
	}
	var cs []chart
	for _, c := range charts {
		cs = append(cs, chart{Name: c.Path, SVG: inlineSVG(c.Data)})
	}
	data := struct {
		R        *experiment.Results
		Tables   []*Table
		Charts   []chart
		Examples []exampleGroup
	}{res, Tables(res), cs, exampleGroups(res)}
	return page.Execute(w, data)
}

// inlineSVG returns an SVG document without its XML prolog, for inlining.
// The SVG comes from our own chart code, never from input data.
func inlineSVG(b []byte) template.HTML {
	s := string(b)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return template.HTML(s)
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

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":   Percent,
	"short": func(s string) string { return s[:min(len(s), 16)] },
	"cell":  func(c Cell) string { return c.String() },
	"num":   func(c Cell) bool { return c.Num },
	"group": func(t *Table, i int) bool { return i > 0 && t.Groups[i] },
}).Parse(`<!DOCTYPE html>
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
<p>dreval {{.R.Version}} &middot; perturbation <code>{{.R.Config.Perturbation}}</code>{{if .R.Config.OOV}} (out-of-vocabulary: {{.R.Config.OOV}}){{end}}{{if .R.Config.ProtectSpecial}}, special tokens protected{{end}}
&middot; rates {{range $i, $r := .R.Config.Rates}}{{if $i}}, {{end}}{{pct $r}}{{end}}
&middot; {{len .R.Config.Seeds}} seeds &middot; top {{.R.Config.K}} &middot; split <code>{{.R.Config.Split}}</code></p>

<h2>Data and models</h2>
<table>
<tr><th>Dataset</th><th>Source</th><th>Documents</th><th>Judged queries</th><th>Excluded (no judgments)</th><th>SHA-256</th></tr>
{{range .R.Datasets}}<tr><td>{{.Name}}</td><td><code>{{.Source}}</code></td><td class="n">{{.Docs}}</td><td class="n">{{.Judged}}</td><td class="n">{{.Unjudged}}</td><td><code title="{{.SHA256}}">{{short .SHA256}}</code></td></tr>
{{end}}</table>
<table>
<tr><th>Dataset</th><th>Model</th><th>Kind</th><th>Engine / analyser</th><th>Model fingerprint</th><th>Tokenizer fingerprint</th><th>Corpus vectors</th></tr>
{{range $d := .R.Datasets}}{{range .Models}}<tr><td>{{$d.Name}}</td><td>{{.Model}}</td><td>{{.Kind}}</td><td>{{.Engine}}{{.Analyzer}}</td><td><code title="{{.Fingerprint}}">{{short .Fingerprint}}</code></td><td><code title="{{.TokenizerFingerprint}}">{{short .TokenizerFingerprint}}</code></td><td>{{.CorpusCache}}</td></tr>
{{end}}{{end}}</table>
{{if .R.Warnings}}<div class="warn"><strong>Warnings</strong><ul>{{range .R.Warnings}}<li>{{.}}</li>{{end}}</ul></div>{{end}}

<h2>Results</h2>
{{range $t := .Tables}}
<table>
<caption><strong>{{$t.Title}}.</strong> {{$t.Caption}}</caption>
<tr>{{range $t.Header}}<th>{{.}}</th>{{end}}</tr>
{{range $i, $row := $t.Rows}}<tr{{if group $t $i}} class="g"{{end}}>{{range $row}}<td{{if num .}} class="n"{{end}}>{{cell .}}</td>{{end}}</tr>
{{end}}</table>
{{end}}

<h2>Charts</h2>
{{range .Charts}}<figure>{{.SVG}}<figcaption>{{.Name}}</figcaption></figure>
{{end}}

<h2>Perturbed queries</h2>
<p>Original and perturbed query token ids decoded with the clean vocabulary (special tokens shown), first seed of each rate.</p>
{{range .Examples}}<h3>{{.Dataset}} / {{.Model}}</h3>
{{if .SameAs}}<p>Same perturbed queries as {{.SameAs}} (same tokenizer).</p>{{else}}
<table>
<tr><th>Query</th><th>Rate</th><th>Seed</th><th>Changed</th><th>Original</th><th>Perturbed</th></tr>
{{range .Examples}}<tr><td>{{.QueryID}}</td><td class="n">{{pct .Rate}}</td><td class="n">{{.Seed}}</td><td class="n">{{.Changed}}/{{.Considered}}</td><td>{{.Decoded}}</td><td>{{.PerturbedDecoded}}</td></tr>
{{end}}</table>{{end}}
{{end}}

<h2>Files</h2>
<p>Every run is in <code>runs/</code> in TREC format, scored against <code>qrels/</code> with every judged query counted
(<code>dreval metrics -c -qrels qrels/DATASET.qrels -run runs/RUN.trec</code>, or <code>trec_eval -c</code>);
<code>results.json</code> holds every number, per query too. {{.R.Significance}}.</p>
</body>
</html>
`))
