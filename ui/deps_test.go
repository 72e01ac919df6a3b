package ui_test

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestBrowserAppHasNoHTMLParser keeps vugu's HTML parser (github.com/vugu/html,
// 225 KB of the app's code, 77 KB of app.wasm.gz) out of the browser app:
// Render writes the components itself, and only the tests use vugu's
// static renderer, to check Render against it.
func TestBrowserAppHasNoHTMLParser(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("go list is not available under js/wasm")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not in PATH")
	}
	for _, pkg := range []string{"github.com/dreval/dreval/wasm", "github.com/dreval/dreval/ui"} {
		cmd := exec.Command(gobin, "list", "-deps", pkg)
		cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/vugu/html") || dep == "github.com/vugu/vugu/staticrender" {
				t.Errorf("%s (GOOS=js GOARCH=wasm) depends on %s", pkg, dep)
			}
		}
	}
}
