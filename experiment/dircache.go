package experiment

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/dreval/dreval/retrieval"
)

// DirCache is a Cache in a directory: the vectors of key in <key>.npy
// (float32) and their CacheMeta in <key>.json beside it, with the SHA-256
// of the .npy file and of the metadata's fields, checked on every Get
// (see dirCacheEntry). It needs a file system: natively, or under js/wasm
// in Node.
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
// absent; an entry without checksums (written by an earlier dreval) is an
// error wrapping ErrCacheUnverified; an unreadable one, or one whose
// vectors or metadata do not match the checksums recorded with it, is an
// error naming the file and saying how to rebuild it.
func (c DirCache) Get(key string) (*retrieval.Matrix, CacheMeta, string, bool, error) {
	npy := filepath.Join(c.Dir, key+".npy")
	metaPath := filepath.Join(c.Dir, key+".json")
	for attempt := 1; ; attempt++ {
		m, meta, ok, raced, err := c.get(npy, metaPath)
		// A concurrent Put renames the new vectors in before their
		// metadata: read again once that is done.
		if raced && attempt < 3 {
			continue
		}
		return m, meta, npy, ok, err
	}
}

// get reads the entry of npy and metaPath once. raced reports that the
// vectors failed their checksum while the metadata changed under us (a
// concurrent Put of the same key).
func (c DirCache) get(npy, metaPath string) (m *retrieval.Matrix, meta CacheMeta, ok, raced bool, err error) {
	b, err := os.ReadFile(metaPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, CacheMeta{}, false, false, nil
	}
	if err != nil {
		return nil, CacheMeta{}, false, false, err
	}
	if _, err := os.Stat(npy); errors.Is(err, fs.ErrNotExist) {
		return nil, CacheMeta{}, false, false, nil
	}
	rebuild := fmt.Sprintf("delete it and %s to re-encode the corpus", filepath.Base(npy))
	var e dirCacheEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, CacheMeta{}, false, false, fmt.Errorf("%s: %v (%s)", metaPath, err, rebuild)
	}
	if e.VectorsSHA256 == "" && e.EntrySHA256 == "" {
		return nil, CacheMeta{}, false, false, fmt.Errorf("%s: %w", metaPath, ErrCacheUnverified)
	}
	if sum := e.sum(); sum != e.EntrySHA256 {
		return nil, CacheMeta{}, false, false, fmt.Errorf("%s: the metadata does not match its checksum (entry_sha256 %q, its fields hash to %q): it was edited or damaged (%s)",
			metaPath, e.EntrySHA256, sum, rebuild)
	}
	h := sha256.New()
	m, err = retrieval.ReadNPYFileHashed(npy, h)
	if err != nil {
		return nil, CacheMeta{}, false, false, fmt.Errorf("%w (delete it and %s to re-encode the corpus)", err, filepath.Base(metaPath))
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != e.VectorsSHA256 {
		if b2, err := os.ReadFile(metaPath); err == nil && !bytes.Equal(b, b2) {
			return nil, CacheMeta{}, false, true, nil
		}
		return nil, CacheMeta{}, false, false, fmt.Errorf("%s: the file's SHA-256 is %s, but %s records %s: the vectors are damaged (delete it and %s to re-encode the corpus)",
			npy, sum, filepath.Base(metaPath), e.VectorsSHA256, filepath.Base(metaPath))
	}
	if m.Rows != e.Rows || m.Dim != e.Dim {
		return nil, CacheMeta{}, false, false, fmt.Errorf("%s holds %d x %d vectors, but %s says rows %d, dim %d (delete it and %s to re-encode the corpus)",
			npy, m.Rows, m.Dim, filepath.Base(metaPath), e.Rows, e.Dim, filepath.Base(metaPath))
	}
	return m, e.CacheMeta, true, false, nil
}

// Put implements Cache. Each file is written to a uniquely named
// temporary file and renamed into place, so concurrent runs and crashes
// never leave a half-written entry; the metadata, with the checksums of
// the vectors and of itself, is renamed last. Temporary files that
// crashed writers left in the directory are removed once they are
// staleTempAge old.
func (c DirCache) Put(key string, m *retrieval.Matrix, meta CacheMeta) error {
	if m == nil {
		return errors.New("DirCache.Put: nil matrix")
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	sweepTemporaries(c.Dir, time.Now().Add(-staleTempAge))
	h := sha256.New()
	err := writeAtomic(filepath.Join(c.Dir, key+".npy"), func(w io.Writer) error {
		return retrieval.WriteNPY(io.MultiWriter(w, h), m, retrieval.Float32)
	})
	if err != nil {
		return err
	}
	e := dirCacheEntry{CacheMeta: meta, VectorsSHA256: hex.EncodeToString(h.Sum(nil))}
	e.EntrySHA256 = e.sum()
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(c.Dir, key+".json"), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// writeAtomic writes a temporary file beside path with write and renames
// it to path.
func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
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
