package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dreval/dreval/retrieval"
)

// DirCache is a Cache in a directory: the vectors of key in <key>.npy
// (float32) and their CacheMeta in <key>.json beside it. It needs a file
// system: natively, or under js/wasm in Node.
type DirCache struct {
	Dir string
}

// DefaultCacheDir returns <user cache dir>/dreval/embeddings.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the user cache directory: %w", err)
	}
	return filepath.Join(d, "dreval", "embeddings"), nil
}

// Get implements Cache. An entry whose .npy or .json is missing counts as
// absent; an unreadable one is an error naming the file.
func (c DirCache) Get(key string) (*retrieval.Matrix, CacheMeta, string, bool, error) {
	npy := filepath.Join(c.Dir, key+".npy")
	metaPath := filepath.Join(c.Dir, key+".json")
	b, err := os.ReadFile(metaPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, CacheMeta{}, npy, false, nil
	}
	if err != nil {
		return nil, CacheMeta{}, npy, false, err
	}
	if _, err := os.Stat(npy); errors.Is(err, fs.ErrNotExist) {
		return nil, CacheMeta{}, npy, false, nil
	}
	var meta CacheMeta
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, CacheMeta{}, npy, false, fmt.Errorf("%s: %v (delete it and %s to re-encode the corpus)", metaPath, err, filepath.Base(npy))
	}
	m, err := retrieval.ReadNPYFile(npy)
	if err != nil {
		return nil, CacheMeta{}, npy, false, fmt.Errorf("%w (delete it to re-encode the corpus)", err)
	}
	return m, meta, npy, true, nil
}

// Put implements Cache. Each file is written to a uniquely named
// temporary file and renamed into place, so concurrent runs and crashes
// never leave a half-written entry; the metadata is renamed last.
func (c DirCache) Put(key string, m *retrieval.Matrix, meta CacheMeta) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	var npy bytes.Buffer
	if err := retrieval.WriteNPY(&npy, m, retrieval.Float32); err != nil {
		return err
	}
	b, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(c.Dir, key+".npy"), npy.Bytes()); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(c.Dir, key+".json"), append(b, '\n'))
}

// writeAtomic writes data to a temporary file beside path and renames it
// to path.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
