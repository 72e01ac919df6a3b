//go:build !js

package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
)

// linkTree puts the files of the folder src under dst as hard links (a
// copy where the file system refuses one), so that a test's models folder
// holds model folders of its own: "dreval serve" and "dreval site" serve
// a model only from inside its models folder, and refuse a folder linked
// in from elsewhere (issue 29).
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil // a link in the installed model: not a model file
		}
		if err := os.Link(p, to); err == nil {
			return nil
		}
		return copyFile(p, to)
	})
}
