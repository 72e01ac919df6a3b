// Package memfs is an in-memory, read-only file system (fs.FS) that a
// program fills with Put: the browser app keeps in it the models it
// fetched and the files the user gave it, and reads them with the same
// loaders the command line uses on disk. It is safe for concurrent use;
// files opened stay readable after the path is replaced or removed.
package memfs

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// FS is an in-memory file system. The zero value is an empty file system.
type FS struct {
	mu    sync.RWMutex
	files map[string][]byte
	sums  map[string]string // SHA-256 in hex of files, where the filler gave it
}

// clean returns name as a key of the file system, or false when it is not
// a valid path (fs.ValidPath) other than the root.
func clean(name string) (string, bool) {
	if !fs.ValidPath(name) || name == "." {
		return "", false
	}
	return name, true
}

// Put stores data as the file name (a slash-separated path such as
// "models/minilm/config.json"), replacing any file of that name. Its
// directories exist as long as they hold a file. The file system keeps
// data: the caller must not modify it afterwards.
func (f *FS) Put(name string, data []byte) error {
	n, ok := clean(name)
	if !ok {
		return &fs.PathError{Op: "put", Path: name, Err: fs.ErrInvalid}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.files == nil {
		f.files = map[string][]byte{}
	}
	for dir := path.Dir(n); dir != "."; dir = path.Dir(dir) {
		if _, isFile := f.files[dir]; isFile {
			return &fs.PathError{Op: "put", Path: name, Err: errors.New(dir + " is a file")}
		}
	}
	if f.isDirLocked(n) {
		return &fs.PathError{Op: "put", Path: name, Err: errors.New("is a directory")}
	}
	f.files[n] = data
	delete(f.sums, n)
	return nil
}

// PutWithSHA256 is Put, recording sum as the hex SHA-256 of data, which
// the caller vouches for (the browser app has it from the browser's own
// SHA-256 of the same bytes); SHA256 then gives it without hashing.
func (f *FS) PutWithSHA256(name string, data []byte, sum string) error {
	if err := f.Put(name, data); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sums == nil {
		f.sums = map[string]string{}
	}
	f.sums[name] = sum
	return nil
}

// SHA256 returns the hex SHA-256 recorded for file name by
// PutWithSHA256, and false when there is none (or name was replaced
// since).
func (f *FS) SHA256(name string) (string, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	s, ok := f.sums[name]
	return s, ok
}

// RemoveAll removes name and, when it is a directory, everything under
// it. Removing what does not exist is not an error.
func (f *FS) RemoveAll(name string) {
	n, ok := clean(name)
	f.mu.Lock()
	defer f.mu.Unlock()
	if !ok {
		if name == "." {
			f.files, f.sums = nil, nil
		}
		return
	}
	for k := range f.files {
		if k == n || strings.HasPrefix(k, n+"/") {
			delete(f.files, k)
			delete(f.sums, k)
		}
	}
}

// Size returns the total size of the files under name ("." for all).
func (f *FS) Size(name string) int64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var n int64
	for k, b := range f.files {
		if name == "." || k == name || strings.HasPrefix(k, name+"/") {
			n += int64(len(b))
		}
	}
	return n
}

// isDirLocked reports whether name is a directory: the root, or a
// prefix of a file's path.
func (f *FS) isDirLocked(name string) bool {
	if name == "." {
		return true
	}
	for k := range f.files {
		if strings.HasPrefix(k, name+"/") {
			return true
		}
	}
	return false
}

// Open implements fs.FS.
func (f *FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	if b, ok := f.files[name]; ok {
		return &file{info: info{name: path.Base(name), size: int64(len(b))}, r: bytes.NewReader(b)}, nil
	}
	if f.isDirLocked(name) {
		return &dir{info: info{name: path.Base(name), dir: true}, entries: f.readDirLocked(name)}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// ReadFile implements fs.ReadFileFS: a copy of the file's contents.
func (f *FS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	b, ok := f.files[name]
	if !ok {
		if f.isDirLocked(name) {
			return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(b), nil
}

// ReadDir implements fs.ReadDirFS: the entries of directory name, sorted.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	if !f.isDirLocked(name) {
		if _, ok := f.files[name]; ok {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
		}
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return f.readDirLocked(name), nil
}

func (f *FS) readDirLocked(name string) []fs.DirEntry {
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	seen := map[string]fs.DirEntry{}
	for k, b := range f.files {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		if first, _, isDir := strings.Cut(rest, "/"); isDir {
			seen[first] = fs.FileInfoToDirEntry(info{name: first, dir: true})
		} else {
			seen[first] = fs.FileInfoToDirEntry(info{name: first, size: int64(len(b))})
		}
	}
	out := make([]fs.DirEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// Stat implements fs.StatFS.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	file, err := f.Open(name)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: errors.Unwrap(err)}
	}
	defer file.Close()
	return file.Stat()
}

// info describes a file or directory.
type info struct {
	name string
	size int64
	dir  bool
}

func (i info) Name() string { return i.name }
func (i info) Size() int64  { return i.size }
func (i info) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.dir }
func (i info) Sys() any           { return nil }

// file is an open file: it reads, seeks and reads at offsets.
type file struct {
	info
	r *bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error)                { return f.info, nil }
func (f *file) Read(p []byte) (int, error)                { return f.r.Read(p) }
func (f *file) ReadAt(p []byte, off int64) (int, error)   { return f.r.ReadAt(p, off) }
func (f *file) Seek(off int64, whence int) (int64, error) { return f.r.Seek(off, whence) }
func (f *file) Close() error                              { return nil }
func (d *dir) Stat() (fs.FileInfo, error)                 { return d.info, nil }
func (d *dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}
func (d *dir) Close() error { return nil }

// dir is an open directory.
type dir struct {
	info
	entries []fs.DirEntry
	off     int
}

// ReadDir implements fs.ReadDirFile.
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.off += n
	return rest[:n], nil
}
