// Package report renders results (package results) as files: the
// paper's tables (clean and perturbed rows per model, mean ± sd over
// seeds; the average over datasets; the drop table with p-values) as
// Markdown, CSV and LaTeX, the comparisons in long form (CSV), the decoded
// examples of perturbed queries, TREC run and qrels files, and the
// reproduction of the study as Markdown. It decides the layout of an
// output folder: the files' names and contents (Files, WriteDir).
//
// The tables are data (Table, Cell) that every output format writes in
// its own way; the numbers are formatted here (Num, Signed, PValue,
// Cell.String), once, for the tables, the page and report.html. The HTML
// views, report.html among them, are package ui's vugu components, which
// render these tables; the SVG charts of the output folder are package
// report/ratechart's. report imports neither, so the browser app can use
// it without the plotting library or the renderer's weight where it only
// needs files.
//
// report knows nothing of how results were computed: everything it shows
// comes from the Results value, so the browser, the server and the command
// line write the same numbers.
package report
