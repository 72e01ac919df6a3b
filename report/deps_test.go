package report_test

import (
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// goListDeps returns the dependencies of pkgs as go list -deps names them
// for GOOS/GOARCH goos/goarch, skipping t where go list cannot run.
func goListDeps(t *testing.T, goos, goarch string, pkgs ...string) []string {
	t.Helper()
	if runtime.GOOS == "js" {
		t.Skip("go list is not available under js/wasm")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not in PATH")
	}
	cmd := exec.Command(gobin, append([]string{"list", "-deps"}, pkgs...)...)
	cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH="+goarch)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return strings.Fields(string(out))
}

// TestNoHeavyDependencies keeps report fit for the browser app, which
// imports it: no plotting library (report/ratechart draws the charts) and
// no text/template, whose reflection keeps every exported method in the
// wasm build (over 1 MB gzip).
func TestNoHeavyDependencies(t *testing.T) {
	for _, dep := range goListDeps(t, "js", "wasm", "github.com/dreval/dreval/report") {
		if strings.HasPrefix(dep, "gonum.org/v1/plot") || dep == "text/template" || dep == "html/template" {
			t.Errorf("report depends on %s", dep)
		}
	}
}

// TestPresentationKnowsOnlyResults keeps presentation apart from how
// results are computed: results imports only metrics of this module, and
// report and ui only results, metrics and each other — nothing under
// encoder/, nor experiment, dataset or retrieval — natively and in the
// browser build.
func TestPresentationKnowsOnlyResults(t *testing.T) {
	const mod = "github.com/dreval/dreval/"
	allowed := map[string][]string{
		"results": {"metrics", "results"},
		"report":  {"metrics", "results", "report"},
		"ui":      {"metrics", "results", "report", "ui"},
	}
	for _, target := range [][2]string{{runtime.GOOS, runtime.GOARCH}, {"js", "wasm"}} {
		for pkg, ok := range allowed {
			for _, dep := range goListDeps(t, target[0], target[1], mod+pkg) {
				rel, inModule := strings.CutPrefix(dep, mod)
				if inModule && !slices.Contains(ok, rel) {
					t.Errorf("%s/%s: %s depends on %s", target[0], target[1], pkg, rel)
				}
			}
		}
	}
}
