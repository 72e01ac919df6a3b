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
		t.Fatalf("go list -deps %s (GOOS=%s GOARCH=%s): %v", strings.Join(pkgs, " "), goos, goarch, err)
	}
	return strings.Fields(string(out))
}
