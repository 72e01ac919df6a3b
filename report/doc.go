// Package report renders experiment.Results: the paper's tables (clean and
// perturbed rows per model, mean ± sd over seeds; the average over
// datasets; the drop table with p-values) as Markdown, CSV and LaTeX, the
// decoded examples of perturbed queries, the NDCG@10-versus-rate chart as
// SVG, TREC run files, and one self-contained HTML page bundling it all.
//
// report knows nothing of how results were computed: everything it shows
// comes from the Results value, so the browser, the server and the command
// line render the same numbers. Files returns the output in memory (for
// the browser); WriteDir writes it to a directory.
package report
