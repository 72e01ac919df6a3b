// Package browser is the browser app: its state, its messages, its runs.
// Every Web Worker of the page runs one App (one wasm instance each, see
// webapp/static/worker.js); a thin js/wasm adapter (package main in
// wasm/) turns the page's messages into this package's and implements
// what only a browser provides.
package browser
