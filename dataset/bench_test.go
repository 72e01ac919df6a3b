package dataset

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

// BenchmarkCorpusReader streams the Vaswani corpus (11,429 docs, 3.5 MB).
func BenchmarkCorpusReader(b *testing.B) {
	p := filepath.Join(sharedtest.Path(b, "data/vaswani-npl"), "corpus.jsonl")
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		cr := NewCorpusReader(f, "corpus.jsonl")
		for {
			if _, err := cr.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		f.Close()
	}
}

// BenchmarkLoadDemo loads the embedded demo collection.
func BenchmarkLoadDemo(b *testing.B) {
	for b.Loop() {
		if _, err := Demo("test"); err != nil {
			b.Fatal(err)
		}
	}
}
