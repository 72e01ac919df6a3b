package experiment_test

import (
	"path/filepath"
	"testing"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/retrieval"
)

// BenchmarkDirCacheGet measures reading a 100,000 x 384 cache entry (the
// size of a 100k-document corpus under MiniLM, 154 MB), warm in the page
// cache: "checked" is DirCache.Get, which hashes the file while reading
// it and checks the entry's checksums; "unchecked" reads the same .npy
// with retrieval.ReadNPYFile alone. The difference is the checks' cost.
func BenchmarkDirCacheGet(b *testing.B) {
	const rows, dim = 100_000, 384
	c := experiment.DirCache{Dir: b.TempDir()}
	m := retrieval.NewMatrix(rows, dim)
	for i := range m.Data {
		m.Data[i] = float32(i%1009)/1009 - 0.5
	}
	meta := experiment.CacheMeta{Model: "m", ModelFingerprint: "fp", TokenizerFingerprint: "tok", CorpusSHA256: "c", Rows: rows, Dim: dim}
	if err := c.Put("k", m, meta); err != nil {
		b.Fatal(err)
	}
	m = nil
	size := int64(4 * rows * dim)
	b.Run("checked", func(b *testing.B) {
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			if _, _, _, ok, err := c.Get("k"); !ok || err != nil {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("unchecked", func(b *testing.B) {
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			if _, err := retrieval.ReadNPYFile(filepath.Join(c.Dir, "k.npy")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("put", func(b *testing.B) {
		mm := retrieval.NewMatrix(rows, dim)
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			if err := c.Put("p", mm, meta); err != nil {
				b.Fatal(err)
			}
		}
	})
}
