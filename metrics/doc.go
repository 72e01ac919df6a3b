// Package metrics evaluates ranked retrieval runs against relevance
// judgments, under a named convention that fixes every detail the
// well-known tools disagree on (ties, graded gains, cut-offs, empty
// queries).
//
// The vocabulary is small: Qrels holds judgments, a Run (or a RunReader,
// which streams one query at a time) holds scored documents, ParseMeasures
// turns trec_eval-style names into Measures, Evaluate and EvaluateReader
// compute per-query values and averages into a Result, and Compare tests
// the paired difference of two Results.
//
// The conventions are documented on Convention; the measures, one family
// per file, carry their definitions in their doc comments, as trec_eval's
// m_*.c files do. Everything is float64. Under ConventionTREC the numbers
// agree with trec_eval 9.0.8 to 1e-9 (checked against its own test
// outputs), including its quirks: scores are compared as float32, ties are
// broken by descending document id.
package metrics
