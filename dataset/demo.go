package dataset

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"sync"
)

//go:generate go run ./demo/gen -out demo

// Demo returns dreval's built-in demo collection, written for the project:
// 1,084 short English passages (40 to 90 words) on 22 everyday topics, from
// houseplants and tea to bus lines, first aid and tax forms (document ids
// are "<topic>-<nn>"), and 212 search queries judged on a graded scale: 2
// answers the query, 1 is partly relevant, 0 was judged and is not relevant.
// Its passages come from fact tables (dataset/demo/gen, run by go
// generate): the passages of one aspect of a topic (a plant's watering, a
// bus line's fares) share their wording and differ in the fact a query asks
// for, so every answer has near-duplicate hard negatives, and the closest
// of them are judged 0. Its only split is "test".
func Demo(split string) (*Collection, error) {
	if split != "test" {
		return nil, fmt.Errorf("demo collection: no split %q; its only split is \"test\"", split)
	}
	demoSource.Lock()
	open := demoSource.open
	demoSource.Unlock()
	if open == nil {
		open = embeddedDemo
	}
	sub, err := open()
	if err != nil {
		return nil, fmt.Errorf("demo collection: %w", err)
	}
	return loadBEIR(sub, "demo", "demo", split, true)
}

// DemoFiles returns the paths of the demo collection's files in its
// folder (dataset/demo, and DemoZip's archive).
func DemoFiles() []string {
	return []string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"}
}

// DemoEmbedded reports whether this build embeds the demo collection (a
// build with tag nodemo does not: Demo then needs SetDemoSource).
func DemoEmbedded() bool {
	_, err := embeddedDemo()
	return err == nil
}

// DemoZip is the name of the archive of the demo collection that the
// browser app fetches from its site (scripts/wasm-build.sh writes it
// with WriteDemoZip): one download, compressed on every host.
const DemoZip = "demo.zip"

// WriteDemoZip writes the embedded demo collection's files (DemoFiles) to
// w as a zip archive, deflate-compressed, with no timestamps: the same
// bytes for the same files. Open it with archive/zip's Reader, an fs.FS,
// for SetDemoSource.
func WriteDemoZip(w io.Writer) error {
	src, err := embeddedDemo()
	if err != nil {
		return fmt.Errorf("demo collection: %w", err)
	}
	zw := zip.NewWriter(w)
	for _, name := range DemoFiles() {
		b, err := fs.ReadFile(src, name)
		if err != nil {
			return fmt.Errorf("demo collection: %w", err)
		}
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			return err
		}
		if _, err := f.Write(b); err != nil {
			return err
		}
	}
	return zw.Close()
}

// SetDemoSource makes Demo read the collection's files (DemoFiles) from
// the folder open returns, instead of the copy embedded in the binary. The
// browser app is built without that copy (build tag nodemo, 86 KB of its
// gzip-compressed size) and fetches DemoZip from its site: open is that
// fetch. A nil open restores the embedded copy.
func SetDemoSource(open func() (fs.FS, error)) {
	demoSource.Lock()
	demoSource.open = open
	demoSource.Unlock()
}

var demoSource struct {
	sync.Mutex
	open func() (fs.FS, error)
}
