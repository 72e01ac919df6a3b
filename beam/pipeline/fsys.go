package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	// The file systems -data and -out may name.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
)

// join joins a folder (a local path or a URL) and a slash-separated name.
func join(dir, name string) string {
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// beamFS is a read-only fs.FS over a folder of a Beam file system, so
// that package dataset's loaders read gs:// and s3:// folders as they
// read the disk. Files stream; ReadDir lists through the file system's
// glob.
type beamFS struct {
	ctx  context.Context
	fs   filesystem.Interface
	root string
}

// newBeamFS returns the folder root (a local path or a URL) as an fs.FS.
func newBeamFS(ctx context.Context, root string) (*beamFS, error) {
	f, err := filesystem.New(ctx, root)
	if err != nil {
		return nil, err
	}
	return &beamFS{ctx: ctx, fs: f, root: strings.TrimSuffix(root, "/")}, nil
}

func (b *beamFS) full(name string) string {
	if name == "." {
		return b.root
	}
	return b.root + "/" + name
}

// Open implements fs.FS. A name that no file has, but that prefixes
// others, opens as a folder.
func (b *beamFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	// A folder first: the local file system sizes folders as files.
	entries, err := b.readDir(name)
	if err != nil {
		return nil, err
	}
	if len(entries) > 0 || name == "." {
		return &beamDir{info: fileInfo{name: path.Base(name), dir: true}, entries: entries}, nil
	}
	size, err := b.fs.Size(b.ctx, b.full(name))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: b.full(name), Err: fs.ErrNotExist}
	}
	rc, err := b.fs.OpenRead(b.ctx, b.full(name))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: b.full(name), Err: err}
	}
	return &beamFile{rc: rc, info: fileInfo{name: path.Base(name), size: size}}, nil
}

// readDir lists the files and folders directly in folder name.
func (b *beamFS) readDir(name string) ([]fs.DirEntry, error) {
	prefix := b.full(name) + "/"
	files, err := b.fs.List(b.ctx, prefix+"*")
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: b.full(name), Err: err}
	}
	seen := map[string]bool{}
	var out []fs.DirEntry
	for _, f := range files {
		rest, ok := strings.CutPrefix(f, prefix)
		if !ok || rest == "" {
			continue
		}
		first, _, sub := strings.Cut(rest, "/")
		if seen[first] {
			continue
		}
		seen[first] = true
		out = append(out, fs.FileInfoToDirEntry(fileInfo{name: first, dir: sub}))
	}
	return out, nil
}

// ReadDir implements fs.ReadDirFS.
func (b *beamFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	return b.readDir(name)
}

type fileInfo struct {
	name string
	size int64
	dir  bool
}

func (f fileInfo) Name() string { return f.name }
func (f fileInfo) Size() int64  { return f.size }
func (f fileInfo) Mode() fs.FileMode {
	if f.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (f fileInfo) ModTime() time.Time { return time.Time{} }
func (f fileInfo) IsDir() bool        { return f.dir }
func (f fileInfo) Sys() any           { return nil }

type beamFile struct {
	rc   io.ReadCloser
	info fileInfo
}

func (f *beamFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *beamFile) Read(p []byte) (int, error) { return f.rc.Read(p) }
func (f *beamFile) Close() error               { return f.rc.Close() }

type beamDir struct {
	info    fileInfo
	entries []fs.DirEntry
}

func (d *beamDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *beamDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}
func (d *beamDir) Close() error { return nil }
func (d *beamDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n]
	d.entries = d.entries[n:]
	return out, nil
}

// writeFile writes data to the file at p (a local path or a URL).
func writeFile(ctx context.Context, p string, data []byte) error {
	f, err := filesystem.New(ctx, p)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := f.OpenWrite(ctx, p)
	if err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", p, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}

// openRead opens the file at p (a local path or a URL) for reading.
func openRead(ctx context.Context, p string) (io.ReadCloser, error) {
	f, err := filesystem.New(ctx, p)
	if err != nil {
		return nil, err
	}
	// The file system stays open while the file is read (closing a
	// cloud client would end the read).
	rc, err := f.OpenRead(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	return rc, nil
}
