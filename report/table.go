package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dreval/dreval/results"
)

// Table is a rendered table: a title, a header and rows of cells. Cells
// hold Values so each output format writes numbers its own way.
type Table struct {
	Name    string // short name, used in file names ("demo", "average", "drop-demo")
	Title   string
	Caption string
	Header  []string
	Rows    [][]Cell
	// Groups marks the rows that start a new group (a new model), where
	// formats draw a rule.
	Groups map[int]bool
}

// Cell is one table cell: text, a number, a mean ± sd, or a difference
// with its p-value.
type Cell struct {
	Text string
	// Mean, SD and HasSD: a number, shown with its standard deviation
	// when HasSD.
	Num   bool
	Mean  float64
	SD    float64
	HasSD bool
	// P is the p-value of a difference, shown beside it when HasP.
	P    float64
	HasP bool
	// Count marks a whole number (a count), shown without decimals.
	Count bool
}

// TextCell returns a text cell.
func TextCell(s string) Cell { return Cell{Text: s} }

// CountCell returns a number cell holding a count, shown as a whole
// number.
func CountCell(n int) Cell { return Cell{Num: true, Mean: float64(n), Count: true} }

// NumCell returns a number cell.
func NumCell(v float64) Cell { return Cell{Num: true, Mean: v} }

// StatCell returns a mean ± sd cell; with fewer than two values it shows
// the mean alone.
func StatCell(s results.Stat) Cell {
	return Cell{Num: true, Mean: s.Mean, SD: s.SD, HasSD: s.N > 1}
}

// DiffCell returns a difference cell with its p-value.
func DiffCell(c results.Comparison) Cell {
	return Cell{Num: true, Mean: float64(c.MeanDiff), P: float64(c.PRandomization), HasP: true}
}

// String returns the cell as plain text ("0.6512 ± 0.0123",
// "-0.1234 (p=0.0002)").
func (c Cell) String() string {
	switch {
	case !c.Num:
		return c.Text
	case c.Count:
		return strconv.FormatFloat(c.Mean, 'f', 0, 64)
	case c.HasP:
		return Signed(c.Mean) + " (" + PValue(c.P) + ")"
	case c.HasSD:
		return Num(c.Mean) + " ± " + Num(c.SD)
	default:
		return Num(c.Mean)
	}
}

// latex returns the cell for a LaTeX tabular.
func (c Cell) latex() string {
	switch {
	case !c.Num:
		return latexEscape(c.Text)
	case c.Count:
		return "$" + c.String() + "$"
	case c.HasP:
		return "$" + Signed(c.Mean) + "$ {\\small (" + strings.Replace(PValue(c.P), "<", "{<}", 1) + ")}"
	case c.HasSD:
		return "$" + Num(c.Mean) + " \\pm " + Num(c.SD) + "$"
	default:
		return "$" + Num(c.Mean) + "$"
	}
}

// Markdown writes t as a GitHub-flavoured Markdown table under a heading.
func (t *Table) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", t.Title)
	b.WriteString("| " + strings.Join(mdEscapeAll(t.Header), " | ") + " |\n|")
	for i := range t.Header {
		if i < 2 {
			b.WriteString("---|")
		} else {
			b.WriteString("---:|")
		}
	}
	b.WriteString("\n")
	for _, row := range t.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = mdEscape(c.String())
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	if t.Caption != "" {
		b.WriteString("\n" + t.Caption + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func mdEscapeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = mdEscape(s)
	}
	return out
}

// CSV writes t as CSV: the header, then one line per row. Number cells are
// split into separate columns (mean and sd, or difference and p) so the
// file is easy to read back; numbers are written at full precision.
func (t *Table) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	var header []string
	for i, h := range t.Header {
		header = append(header, h)
		switch {
		case t.colHas(i, func(c Cell) bool { return c.HasSD }):
			header = append(header, h+" sd")
		case t.colHas(i, func(c Cell) bool { return c.HasP }):
			header = append(header, h+" p")
		}
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	full := fullNum
	for _, row := range t.Rows {
		var rec []string
		for i, c := range row {
			if c.Num {
				rec = append(rec, full(c.Mean))
			} else {
				rec = append(rec, c.Text)
			}
			switch {
			case t.colHas(i, func(c Cell) bool { return c.HasSD }):
				if c.HasSD {
					rec = append(rec, full(c.SD))
				} else {
					rec = append(rec, "")
				}
			case t.colHas(i, func(c Cell) bool { return c.HasP }):
				if c.HasP {
					rec = append(rec, full(c.P))
				} else {
					rec = append(rec, "")
				}
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func (t *Table) colHas(i int, f func(Cell) bool) bool {
	for _, row := range t.Rows {
		if i < len(row) && f(row[i]) {
			return true
		}
	}
	return false
}

// LaTeX writes t as a booktabs table environment.
func (t *Table) LaTeX(w io.Writer) error {
	var b strings.Builder
	b.WriteString("\\begin{table}[t]\n\\centering\n")
	fmt.Fprintf(&b, "\\caption{%s}\n", latexEscape(t.Title))
	b.WriteString("\\begin{tabular}{ll" + strings.Repeat("r", max(len(t.Header)-2, 0)) + "}\n\\toprule\n")
	hdr := make([]string, len(t.Header))
	for i, h := range t.Header {
		hdr[i] = latexEscape(h)
	}
	b.WriteString(strings.Join(hdr, " & ") + " \\\\\n\\midrule\n")
	for i, row := range t.Rows {
		if i > 0 && t.Groups[i] {
			b.WriteString("\\midrule\n")
		}
		cells := make([]string, len(row))
		for j, c := range row {
			cells[j] = c.latex()
		}
		b.WriteString(strings.Join(cells, " & ") + " \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	if t.Caption != "" {
		fmt.Fprintf(&b, "\\par\\smallskip{\\footnotesize %s}\n", latexEscape(t.Caption))
	}
	b.WriteString("\\end{table}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

var latexReplacer = strings.NewReplacer(
	`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`,
	`_`, `\_`, `{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
	`±`, `$\pm$`, `Δ`, `$\Delta$`,
)

func latexEscape(s string) string { return latexReplacer.Replace(s) }
