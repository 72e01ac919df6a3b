package modelfiles

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// Dir is a model directory: the file system its files are read from, the
// directory in it, and the name errors call it by. The loaders of this
// package and of packages static and engine read models through a Dir, so
// a model loads the same way from disk (OSDir) and from files held in
// memory, as the browser app holds the models it fetched or was given
// (FSDir).
type Dir struct {
	fsys fs.FS
	dir  string // the directory in fsys
	name string // the directory as errors name it
	os   bool   // name is the directory's path on disk
}

// OSDir returns the directory at path on disk.
func OSDir(path string) Dir {
	return Dir{fsys: os.DirFS(path), dir: ".", name: path, os: true}
}

// FSDir returns directory dir of fsys (a slash-separated path, "." for
// the root); errors name files by their path in fsys.
func FSDir(fsys fs.FS, dir string) Dir {
	return Dir{fsys: fsys, dir: path.Clean(dir), name: path.Clean(dir)}
}

// Name returns how errors name the directory: its path on disk or in its
// file system.
func (d Dir) Name() string { return d.name }

// Path returns how errors name file (slash-separated, relative to the
// directory).
func (d Dir) Path(file string) string {
	if d.os {
		return filepath.Join(d.name, filepath.FromSlash(file))
	}
	return path.Join(d.name, file)
}

// OSPath returns the path of file on disk, and false when the directory
// is not on disk (engines that need a file name, such as ONNX Runtime's,
// cannot run it).
func (d Dir) OSPath(file string) (string, bool) {
	if !d.os {
		return "", false
	}
	return d.Path(file), true
}

// Sub returns the subdirectory sub of d.
func (d Dir) Sub(sub string) Dir {
	s := d
	s.dir = path.Join(d.dir, sub)
	if d.os {
		s.name = filepath.Join(d.name, filepath.FromSlash(sub))
		s.fsys = os.DirFS(s.name)
		s.dir = "."
	} else {
		s.name = path.Join(d.name, sub)
	}
	return s
}

// named returns err with the fs.PathError's path replaced by how d names
// file, so that messages name the file the user knows.
func (d Dir) named(file string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: d.Path(file), Err: pe.Err}
	}
	return err
}

// Open opens file in the directory.
func (d Dir) Open(file string) (fs.File, error) {
	f, err := d.fsys.Open(path.Join(d.dir, file))
	if err != nil {
		return nil, d.named(file, err)
	}
	return f, nil
}

// ReadFile returns the contents of file in the directory.
func (d Dir) ReadFile(file string) ([]byte, error) {
	b, err := fs.ReadFile(d.fsys, path.Join(d.dir, file))
	if err != nil {
		return nil, d.named(file, err)
	}
	return b, nil
}

// KnownSHA256 returns the hex SHA-256 of file when the directory's file
// system knows it without reading the file (it has a method SHA256(name)
// (string, bool), as the browser app's in-memory files have), and false
// otherwise: the caller then hashes the contents itself.
func (d Dir) KnownSHA256(file string) (string, bool) {
	k, ok := d.fsys.(interface{ SHA256(string) (string, bool) })
	if !ok {
		return "", false
	}
	return k.SHA256(path.Join(d.dir, file))
}

// SHA256 returns the hex SHA-256 of file's contents: KnownSHA256's where
// the directory's file system knows it, else hashed as
// FileSHA256 hashes a file.
func (d Dir) SHA256(file string) (string, error) {
	if sum, ok := d.KnownSHA256(file); ok {
		return sum, nil
	}
	sum, err := FileSHA256(d.fsys, path.Join(d.dir, file))
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return "", d.named(file, err)
	case err != nil: // reading
		return "", fmt.Errorf("%s: %w", d.Path(file), err)
	}
	return sum, nil
}

// Exists reports whether file is in the directory; an error other than
// its absence is returned.
func (d Dir) Exists(file string) (bool, error) {
	_, err := fs.Stat(d.fsys, path.Join(d.dir, file))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, d.named(file, err)
}

// ReaderAt opens file for random access and returns it with its size and
// a function that releases it. Files that cannot be read at an offset
// (some in-memory file systems) are read whole.
func (d Dir) ReaderAt(file string) (io.ReaderAt, int64, func() error, error) {
	f, err := d.Open(file)
	if err != nil {
		return nil, 0, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, nil, d.named(file, err)
	}
	if ra, ok := f.(io.ReaderAt); ok {
		return ra, st.Size(), f.Close, nil
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s: %w", d.Path(file), err)
	}
	return bytesReaderAt(b), int64(len(b)), func() error { return nil }, nil
}

// bytesReaderAt reads a byte slice at offsets.
type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// FS returns the file system the directory's files are read from and the
// directory in it, for readers that take a file system (such as the
// tokenizer's).
func (d Dir) FS() (fsys fs.FS, dir string) { return d.fsys, d.dir }

// ReadDir lists the folder sub of the directory ("." for itself); errors
// name it as the user knows it.
func (d Dir) ReadDir(sub string) ([]fs.DirEntry, error) {
	es, err := fs.ReadDir(d.fsys, path.Join(d.dir, sub))
	if err != nil {
		return nil, d.named(sub, err)
	}
	return es, nil
}
