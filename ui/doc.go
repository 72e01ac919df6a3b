// Package ui holds dreval's views as vugu components, the one renderer of
// the browser app's views — the results table (ResultsTable), the rate
// chart (RateChart), the per-query inspector (QueryInspector), the
// metrics of an uploaded run (MetricsView), the reproduction of the study
// (Reproduction) — and of the command line's report.html (ReportPage),
// which is put together from the same components: the page and the report
// cannot show a number differently. Numbers are formatted by package
// report (Num, Signed, PValue and Cell.String), the tables' one formatter;
// the components hold no formatting of their own.
//
// The components are plain data in, HTML out: New* functions turn
// results (package results) and tables (package report) into a
// component's fields, and Render builds the component with vugu and
// writes its HTML as vugu's static renderer does (without linking that
// renderer's HTML parser into the browser app; see Render), natively (the
// CLI's report.html) and in the browser app's Web Worker.
//
// Where the page renders: in the worker, not on the page's main thread.
// The worker holds the results (a run's rankings and per-query values are
// megabytes) and the wasm instance that computed them; rendering there
// sends the page one string per view, which it inserts into the view's
// container. Rendering on the main thread with vugu's DOM renderer would
// need a further wasm instance of the app on the main thread (its start
// blocks the page for about a second on the machines measured) and every
// result copied to it, to patch views that are replaced whole on every
// change anyway. The page's JavaScript therefore does wiring only: it
// puts the worker's HTML where it belongs.
package ui

//go:generate go tool vugugen -skip-go-mod .
//go:generate gofmt -w .
