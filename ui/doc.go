// Package ui holds the browser app's vugu components: the results table,
// the NDCG@10-vs-rate chart, the per-query inspector and the metrics view
// of an uploaded run. They are plain data in, HTML out: Render builds a
// component with vugu and renders it with vugu's staticrender, natively (in
// tests) and in the app's Web Worker, so the page shows exactly what the
// tests check.
package ui

//go:generate go tool vugugen -skip-go-mod .
//go:generate gofmt -w .
