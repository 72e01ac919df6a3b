// Package golist lets tests see a package's dependencies as the go
// command lists them, to keep heavy or forbidden packages out of a build
// (the browser app's, say).
package golist

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// Deps returns the import paths `go list -deps` names for pkgs built for
// GOOS/GOARCH goos/goarch, the packages themselves included. It skips t
// where the go command cannot run (under js/wasm, or without go in PATH)
// and fails it when go list fails.
func Deps(t testing.TB, goos, goarch string, pkgs ...string) []string {
	t.Helper()
	return strings.Fields(list(t, goos, goarch, append([]string{"-deps"}, pkgs...)))
}

// Importers returns the packages among pkgs and their dependencies (built
// for goos/goarch) that import imported directly. It skips and fails t as
// Deps does.
func Importers(t testing.TB, goos, goarch, imported string, pkgs ...string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(list(t, goos, goarch, append([]string{"-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, pkgs...)), "\n") {
		f := strings.Fields(line)
		for _, imp := range f[min(1, len(f)):] {
			if imp == imported {
				out = append(out, f[0])
			}
		}
	}
	return out
}

// list runs go list with args for goos/goarch and returns its output.
func list(t testing.TB, goos, goarch string, args []string) string {
	t.Helper()
	if runtime.GOOS == "js" {
		t.Skip("go list is not available under js/wasm")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not in PATH")
	}
	cmd := exec.Command(gobin, append([]string{"list"}, args...)...)
	cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH="+goarch)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s (GOOS=%s GOARCH=%s): %v", strings.Join(args, " "), goos, goarch, err)
	}
	return string(out)
}

// Imports returns, for each package of pkgs built for goos/goarch, a line
// of its import path followed by the paths it imports (test files left
// out). It skips and fails t as Deps does.
func Imports(t testing.TB, goos, goarch string, pkgs ...string) []string {
	t.Helper()
	return strings.Split(strings.TrimSpace(list(t, goos, goarch, append([]string{"-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, pkgs...))), "\n")
}
