package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dreval/dreval/retrieval"
)

// ErrCacheUnverified is wrapped by the error of a Cache's Get for an
// entry that cannot prove its content (a DirCache entry written before
// entries carried checksums). CorpusVectors treats it as a miss: it
// encodes the corpus again, stores the vectors over the entry and says
// so (CorpusSource.Warning).
var ErrCacheUnverified = errors.New("the cache entry carries no checksums (written by an earlier dreval), so its vectors cannot be trusted")

// dirCacheEntry is the JSON file of a DirCache entry: its CacheMeta, the
// hex SHA-256 of the .npy file (header and vectors, every byte), and the
// hex SHA-256 of those fields (entrySum), so that neither the vectors nor
// any field deciding their reuse can change unnoticed.
type dirCacheEntry struct {
	CacheMeta
	VectorsSHA256 string `json:"vectors_sha256"`
	EntrySHA256   string `json:"entry_sha256"`
}

// sum returns the hex SHA-256 of e's fields but EntrySHA256, each
// length-prefixed.
func (e dirCacheEntry) sum() string {
	h := sha256.New()
	for _, f := range []string{"dreval-cache-entry-v1", e.Model, e.ModelFingerprint, e.TokenizerFingerprint,
		e.CorpusSHA256, strconv.Itoa(e.Rows), strconv.Itoa(e.Dim), e.VectorsSHA256} {
		writeField(h, f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// staleTempAge is how old a DirCache temporary file must be for Put to
// remove it: a writer at work keeps touching its file, so one that has
// not changed for this long was left by a crash.
const staleTempAge = 10 * time.Minute

// sweepTemporaries removes the temporary files of DirCache writers
// (KEY.npy.*.tmp, KEY.json.*.tmp) in dir last modified before cutoff. It
// is best effort: a file it cannot remove stays for the next Put.
func sweepTemporaries(dir string, cutoff time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(n, ".tmp") || !(strings.Contains(n, ".npy.") || strings.Contains(n, ".json.")) {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// checkCacheMeta checks that a cache entry read from where (meta, its
// vectors mat) was made for this request: by the document tower of
// fingerprint modelFP, of the corpus hashing to corpusHash, and that it
// describes mat.
func checkCacheMeta(meta CacheMeta, mat *retrieval.Matrix, where, modelFP, corpusHash string) error {
	const rebuild = "delete it to re-encode the corpus"
	switch {
	case meta.ModelFingerprint != modelFP:
		return fmt.Errorf("%s: made by the model of fingerprint %q, but this run's document tower is %q (%s)", where, meta.ModelFingerprint, modelFP, rebuild)
	case meta.CorpusSHA256 != corpusHash:
		return fmt.Errorf("%s: made from the corpus of SHA-256 %q, but this run's corpus is %q (%s)", where, meta.CorpusSHA256, corpusHash, rebuild)
	case mat != nil && (meta.Rows != mat.Rows || meta.Dim != mat.Dim):
		return fmt.Errorf("%s: its metadata says rows %d, dim %d, but it holds %d x %d vectors (%s)", where, meta.Rows, meta.Dim, mat.Rows, mat.Dim, rebuild)
	}
	return nil
}
