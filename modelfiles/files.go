package modelfiles

import (
	"errors"
	"io/fs"
	"path"
	"slices"
)

// ModelFiles returns the files of d that make the model (IsOf),
// sorted: at its top and in its sentence-transformers module folders,
// and, for a retriever's folder (a dreval.json naming towers), in its
// towers and their module folders; symbolic links are followed.
func ModelFiles(d Dir) ([]string, error) {
	towers, err := towerFolders(d)
	if err != nil {
		return nil, err
	}
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
			case info.IsDir() && (depth == 0 || depth == 1 && slices.Contains(towers, sub)):
				if err := list(rel, depth+1); err != nil {
					return err
				}
			case info.Mode().IsRegular() && IsOf(rel, towers):
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

// towerFolders returns the tower folders d's dreval.json names; none
// without one.
func towerFolders(d Dir) ([]string, error) {
	b, err := d.ReadFile(ManifestFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Towers(b, d.Path(ManifestFile))
}

// LoadFiles returns the files of d a load reads: ToLoadOf of
// its ModelFiles (each tower's too). Whoever copies a model to load it
// elsewhere copies these.
func LoadFiles(d Dir) ([]string, error) {
	files, err := ModelFiles(d)
	if err != nil {
		return nil, err
	}
	towers, err := towerFolders(d)
	if err != nil {
		return nil, err
	}
	return ToLoadOf(files, towers), nil
}
