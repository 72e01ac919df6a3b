package static_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/retrieval"
)

// TestQualityCranfield compares a distilled static model with its teacher
// and BM25 on Cranfield: NDCG@10 and Recall@100 under the beir convention
// (trec_eval's measures, relevance level 1, a document with the query's id
// left out). It is a measurement, run by scripts/quality-static.sh: it is
// skipped unless DREVAL_QUALITY_STATIC names the static model directory.
// DREVAL_QUALITY_TEACHER names the teacher's directory (default: the
// installed minilm); the teacher runs with engine auto.
func TestQualityCranfield(t *testing.T) {
	staticDir := os.Getenv("DREVAL_QUALITY_STATIC")
	if staticDir == "" {
		t.Skip("DREVAL_QUALITY_STATIC is not set; run scripts/quality-static.sh")
	}
	teacherDir := os.Getenv("DREVAL_QUALITY_TEACHER")
	if teacherDir == "" {
		teacherDir = sharedtest.ModelDir(t, "minilm")
	}
	c, err := dataset.LoadBEIR(sharedtest.Path(t, "data/cranfield"), "test")
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]string, len(c.Corpus))
	ids := make([]string, len(c.Corpus))
	for i, d := range c.Corpus {
		docs[i], ids[i] = strings.TrimSpace(d.Title+" "+d.Text), d.ID
	}
	// Only judged queries are scored; keep the run to them.
	var qids, queries []string
	for _, q := range c.Queries {
		if _, ok := c.Qrels[q.ID]; ok {
			qids, queries = append(qids, q.ID), append(queries, q.Text)
		}
	}
	measures, err := metrics.ParseMeasures([]string{"ndcg_cut.10", "recall.100"}, metrics.ConventionBEIR)
	if err != nil {
		t.Fatal(err)
	}
	score := func(hits [][]retrieval.Hit) (ndcg, recall float64) {
		run := metrics.Run{}
		for i, hs := range hits {
			r := make(metrics.Ranked, len(hs))
			for j, h := range hs {
				r[j] = metrics.ScoredDoc{DocID: ids[h.Doc], Score: float64(h.Score)}
			}
			run[qids[i]] = r
		}
		res, err := metrics.Evaluate(metrics.Qrels(c.Qrels), run, measures, metrics.Options{Convention: metrics.ConventionBEIR, RelLevel: 1})
		if err != nil {
			t.Fatal(err)
		}
		ndcg, _ = res.Mean("ndcg_cut_10")
		recall, _ = res.Mean("recall_100")
		return ndcg, recall
	}
	lib := os.Getenv("DREVAL_ORT_LIB")
	if lib == "" {
		if cache, err := os.UserCacheDir(); err == nil {
			lib = ort.DefaultLibPath(cache)
		}
	}
	dense := func(dir string) (ndcg, recall float64, info string, secs float64) {
		m, err := engine.Open(modelfiles.OSDir(dir), engine.Options{ORTLibrary: lib})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		start := time.Now()
		matrix := func(texts []string) *retrieval.Matrix {
			vecs, _, err := m.Encode(texts)
			if err != nil {
				t.Fatal(err)
			}
			x := retrieval.NewMatrix(len(vecs), m.Dim())
			for i, v := range vecs {
				copy(x.Row(i), v)
			}
			return x
		}
		corpus, qs := matrix(docs), matrix(queries)
		secs = time.Since(start).Seconds()
		hits, err := retrieval.TopK(corpus, qs, retrieval.Options{K: 100, DocIDs: ids})
		if err != nil {
			t.Fatal(err)
		}
		ndcg, recall = score(hits)
		return ndcg, recall, m.Info.String(), secs
	}

	bm := retrieval.NewBM25(retrieval.WordAnalyzer)
	for _, d := range docs {
		bm.Add(d)
	}
	bmHits, err := bm.Search(queries, retrieval.Options{K: 100, DocIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	bmNDCG, bmRecall := score(bmHits)
	tNDCG, tRecall, tInfo, tSecs := dense(teacherDir)
	sNDCG, sRecall, sInfo, sSecs := dense(staticDir)

	var b strings.Builder
	fmt.Fprintf(&b, "Cranfield (%d docs, %d judged queries), convention beir, -l 1\n", len(docs), len(queries))
	fmt.Fprintf(&b, "| model | NDCG@10 | Recall@100 | encode time (docs+queries) |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %s (%s) | %.4f | %.4f | %.1fs |\n", filepath.Base(teacherDir), tInfo, tNDCG, tRecall, tSecs)
	fmt.Fprintf(&b, "| %s (%s) | %.4f | %.4f | %.2fs |\n", filepath.Base(staticDir), sInfo, sNDCG, sRecall, sSecs)
	fmt.Fprintf(&b, "| BM25 (WordAnalyzer) | %.4f | %.4f | |\n", bmNDCG, bmRecall)
	t.Log("\n" + b.String())
	fmt.Print(b.String())

	// The static model must keep most of its teacher's quality; a broken
	// distillation (wrong pooling, PCA or ids) falls far below.
	if sNDCG < 0.5*tNDCG {
		t.Errorf("static NDCG@10 %.4f is below half the teacher's %.4f", sNDCG, tNDCG)
	}
}
