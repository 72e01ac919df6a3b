package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/modelfiles"
)

// twoTowers writes a retriever folder: two tiny BERTs (different
// weights) in q/ and d/, and a dreval.json naming them with manifest's
// other fields.
func twoTowers(t *testing.T, manifest string) string {
	t.Helper()
	root := t.TempDir()
	for _, sub := range []string{"q", "d"} {
		src := tinyBERTDir(t, false)
		if sub == "d" {
			src = tinyBERTDirSeed(t, 7)
		}
		if err := os.Rename(src, filepath.Join(root, sub)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, modelfiles.ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestOpenRetrieverTwoTowers opens a two-tower folder: the query and
// document encoders are the two folders' models (different vectors for
// the same ids), scored as the manifest says, with its prompts and
// lengths.
func TestOpenRetrieverTwoTowers(t *testing.T) {
	dir := twoTowers(t, `{"query": "q", "document": "d", "score": "dot", "document_prompt": "the ", "query_max_length": 6}`)
	r, err := OpenRetriever(modelfiles.OSDir(dir), RetrieverOptions{Options: Options{Engine: Go}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Towers != 2 || r.Score != encoder.Dot || r.ScoreFrom != "manifest" {
		t.Errorf("towers %d score %s from %s, want 2, dot, manifest", r.Towers, r.Score, r.ScoreFrom)
	}
	if r.Query.MaxLength() != 6 || r.Document.Prompt() != "the " || r.Query.Prompt() != "" {
		t.Errorf("query max length %d, document prompt %q, query prompt %q", r.Query.MaxLength(), r.Document.Prompt(), r.Query.Prompt())
	}
	ids := [][]int32{r.Query.EncodeIDs("big red cat")}
	a, err := r.Query.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Document.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a, b) {
		t.Error("the two towers embed the same ids the same: one model opened twice?")
	}
	if got := r.Document.EncodeIDs("cat"); len(got) != 4 { // [CLS] the cat [SEP]
		t.Errorf("document ids %v, want the prompt before the text", got)
	}
	// An option overrides the manifest's score and prompts.
	none := ""
	r2, err := OpenRetriever(modelfiles.OSDir(dir), RetrieverOptions{Options: Options{Engine: Go}, Score: encoder.Cosine, DocumentPrompt: &none})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if r2.Score != encoder.Cosine || r2.ScoreFrom != "option" || r2.Document.Prompt() != "" {
		t.Errorf("overrides: score %s from %s, prompt %q", r2.Score, r2.ScoreFrom, r2.Document.Prompt())
	}
}

// TestOpenRetrieverSingleTower: a model folder is a retriever whose
// towers share one model, scored by cosine unless it says otherwise.
func TestOpenRetrieverSingleTower(t *testing.T) {
	r, err := OpenRetriever(modelfiles.OSDir(tinyBERTDir(t, false)), RetrieverOptions{Options: Options{Engine: Go}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Towers != 1 || r.Score != encoder.Cosine || r.ScoreFrom != "default" || r.Query.Embedder() != r.Document.Embedder() {
		t.Errorf("towers %d score %s from %s; shared embedder %v", r.Towers, r.Score, r.ScoreFrom, r.Query.Embedder() == r.Document.Embedder())
	}
}

func TestOpenRetrieverErrors(t *testing.T) {
	for _, tc := range []struct{ manifest, want string }{
		{`{"query": "q", "document": "missing"}`, `document is "missing", but`},
		{`{"query": "q", "document": "d", "score": "euclidean"}`, `score: similarity "euclidean" is not supported`},
		{`{"query": "q", "document": "d", "pooling": "median"}`, `pooling: pooling "median" is not known`},
		{`{"query": "../q"}`, `is not a folder inside the manifest's`},
		{`{"query": "q", "document": "d", "scoring": "dot"}`, `unknown field "scoring"`},
	} {
		dir := twoTowers(t, tc.manifest)
		_, err := OpenRetriever(modelfiles.OSDir(dir), RetrieverOptions{Options: Options{Engine: Go}})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "dreval.json") {
			t.Errorf("%s: %v, want an error naming dreval.json and %q", tc.manifest, err, tc.want)
		}
	}
}
