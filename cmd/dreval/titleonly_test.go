package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

// TestTitleOnlyRecordEncodeAndEval: a corpus with a document that has a
// title and no text is taken by "dreval encode" and by "dreval eval"
// alike.
func TestTitleOnlyRecordEncodeAndEval(t *testing.T) {
	models := filepath.Dir(sharedtest.ModelDir(t, "static"))
	data := t.TempDir()
	for name, s := range map[string]string{
		"corpus.jsonl":   `{"_id":"d1","title":"Tokenizer perturbation of dense retrievers"}` + "\n" + `{"_id":"d2","title":"BM25","text":"a lexical baseline"}` + "\n",
		"queries.jsonl":  `{"_id":"q1","text":"perturbation of dense retrievers"}` + "\n",
		"qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\n",
	} {
		p := filepath.Join(data, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := runCLI(t, "", "encode", "-models", models, "-model", "static", "-in", filepath.Join(data, "corpus.jsonl"), "-out", filepath.Join(t.TempDir(), "c.npy")); code != 0 {
		t.Errorf("encode: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "eval", "-data", data, "-models", "static", "-models-dir", models, "-rates", "0", "-seeds", "1",
		"-resamples", "10", "-no-cache", "-quiet", "-out", t.TempDir()); code != 0 {
		t.Errorf("eval: exit %d: %s", code, errOut)
	}
}
