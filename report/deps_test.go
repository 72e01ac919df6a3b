package report_test

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/golist"
)

// TestNoHeavyDependencies keeps report fit for the browser app, which
// imports it: no plotting library (report/ratechart draws the charts) and
// no text/template, whose reflection keeps every exported method in the
// wasm build (over 1 MB gzip).
func TestNoHeavyDependencies(t *testing.T) {
	for _, dep := range golist.Deps(t, "js", "wasm", "github.com/dreval/dreval/report") {
		if strings.HasPrefix(dep, "gonum.org/v1/plot") || dep == "text/template" || dep == "html/template" {
			t.Errorf("report depends on %s", dep)
		}
	}
}

// TestPresentationKnowsOnlyResults keeps presentation apart from how
// results are computed: results imports only metrics (with its line
// reader, internal/lines) and spec (the experiment's description, plain
// data) of this module, and report and ui only those, results and each
// other — nothing under
// encoder/, nor experiment, dataset or retrieval — natively and in the
// browser build.
func TestPresentationKnowsOnlyResults(t *testing.T) {
	const mod = "github.com/dreval/dreval/"
	allowed := map[string][]string{
		"results": {"metrics", "internal/lines", "spec", "results"},
		"report":  {"metrics", "internal/lines", "spec", "results", "report"},
		"ui":      {"metrics", "internal/lines", "spec", "results", "report", "ui"},
	}
	for _, target := range [][2]string{{runtime.GOOS, runtime.GOARCH}, {"js", "wasm"}} {
		for pkg, ok := range allowed {
			for _, dep := range golist.Deps(t, target[0], target[1], mod+pkg) {
				rel, inModule := strings.CutPrefix(dep, mod)
				if inModule && !slices.Contains(ok, rel) {
					t.Errorf("%s/%s: %s depends on %s", target[0], target[1], pkg, rel)
				}
			}
		}
	}
}
