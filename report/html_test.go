package report_test

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/report"
)

func TestTableHTMLEscapes(t *testing.T) {
	const hostile = `<script>alert("x")</script> & <b onclick='y'>`
	tab := &report.Table{
		Name:    `n" onmouseover="z`,
		Title:   "T <i>" + hostile,
		Caption: "C " + hostile,
		Header:  []string{"Model " + hostile, "Rate", "NDCG@10"},
		Rows: [][]report.Cell{
			{report.TextCell(hostile), report.TextCell("clean"), report.NumCell(0.5)},
			{report.TextCell("m2"), report.TextCell("5%"), report.StatCell(experiment.Stat{Mean: 0.25, SD: 0.125, N: 3})},
		},
		Groups: map[int]bool{0: true, 1: true},
	}
	var b strings.Builder
	if err := tab.HTML(&b); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, bad := range []string{"<script", "<b ", "<i>", `" onmouseover`, "onclick='"} {
		if strings.Contains(got, bad) {
			t.Errorf("the table holds %q unescaped:\n%s", bad, got)
		}
	}
	tests := []struct{ what, want string }{
		{"cell", `<td>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;b onclick=&#39;y&#39;&gt;</td>`},
		{"header", `<th>Model &lt;script&gt;`},
		{"attribute", `data-name="n&#34; onmouseover=&#34;z"`},
		{"caption", `<caption><strong>T &lt;i&gt;&lt;script&gt;`},
		{"number cell", `<td class="n">0.5000</td>`},
		{"mean ± sd cell", `<td class="n">0.2500 ± 0.1250</td>`},
		{"a new group, not the first row", `<tr class="g"><td>m2</td>`},
	}
	for _, tt := range tests {
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: the table lacks %s:\n%s", tt.what, tt.want, got)
		}
	}
	if strings.Count(got, `class="g"`) != 1 {
		t.Errorf("the first row is marked as a group start:\n%s", got)
	}
}

var (
	tableRe = regexp.MustCompile(`(?s)<table data-name="([^"]*)">.*?</table>`)
	rowRe   = regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`)
	cellRe  = regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`)
)

// TestReproductionHTML checks that the HTML reproduction shows the
// tables, cell for cell, and the findings of the Markdown one.
func TestReproductionHTML(t *testing.T) {
	_, two := results(t)
	o := report.ReproductionOptions{Command: "dreval reproduce <x>", DropRates: []float64{0.05}}
	var b strings.Builder
	if err := report.ReproductionHTML(&b, two, o); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	want := report.ReproductionTables(two, o.DropRates)
	found := tableRe.FindAllStringSubmatch(got, -1)
	if len(found) != len(want) {
		t.Fatalf("%d tables, want %d", len(found), len(want))
	}
	for i, m := range found {
		w := want[i]
		if m[1] != w.Name {
			t.Errorf("table %d is %q, want %q", i, m[1], w.Name)
		}
		rows := rowRe.FindAllStringSubmatch(m[0], -1)
		if len(rows) != 1+len(w.Rows) {
			t.Fatalf("table %s has %d rows, want %d", w.Name, len(rows), 1+len(w.Rows))
		}
		for r, row := range rows[1:] {
			cells := cellRe.FindAllStringSubmatch(row[1], -1)
			if len(cells) != len(w.Rows[r]) {
				t.Fatalf("table %s row %d has %d cells, want %d", w.Name, r, len(cells), len(w.Rows[r]))
			}
			for c, cell := range cells {
				if s := html.UnescapeString(cell[1]); s != w.Rows[r][c].String() {
					t.Errorf("table %s row %d cell %d: %q, want %q", w.Name, r, c, s, w.Rows[r][c].String())
				}
			}
		}
	}
	if !strings.Contains(got, "Table 3: ") || !strings.Contains(got, "Tables 5-7: demo-half") {
		t.Error("the tables lack the study's titles")
	}
	var listed []string
	for _, m := range regexp.MustCompile(`<li>(.*?)</li>`).FindAllStringSubmatch(got, -1) {
		listed = append(listed, html.UnescapeString(m[1]))
	}
	if fs := report.Findings(two); strings.Join(listed, "\n") != strings.Join(fs, "\n") {
		t.Errorf("findings listed:\n%s\nwant:\n%s", strings.Join(listed, "\n"), strings.Join(fs, "\n"))
	}
	if !strings.Contains(got, "<code>dreval reproduce &lt;x&gt;</code>") {
		t.Error("the command is not shown, or not escaped")
	}
	if !strings.Contains(got, "Same perturbed queries as fake") || !strings.Contains(got, "[CLS]") {
		t.Error("the decoded examples are missing")
	}
}
