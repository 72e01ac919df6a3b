package ui

import "github.com/dreval/dreval/report"

// rowClass is the class of row i: "g" where a new group starts.
func (c *ReportTable) rowClass(i int) any {
	if i > 0 && c.Table.Groups[i] {
		return "g"
	}
	return nil
}

// cellClass is a cell's class: "n" for numbers.
func cellClass(c report.Cell) any {
	if c.Num {
		return "n"
	}
	return nil
}
