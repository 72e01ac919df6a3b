package dataset

import (
	"embed"
	"fmt"
	"io/fs"
)

//go:generate go run ./demo/gen -out demo

//go:embed demo/corpus.jsonl demo/queries.jsonl demo/qrels/test.tsv
var demoFiles embed.FS

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
	sub, err := fs.Sub(demoFiles, "demo")
	if err != nil {
		return nil, err
	}
	return loadBEIR(sub, "demo", "demo", split, true)
}
