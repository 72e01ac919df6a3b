package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dreval/dreval/report"
)

// evalOutFolders are the folders of eval's output; evalOutFiles the
// files it writes at the top (with the rate charts, *.svg).
var (
	evalOutFolders = []string{"runs", "tables", "qrels"}
	evalOutFiles   = []string{"results.json", "tables.md", "tables.tex", report.ComparisonsFile, "examples.md", report.ReportFile}
)

// evalPrepareOut checks, before anything is computed, that dir can take
// eval's output: it creates dir when it is missing and fails, naming
// it, when it is not a folder, cannot be written, or has a file where
// eval writes a folder. It reports whether dir holds the output of an
// earlier eval (its results.json), whose files evalRemoveStale removes
// once the new ones are written.
func evalPrepareOut(dir string) (earlier bool, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("-out %s: cannot create the output folder: %w", dir, unwrapPath(err))
	}
	f, err := os.CreateTemp(dir, ".dreval-write-check-*")
	if err != nil {
		return false, fmt.Errorf("-out %s: cannot write in the output folder: %w", dir, unwrapPath(err))
	}
	f.Close()
	os.Remove(f.Name())
	for _, sub := range evalOutFolders {
		if st, err := os.Stat(filepath.Join(dir, sub)); err == nil && !st.IsDir() {
			return false, fmt.Errorf("-out %s: %s is a file, but eval writes a folder there; remove it or choose another -out", dir, sub)
		}
	}
	_, err = os.Stat(filepath.Join(dir, "results.json"))
	return err == nil, nil
}

// unwrapPath returns the error a *fs.PathError wraps, for messages that
// name the path themselves.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// evalRemoveStale removes from dir, the output folder of an earlier
// eval, the files of that experiment that this one did not write
// (written, the paths report.WriteDir returned): its runs, qrels and
// tables, its charts, so that dir holds one experiment. Files eval never
// writes are left alone. It returns the paths removed, relative to dir.
func evalRemoveStale(dir string, written []string) ([]string, error) {
	keep := map[string]bool{}
	for _, p := range written {
		if rel, err := filepath.Rel(dir, p); err == nil {
			keep[filepath.ToSlash(rel)] = true
		}
	}
	var removed []string
	remove := func(rel string) error {
		if keep[rel] {
			return nil
		}
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			return fmt.Errorf("removing %s of an earlier experiment from %s: %w", rel, dir, unwrapPath(err))
		}
		removed = append(removed, rel)
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && (slices.Contains(evalOutFiles, n) || path.Ext(n) == ".svg") {
			if err := remove(n); err != nil {
				return removed, err
			}
		}
	}
	for _, sub := range evalOutFolders {
		root := filepath.Join(dir, sub)
		var dirs []string
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return filepath.SkipDir
			}
			if err != nil {
				return err
			}
			if d.IsDir() {
				dirs = append(dirs, p)
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			return remove(filepath.ToSlash(rel))
		})
		if err != nil {
			return removed, err
		}
		for _, d := range slices.Backward(dirs) {
			os.Remove(d) // an emptied folder; one still holding files stays
		}
	}
	return removed, nil
}

// evalStaleNote is the line eval says after evalRemoveStale removed
// files.
func evalStaleNote(dir string, removed []string) string {
	shown := removed
	if len(shown) > 3 {
		shown = shown[:3]
	}
	more := ""
	if len(removed) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(removed)-len(shown))
	}
	return fmt.Sprintf("dreval eval: removed %d files of an earlier experiment from %s, which this one does not write (%s%s)",
		len(removed), dir, strings.Join(shown, ", "), more)
}
