// Package memfs is an in-memory, read-only file system (fs.FS) that a
// program fills with Put: the browser app keeps in it the models it
// fetched and the files the user gave it, and reads them with the same
// loaders the command line uses on disk. It is safe for concurrent use;
// files opened stay readable after the path is replaced or removed.
//
// A file can also be put before its contents (PutLazy): its size and
// SHA-256 are known at once, and its contents are fetched on the first
// read, so that a file nobody reads is never downloaded.
package memfs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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
	lazy  map[string]*lazyFile
}

// lazyFile is a file put by PutLazy whose contents have not been read
// yet.
type lazyFile struct {
	size int64
	sum  string
	load func() ([]byte, string, error)
	mu   sync.Mutex // held while loading
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
	if err := f.checkPutLocked(n); err != nil {
		return &fs.PathError{Op: "put", Path: name, Err: err}
	}
	f.files[n] = data
	delete(f.sums, n)
	delete(f.lazy, n)
	return nil
}

// checkPutLocked reports why file n cannot be stored: a directory above
// it is a file, or n is a directory.
func (f *FS) checkPutLocked(n string) error {
	for dir := path.Dir(n); dir != "."; dir = path.Dir(dir) {
		if f.isFileLocked(dir) {
			return errors.New(dir + " is a file")
		}
	}
	if f.isDirLocked(n) {
		return errors.New("is a directory")
	}
	return nil
}

func (f *FS) isFileLocked(n string) bool {
	_, ok := f.files[n]
	_, lazy := f.lazy[n]
	return ok || lazy
}

// PutLazy stores file name of size bytes whose hex SHA-256 is sum
// without its contents, replacing any file of that name: SHA256, Stat
// and ReadDir answer at once, and the first Open or ReadFile calls load
// for the contents (and, where it has it, their hex SHA-256, "" when it
// has not: the file system then hashes them). Contents of another size
// or SHA-256 are refused with an error naming both, and load is called
// again by the next read, as after its own error. Loads of one file are
// not concurrent; a file loaded is kept like one Put.
func (f *FS) PutLazy(name string, size int64, sum string, load func() ([]byte, string, error)) error {
	n, ok := clean(name)
	if !ok {
		return &fs.PathError{Op: "put", Path: name, Err: fs.ErrInvalid}
	}
	if size < 0 || len(sum) != 2*sha256.Size || load == nil {
		return &fs.PathError{Op: "put", Path: name, Err: fmt.Errorf("a lazy file needs its size, its hex SHA-256 and a load function (size %d, SHA-256 %q)", size, sum)}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.checkPutLocked(n); err != nil {
		return &fs.PathError{Op: "put", Path: name, Err: err}
	}
	if f.lazy == nil {
		f.lazy = map[string]*lazyFile{}
	}
	delete(f.files, n)
	delete(f.sums, n)
	f.lazy[n] = &lazyFile{size: size, sum: strings.ToLower(sum), load: load}
	return nil
}

// contents returns the contents of file name, loading a lazy one; ok is
// false when there is no such file.
func (f *FS) contents(name string) (b []byte, ok bool, err error) {
	f.mu.RLock()
	b, ok = f.files[name]
	lf := f.lazy[name]
	f.mu.RUnlock()
	if ok || lf == nil {
		return b, ok, nil
	}
	lf.mu.Lock()
	defer lf.mu.Unlock()
	f.mu.RLock()
	b, ok = f.files[name]
	still := f.lazy[name] == lf
	f.mu.RUnlock()
	if !still { // loaded by the read before, replaced or removed
		return b, ok, nil
	}
	b, sum, err := lf.load()
	if err != nil {
		return nil, true, err
	}
	if sum == "" {
		h := sha256.Sum256(b)
		sum = hex.EncodeToString(h[:])
	}
	if int64(len(b)) != lf.size || !strings.EqualFold(sum, lf.sum) {
		return nil, true, fmt.Errorf("its contents (%d bytes, SHA-256 %s) are not the file announced (%d bytes, SHA-256 %s)", len(b), sum, lf.size, lf.sum)
	}
	f.mu.Lock()
	if f.lazy[name] == lf {
		delete(f.lazy, name)
		if f.files == nil {
			f.files = map[string][]byte{}
		}
		f.files[name] = b
		if f.sums == nil {
			f.sums = map[string]string{}
		}
		f.sums[name] = lf.sum
	}
	f.mu.Unlock()
	return b, true, nil
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
	if lf, ok := f.lazy[name]; ok {
		return lf.sum, true
	}
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
			f.files, f.sums, f.lazy = nil, nil, nil
		}
		return
	}
	for k := range f.files {
		if k == n || strings.HasPrefix(k, n+"/") {
			delete(f.files, k)
			delete(f.sums, k)
		}
	}
	for k := range f.lazy {
		if k == n || strings.HasPrefix(k, n+"/") {
			delete(f.lazy, k)
		}
	}
}

// Size returns the total size of the files under name ("." for all),
// lazy files not loaded yet included.
func (f *FS) Size(name string) int64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var n int64
	under := func(k string) bool { return name == "." || k == name || strings.HasPrefix(k, name+"/") }
	for k, b := range f.files {
		if under(k) {
			n += int64(len(b))
		}
	}
	for k, lf := range f.lazy {
		if under(k) {
			n += lf.size
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
	for k := range f.lazy {
		if strings.HasPrefix(k, name+"/") {
			return true
		}
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
	b, ok, err := f.contents(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if ok {
		return &file{info: info{name: path.Base(name), size: int64(len(b))}, r: bytes.NewReader(b)}, nil
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
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
	b, ok, err := f.contents(name)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if !ok {
		f.mu.RLock()
		defer f.mu.RUnlock()
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
		if f.isFileLocked(name) {
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
	add := func(k string, size int64) {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			return
		}
		if first, _, isDir := strings.Cut(rest, "/"); isDir {
			seen[first] = fs.FileInfoToDirEntry(info{name: first, dir: true})
		} else {
			seen[first] = fs.FileInfoToDirEntry(info{name: first, size: size})
		}
	}
	for k, b := range f.files {
		add(k, int64(len(b)))
	}
	for k, lf := range f.lazy {
		add(k, lf.size)
	}
	out := make([]fs.DirEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// Stat implements fs.StatFS. It does not load a lazy file.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	f.mu.RLock()
	lf, lazy := f.lazy[name]
	f.mu.RUnlock()
	if lazy {
		return info{name: path.Base(name), size: lf.size}, nil
	}
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
