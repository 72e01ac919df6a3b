package dataset

import (
	"embed"
	"fmt"
	"io/fs"
)

//go:embed demo/corpus.jsonl demo/queries.jsonl demo/qrels/test.tsv
var demoFiles embed.FS

// Demo returns dreval's built-in demo collection, written for the project:
// short English passages on a dozen everyday topics (document ids are
// "<topic>-<nn>"), with queries judged on a graded scale: 2 answers the
// query, 1 is partly relevant, 0 was judged and is not relevant (a
// near-miss that shares words with the query). Its only split is "test".
func Demo(split string) (*Collection, error) {
	if split != "test" {
		return nil, fmt.Errorf("demo collection: no split %q; its only split is \"test\"", split)
	}
	sub, err := fs.Sub(demoFiles, "demo")
	if err != nil {
		return nil, err
	}
	return loadBEIR(sub, "demo", "demo", split, true)
}
