package serve

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
)

// errOutside is why a file reached through a symbolic link that leads
// out of its folder (or dangles, or loops) is not served; it is a
// not-exist error, so such files are 404 and listed nowhere.
var errOutside error = outsideError{}

type outsideError struct{}

func (outsideError) Error() string {
	return "reached through a symbolic link that leads outside its folder (or dangles, or loops)"
}

func (outsideError) Is(target error) bool { return target == fs.ErrNotExist }

// DirFS returns the folder dir as Options.Models wants it: its files,
// opened through an os.Root, so that no path reaches outside it, with
// its symbolic links resolved and checked (confine): a file reached
// through a link that leads outside the folder is an error wrapping
// fs.ErrNotExist that says so, and is listed by no ReadDir. "dreval
// site" copies model files through it too.
func DirFS(dir string) (fs.FS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return confine(r.FS()), nil
}

// confine returns fsys with its symbolic links resolved and checked: a
// path whose links all lead to files inside fsys is served (as the file
// the links lead to); one with a link that leads outside (an absolute
// target, or one climbing above the root), a dangling link or a chain of
// more than 40 is an error wrapping errOutside, and ReadDir leaves it
// out. A file system without links (one that is not an fs.ReadLinkFS:
// embedded files, the Worker's) is returned as it is.
func confine(fsys fs.FS) fs.FS {
	if fsys == nil {
		return nil
	}
	rl, ok := fsys.(fs.ReadLinkFS)
	if !ok {
		return fsys
	}
	return confinedFS{fsys: fsys, rl: rl}
}

type confinedFS struct {
	fsys fs.FS
	rl   fs.ReadLinkFS
}

// resolve returns name with every symbolic link on its way replaced by
// where it leads, or an error wrapping errOutside when a link leads out.
func (c confinedFS) resolve(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	var rest []string
	if name != "." {
		rest = strings.Split(name, "/")
	}
	resolved, links := ".", 0
	for len(rest) > 0 {
		p := path.Join(resolved, rest[0])
		rest = rest[1:]
		fi, err := c.rl.Lstat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && links > 0 {
				err = errOutside // dangling
			}
			return "", &fs.PathError{Op: op, Path: name, Err: unwrapPathError(err)}
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = p
			continue
		}
		if links++; links > 40 {
			return "", &fs.PathError{Op: op, Path: name, Err: errOutside}
		}
		target, err := c.rl.ReadLink(p)
		if err != nil {
			return "", &fs.PathError{Op: op, Path: name, Err: unwrapPathError(err)}
		}
		t := path.Join(resolved, target) // resolved holds no link: ".." is lexical
		if target == "" || path.IsAbs(target) || strings.ContainsRune(target, '\\') || (len(target) > 1 && target[1] == ':') || !fs.ValidPath(t) {
			return "", &fs.PathError{Op: op, Path: name, Err: errOutside}
		}
		resolved = "."
		if t != "." {
			rest = append(strings.Split(t, "/"), rest...)
		}
	}
	return resolved, nil
}

// unwrapPathError returns the error a *fs.PathError wraps (so errors name
// the path asked for, not the one resolved), or err.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (c confinedFS) Open(name string) (fs.File, error) {
	p, err := c.resolve("open", name)
	if err != nil {
		return nil, err
	}
	return c.fsys.Open(p)
}

func (c confinedFS) Stat(name string) (fs.FileInfo, error) {
	p, err := c.resolve("stat", name)
	if err != nil {
		return nil, err
	}
	return fs.Stat(c.fsys, p)
}

// ReadDir lists name's entries but the links that do not resolve inside
// (see confine).
func (c confinedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := c.resolve("readdir", name)
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(c.fsys, p)
	if err != nil {
		return nil, err
	}
	out := entries[:0]
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			if _, err := c.resolve("readdir", path.Join(name, e.Name())); err != nil {
				continue
			}
		}
		out = append(out, e)
	}
	return out, nil
}
