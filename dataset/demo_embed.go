//go:build !nodemo

package dataset

import (
	"embed"
	"io/fs"
)

//go:embed demo/corpus.jsonl demo/queries.jsonl demo/qrels/test.tsv
var demoFiles embed.FS

// embeddedDemo returns the demo collection's folder embedded in the binary.
func embeddedDemo() (fs.FS, error) { return fs.Sub(demoFiles, "demo") }
