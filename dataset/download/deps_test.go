package download_test

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestBrowserAppHasNoHTTP keeps Go's HTTP client and TLS out of the
// browser app (about 0.45 MB of app.wasm.gz): downloading datasets lives
// in this package, which only the CLI imports, and the app reaches its
// server through the JavaScript fetch API (wasm/server.go). Package
// dataset, which the app loads collections with, must not need them
// either.
func TestBrowserAppHasNoHTTP(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("go list is not available under js/wasm")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not in PATH")
	}
	for _, pkg := range []string{"github.com/dreval/dreval/wasm", "github.com/dreval/dreval/dataset"} {
		cmd := exec.Command(gobin, "list", "-deps", pkg)
		cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == "net/http" || dep == "crypto/tls" || dep == "github.com/dreval/dreval/dataset/download" {
				t.Errorf("%s (GOOS=js GOARCH=wasm) depends on %s", pkg, dep)
			}
		}
	}
}
