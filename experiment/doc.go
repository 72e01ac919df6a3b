// Package experiment runs dreval's robustness experiment: for every
// dataset and model it encodes the corpus once (cached by model
// fingerprint and corpus hash, with the tokenizer's fingerprint stored
// beside the vectors and checked), runs the judged queries clean and
// perturbed at every rate with every seed, scores every run under the st
// and trec conventions, and compares the perturbed runs with the clean one
// with paired tests.
//
// Run takes a Config and returns Results, plain JSON-tagged data that
// package report renders. Progress goes to a callback the caller owns;
// the package never prints. Models are opened by name from a Registry
// (DefaultRegistry knows minilm, bm25 and model directories), so adding a
// model is one Register call; tests use the fakes of experimenttest.
//
// The package builds under js/wasm: the browser passes its collections in
// Config.Collections and an in-memory cache (NewMemCache), and gets the
// same numbers as the command line.
package experiment
