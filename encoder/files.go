package encoder

import (
	"io/fs"
	"path"
	"slices"

	"github.com/dreval/dreval/encoder/modelfiles"
)

// ModelFiles returns the files of d that make the model (modelfiles.Is),
// sorted: at its top and in its sentence-transformers module folders,
// following symbolic links.
func ModelFiles(d Dir) ([]string, error) {
	var out []string
	var list func(sub string, depth int) error
	list = func(sub string, depth int) error {
		dir := path.Join(d.dir, sub)
		entries, err := fs.ReadDir(d.fsys, dir)
		if err != nil {
			return d.named(sub, err)
		}
		for _, e := range entries {
			rel := path.Join(sub, e.Name())
			info, err := fs.Stat(d.fsys, path.Join(dir, e.Name())) // follows a link
			if err != nil {
				continue // a dangling link is no model file
			}
			switch {
			case info.IsDir() && depth == 0:
				if err := list(rel, 1); err != nil {
					return err
				}
			case info.Mode().IsRegular() && modelfiles.Is(rel):
				out = append(out, rel)
			}
		}
		return nil
	}
	if err := list("", 0); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}
