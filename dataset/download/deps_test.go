package download_test

import (
	"testing"

	"github.com/dreval/dreval/internal/golist"
)

// TestBrowserAppHasNoHTTP keeps Go's HTTP client and TLS out of the
// browser app (about 0.45 MB of app.wasm.gz): downloading datasets lives
// in this package, which only the CLI imports, and the app reaches its
// server through the JavaScript fetch API (browser/server.go, wasm/host.go). Package
// dataset, which the app loads collections with, must not need them
// either.
func TestBrowserAppHasNoHTTP(t *testing.T) {
	for _, pkg := range []string{"github.com/dreval/dreval/wasm", "github.com/dreval/dreval/dataset"} {
		for _, dep := range golist.Deps(t, "js", "wasm", pkg) {
			if dep == "net/http" || dep == "crypto/tls" || dep == "github.com/dreval/dreval/dataset/download" {
				t.Errorf("%s (GOOS=js GOARCH=wasm) depends on %s", pkg, dep)
			}
		}
	}
}
