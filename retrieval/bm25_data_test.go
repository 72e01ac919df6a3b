package retrieval

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

// readBEIR reads a BEIR corpus or queries file: ids and texts.
func readBEIR(t *testing.T, path string) (ids, texts []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var rec struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		ids = append(ids, rec.ID)
		texts = append(texts, rec.Text)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ids, texts
}

// TestBM25Cranfield runs BM25 over the 1,400 Cranfield abstracts and
// checks it behaves like a working lexical retriever: for most of the 225
// queries a judged-relevant abstract (grade >= 1) is in the top 10. A
// broken analyser, idf or length normalisation drops this far below.
func TestBM25Cranfield(t *testing.T) {
	dir := sharedtest.Path(t, "data/cranfield")
	docIDs, docs := readBEIR(t, filepath.Join(dir, "corpus.jsonl"))
	qIDs, queries := readBEIR(t, filepath.Join(dir, "queries.jsonl"))
	b, err := os.ReadFile(filepath.Join(dir, "qrels", "test.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rel := map[string]map[string]bool{}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("qrels line %d: %q", i+2, line)
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g >= 1 {
			if rel[f[0]] == nil {
				rel[f[0]] = map[string]bool{}
			}
			rel[f[0]][f[1]] = true
		}
	}
	x := NewBM25(WordAnalyzer)
	for _, d := range docs {
		x.Add(d)
	}
	hits, err := x.Search(queries, Options{K: 10, DocIDs: docIDs})
	if err != nil {
		t.Fatal(err)
	}
	judged, found := 0, 0
	var rr float64
	for qi, hs := range hits {
		r := rel[qIDs[qi]]
		if len(r) == 0 {
			continue
		}
		judged++
		for rank, h := range hs {
			if r[docIDs[h.Doc]] {
				found++
				rr += 1 / float64(rank+1)
				break
			}
		}
	}
	success, mrr := float64(found)/float64(judged), rr/float64(judged)
	t.Logf("BM25 (k1 0.9, b 0.4, WordAnalyzer) on Cranfield: %d judged queries, success@10 %.3f, MRR@10 %.3f", judged, success, mrr)
	if judged != 225 {
		t.Errorf("%d judged queries, want 225", judged)
	}
	if success < 0.7 || mrr < 0.4 {
		t.Errorf("success@10 %.3f, MRR@10 %.3f: want at least 0.7 and 0.4", success, mrr)
	}
}
