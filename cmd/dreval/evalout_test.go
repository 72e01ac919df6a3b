package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFaultEvalOutUnwritable: an -out that cannot take the output fails
// at once, naming it, before anything is computed.
func TestFaultEvalOutUnwritable(t *testing.T) {
	withFakeModels(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	runsFile := filepath.Join(dir, "runs-is-a-file")
	if err := os.MkdirAll(runsFile, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runsFile, "runs"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, out string }{
		{"a file", file},
		{"under a file", filepath.Join(file, "sub")},
		{"in /proc", "/proc/dreval-eval-test"},
		{"runs/ is a file", runsFile},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "read-only")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct{ name, out string }{"a read-only folder", ro})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", "eval", "-models", "fake", "-rates", "0,0.1", "-seeds", "1", "-resamples", "10", "-no-cache", "-out", tt.out)
			if code == 0 {
				t.Fatalf("exit 0 with -out %s", tt.out)
			}
			if !strings.Contains(errOut, tt.out) {
				t.Errorf("the error does not name %s: %s", tt.out, errOut)
			}
			if strings.Contains(errOut, "encode") || out != "" {
				t.Errorf("computed before failing on -out:\nstdout %s\nstderr %s", out, errOut)
			}
		})
	}
}

// listFiles returns the files under dir, slash-separated and relative.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// TestEvalOutHoldsOneExperiment: eval into the output of an earlier eval
// leaves the new experiment's files only (the earlier one's runs and
// tables removed, said in one line), and files eval never writes alone.
func TestEvalOutHoldsOneExperiment(t *testing.T) {
	withFakeModels(t)
	dir := t.TempDir()
	eval := func(models string) string {
		code, _, errOut := runCLI(t, "", "eval", "-models", models, "-rates", "0,0.1", "-seeds", "1", "-resamples", "10", "-no-cache", "-quiet", "-out", dir)
		if code != 0 {
			t.Fatalf("eval -models %s: exit %d: %s", models, code, errOut)
		}
		return errOut
	}
	if errOut := eval("fake,fakebm25"); errOut != "" {
		t.Errorf("eval into a new folder said %q", errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := listFiles(t, dir)
	errOut := eval("fake")
	after := listFiles(t, dir)
	for _, f := range after {
		if strings.Contains(f, "fakebm25") {
			t.Errorf("%s of the earlier experiment is left", f)
		}
	}
	if !slices.Contains(after, "notes.txt") {
		t.Error("notes.txt, which eval never writes, was removed")
	}
	if !slices.Contains(after, "runs/fake__clean.trec") {
		t.Errorf("the new experiment's runs are missing: %q", after)
	}
	removed := len(before) - len(after)
	if lines := strings.Split(strings.TrimSpace(errOut), "\n"); removed <= 0 || len(lines) != 1 || !strings.Contains(lines[0], "earlier experiment") || !strings.Contains(lines[0], dir) {
		t.Errorf("removed %d files; stderr %q, want one line saying so", removed, errOut)
	}
	res := readResults(t, dir)
	if n := len(res.Datasets[0].Models); n != 1 {
		t.Errorf("results.json holds %d models, want 1", n)
	}
	// The same experiment again: nothing stale, nothing said.
	if errOut := eval("fake"); errOut != "" {
		t.Errorf("eval of the same experiment said %q", errOut)
	}
}
