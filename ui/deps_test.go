package ui_test

import (
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/golist"
)

// TestBrowserAppHasNoHTMLParser keeps vugu's HTML parser (github.com/vugu/html,
// 225 KB of the app's code, 77 KB of app.wasm.gz) out of the browser app:
// Render writes the components itself, and only the tests use vugu's
// static renderer, to check Render against it.
func TestBrowserAppHasNoHTMLParser(t *testing.T) {
	for _, pkg := range []string{"github.com/dreval/dreval/wasm", "github.com/dreval/dreval/ui"} {
		for _, dep := range golist.Deps(t, "js", "wasm", pkg) {
			if strings.HasPrefix(dep, "github.com/vugu/html") || dep == "github.com/vugu/vugu/staticrender" {
				t.Errorf("%s (GOOS=js GOARCH=wasm) depends on %s", pkg, dep)
			}
		}
	}
}
