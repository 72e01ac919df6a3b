//go:build !js

package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dreval/dreval/retrieval"
)

// writeVectors writes a small embedding collection into dir: corpus.npy
// (docs x dim) and corpus.ids, queries.npy and queries.ids, and qrels in
// TREC format. Each query is a noisy copy of a few documents, which it
// judges relevant, so the metrics are neither 0 nor 1.
func writeVectors(t testing.TB, dir string) {
	t.Helper()
	const docs, queries, dim = 300, 40, 24
	rng := rand.New(rand.NewPCG(7, 11))
	corpus := retrieval.NewMatrix(docs, dim)
	for i := range corpus.Data {
		corpus.Data[i] = float32(rng.NormFloat64())
	}
	qm := retrieval.NewMatrix(queries, dim)
	var qrels, cids, qids strings.Builder
	for d := 0; d < docs; d++ {
		fmt.Fprintf(&cids, "doc-%03d\n", d)
	}
	for q := 0; q < queries; q++ {
		fmt.Fprintf(&qids, "q%d\n", q)
		for j, d := range rng.Perm(docs)[:3] {
			for c, x := range corpus.Row(d) {
				qm.Row(q)[c] += x
			}
			fmt.Fprintf(&qrels, "q%d 0 doc-%03d %d\n", q, d, 1+j%2)
		}
		for c := range qm.Row(q) {
			qm.Row(q)[c] += float32(2.5 * rng.NormFloat64())
		}
	}
	for name, text := range map[string]string{"corpus.ids": cids.String(), "queries.ids": qids.String(), "test.qrels": qrels.String(),
		"broken.npy": "\x93NUMPY\x01\x00this is not a header"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := retrieval.WriteNPYFile(filepath.Join(dir, "corpus.npy"), corpus, retrieval.Float32); err != nil {
		t.Fatal(err)
	}
	if err := retrieval.WriteNPYFile(filepath.Join(dir, "queries.npy"), qm, retrieval.Float32); err != nil {
		t.Fatal(err)
	}
}

// TestVectorsUpload uploads precomputed embeddings: the page's metrics
// equal those of "dreval search" followed by "dreval metrics", and a
// malformed .npy gets an inline error naming it.
func TestVectorsUpload(t *testing.T) {
	chromiumPath(t)
	dir := t.TempDir()
	writeVectors(t, dir)
	p := func(name string) string { return filepath.Join(dir, name) }

	// Native: the dreval command's search, then its metrics.
	bin := buildDreval(t)
	search := exec.Command(bin, "search", "-corpus", p("corpus.npy"), "-corpus-ids", p("corpus.ids"),
		"-queries", p("queries.npy"), "-query-ids", p("queries.ids"), "-out", p("native.run"))
	if out, err := search.CombinedOutput(); err != nil {
		t.Fatalf("dreval search: %v\n%s", err, out)
	}
	want := nativeMetrics(t, p("test.qrels"), p("native.run"))

	ctx, url := browser(t, 5*time.Minute, fileServer(t))
	load(t, ctx, url)
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`input[name=data][value=vectors]`)),
		chromedp.SetUploadFiles(chromedp.ID("vec-corpus"), []string{p("corpus.npy")}),
		chromedp.SetUploadFiles(chromedp.ID("vec-corpus-ids"), []string{p("corpus.ids")}),
		chromedp.SetUploadFiles(chromedp.ID("vec-queries"), []string{p("queries.npy")}),
		chromedp.SetUploadFiles(chromedp.ID("vec-query-ids"), []string{p("queries.ids")}),
		chromedp.SetUploadFiles(chromedp.ID("vec-qrels"), []string{p("test.qrels")}),
		chromedp.Click(chromedp.ID("run")),
	); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, time.Minute)
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the page shows an error: %s", msg)
	}
	got := eval[string](t, ctx, `document.querySelector("#metrics pre.trec-text").textContent`)
	if got != want {
		t.Errorf("the page's metrics differ from dreval search + dreval metrics:\npage:\n%s\nnative:\n%s", got, want)
	}
	if !strings.Contains(want, "num_q                 \tall\t40\n") || !strings.Contains(want, "\nmap ") {
		t.Errorf("the native metrics do not cover the 40 queries with map:\n%s", want)
	}
	if note := eval[string](t, ctx, `document.getElementById("vec-note").textContent`); !strings.Contains(note, "No perturbation is possible") {
		t.Errorf("the page does not say that no perturbation is possible: %q", note)
	}
	if eval[bool](t, ctx, `!document.getElementById("perturb-set").disabled`) {
		t.Error("the perturbation controls are enabled for precomputed embeddings")
	}
	screenshot(t, ctx, "vectors-upload.png")
	before := eval[string](t, ctx, `document.querySelector("#metrics table.measures").textContent`)

	// A malformed corpus .npy: an inline error names it; the results stay.
	if err := chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.ID("vec-corpus"), []string{p("broken.npy")}),
		chromedp.Click(chromedp.ID("run")),
	); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 2, time.Minute)
	if msg := pageError(t, ctx); !strings.Contains(msg, "broken.npy") {
		t.Errorf("the error %q does not name broken.npy", msg)
	} else {
		t.Logf("malformed .npy: %s", msg)
	}
	if after := eval[string](t, ctx, `document.querySelector("#metrics table.measures").textContent`); after != before {
		t.Error("the earlier results changed after the failed upload")
	}
}
