package regex_test

import (
	"slices"
	"testing"

	"github.com/dreval/dreval/internal/golist"
)

// TestBrowserAppHasOneRegexEngine keeps Go's regexp out of the browser
// app (82 KB of app.wasm.gz): this package is its one regular-expression
// engine, for the tokenizers and the answer patterns alike.
// index/suffixarray, which imports regexp, stays out too (package answer
// scans in the browser).
func TestBrowserAppHasOneRegexEngine(t *testing.T) {
	for _, pkg := range golist.Importers(t, "js", "wasm", "regexp", "github.com/dreval/dreval/wasm") {
		t.Errorf("%s imports regexp in the browser app (GOOS=js GOARCH=wasm); use internal/regex", pkg)
	}
	if !slices.Contains(golist.Deps(t, "js", "wasm", "github.com/dreval/dreval/wasm"), "github.com/dreval/dreval/internal/regex") {
		t.Error("the browser app does not use internal/regex: is this test still needed?")
	}
}
