package encoder

import (
	"io/fs"
	"slices"

	"strings"

	"github.com/dreval/dreval/encoder/modelfiles"
)

// ModelFiles returns the files of d that make the model (modelfiles.Is),
// sorted.
func ModelFiles(d Dir) ([]string, error) {
	var out []string
	err := fs.WalkDir(d.fsys, d.dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return d.named(p, err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, d.dir), "/")
		if d.dir == "." {
			rel = p
		}
		if e.Type().IsRegular() && modelfiles.Is(rel) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}
