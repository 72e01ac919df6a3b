package report

import (
	"fmt"
	"strings"

	"github.com/dreval/dreval/results"
)

// ConfigLine describes the configuration in a line: dreval's version, the
// perturbation (with its out-of-vocabulary rule and whether special
// tokens are protected), the rates, the seeds, the depth and the split.
func ConfigLine(res *results.Results) string {
	c := res.Config
	var b strings.Builder
	fmt.Fprintf(&b, "dreval %s · perturbation %s", res.Version, c.Perturbation)
	if c.OOV != "" {
		fmt.Fprintf(&b, " (out-of-vocabulary: %s)", c.OOV)
	}
	if c.ProtectSpecial {
		b.WriteString(", special tokens protected")
	}
	fmt.Fprintf(&b, " · rates %s · %s · top %d · split %s", rateList(c.Rates), countNoun(len(c.Seeds), "seed"), c.K, c.Split)
	return b.String()
}

// countNoun writes n and the noun, plural when n is not 1: "1 seed",
// "5 seeds".
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// short is the first 16 characters of a hash, as the overview shows it.
func short(s string) string { return s[:min(len(s), 16)] }

// DataTable lists the datasets: name, source, documents, queries
// searched, queries excluded and the hash of the collection.
func DataTable(res *results.Results) *Table {
	t := &Table{
		Name:    "data",
		Title:   "Data",
		Header:  []string{"Dataset", "Source", "Documents", "Searched queries", "Excluded queries", "SHA-256"},
		Groups:  map[int]bool{},
		Caption: "Searched: the judged queries (or, without qrels, the questions with answers); excluded: queries without judgments (or answers). SHA-256 of the corpus, queries and qrels, shortened.",
	}
	for _, d := range res.Datasets {
		searched, excluded := CountCell(d.Judged), CountCell(d.Unjudged)
		if d.QrelsAbsent {
			n := d.Judged
			if d.Answers != nil {
				n = d.Answers.Questions
			}
			searched = TextCell(fmt.Sprintf("%d questions (no qrels)", n))
			excluded = TextCell(fmt.Sprintf("%d without answers", d.Unanswered))
		}
		t.Rows = append(t.Rows, []Cell{TextCell(d.Name), TextCell(d.Source), CountCell(d.Docs), searched, excluded, TextCell(short(d.SHA256))})
	}
	return t
}

// ModelsTable lists every dataset's models: kind, engine or analyser,
// fingerprints and where the corpus vectors came from.
func ModelsTable(res *results.Results) *Table {
	t := &Table{
		Name:    "models",
		Title:   "Models",
		Header:  []string{"Dataset", "Model", "Kind", "Engine / analyser", "Score", "Query side", "Document side", "Model fingerprint", "Tokenizer fingerprint", "Corpus vectors"},
		Groups:  map[int]bool{},
		Caption: "Score: how a dense model scores (from its files, its dreval.json, or an option). Sides: what each tower does after the transformer, and its prompt. Fingerprints shortened; the corpus vectors were loaded from the cache (hit), encoded and stored, or encoded without a cache.",
	}
	side := func(tw *results.TowerResult) string {
		if tw == nil {
			return ""
		}
		s := tw.Head
		if tw.Prompt != "" {
			s += fmt.Sprintf("; prompt %q", tw.Prompt)
		}
		return s
	}
	for _, d := range res.Datasets {
		for _, m := range d.Models {
			score := m.Score
			if m.Towers > 1 {
				score += " (two towers)"
			}
			t.Rows = append(t.Rows, []Cell{TextCell(d.Name), TextCell(m.Model), TextCell(string(m.Kind)), TextCell(m.Engine + m.Analyzer),
				TextCell(score), TextCell(side(m.Query)), TextCell(side(m.Document)),
				TextCell(short(m.Fingerprint)), TextCell(short(m.TokenizerFingerprint)), TextCell(m.CorpusCache)})
		}
	}
	return t
}
