// Package results holds what a dreval experiment produced, as plain data:
// the configuration it ran with, what it read, and for every dataset and
// model the clean run, each perturbed run, the per-query values, the
// summaries over seeds and the paired comparisons with the clean run. It
// is what results.json serialises.
//
// Values are keyed by convention (metrics.Convention: st, trec,
// dureader, ...), never held in one field per convention: Results.
// Conventions lists the conventions an experiment scored and their
// measures in table order, and every run, rate summary and comparison
// keeps its numbers in maps keyed by convention then measure. A new
// convention is one more entry, not a new field.
//
// The package imports only metrics (and the standard library), so that
// presentation — package report, package ui and the browser's rendering —
// depends on the results and not on how they were computed (package
// experiment and the neural stack under encoder/).
package results
