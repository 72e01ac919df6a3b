// Package report renders experiment.Results: the paper's tables (clean and
// perturbed rows per model, mean ± sd over seeds; the average over
// datasets; the drop table with p-values) as Markdown, CSV and LaTeX, the
// decoded examples of perturbed queries, TREC run files, the
// reproduction of the study (Reproduction, as Markdown, and
// ReproductionHTML), and one self-contained HTML page bundling it all
// with the rate charts, which package report/ratechart draws (report
// itself does not import the plotting library, so the browser app can
// use it).
//
// report knows nothing of how results were computed: everything it shows
// comes from the Results value, so the browser, the server and the command
// line render the same numbers. Files returns the output in memory;
// WriteDir writes it to a directory.
package report
