// Package archtest holds the test of dreval's whole import graph: the
// layers and rules that docs/architecture.md states, in a block the test
// reads, are checked against what the go command lists, natively and for
// js/wasm. The package has no code of its own.
package archtest
