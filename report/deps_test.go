package report_test

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestNoHeavyDependencies keeps report fit for the browser app, which
// imports it: no plotting library (report/ratechart draws the charts) and
// no text/template, whose reflection keeps every exported method in the
// wasm build (over 1 MB gzip).
func TestNoHeavyDependencies(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("go list is not available under js/wasm")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not in PATH")
	}
	cmd := exec.Command(gobin, "list", "-deps", "github.com/dreval/dreval/report")
	cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "gonum.org/v1/plot") || dep == "text/template" || dep == "html/template" {
			t.Errorf("report depends on %s", dep)
		}
	}
}
