//go:build !js

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/report"
)

// pageTable is one table of the page's reproduction: its data-name and
// the text of its body cells.
type pageTable struct {
	Name string     `json:"name"`
	Rows [][]string `json:"rows"`
}

const readReproduction = `[...document.querySelectorAll("#reproduction-output table[data-name]")].map((t) => ({
  name: t.dataset.name,
  rows: [...t.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent))}))`

// TestReproduceMatchesNative runs "Reproduce the study" on the demo with
// static and bm25 and 2 seeds, served by a plain file server (static
// encodes in the workers) and by "dreval serve" (static encodes through
// its /api/encode), and checks the page's tables, cell by cell, its
// findings and the Markdown it offers for download against package
// report's rendering of the same protocol run natively.
func TestReproduceMatchesNative(t *testing.T) {
	// bm25 perturbs through minilm's tokenizer. Both models are installed
	// by "make setup"; without them the test is skipped, and under CI=true
	// it fails (a plain skip here let CI pass without running it).
	sharedtest.ModelDir(t, "minilm")
	sharedtest.ModelDir(t, "static")
	t.Run("fileserver", func(t *testing.T) { testReproduce(t, fileServer(t)) })
	t.Run("serve", func(t *testing.T) {
		te := staticEncoder(t)
		var count encodeCounter
		h := encodingServer(t, testEncoder{TextEncoder: te, engine: te.Engine()}, &count)
		testReproduce(t, h)
		count.mu.Lock()
		defer count.mu.Unlock()
		t.Logf("/api/encode: %d requests, %d sequences encoded on the server", count.requests, count.sequences)
		if count.sequences == 0 {
			t.Error("static encoded nothing through the server's /api/encode")
		}
	})
}

func testReproduce(t *testing.T, h http.Handler) {
	const seeds = 2
	models := []string{"static", "bm25"}
	ctx, url := browser(t, 10*time.Minute, h)
	load(t, ctx, url)
	checked := eval[[]string](t, ctx, `[...document.querySelectorAll("input[name=reproduce-model]:checked")].map((e) => e.value)`)
	if strings.Join(checked, ",") != strings.Join(models, ",") {
		t.Errorf("the models checked by default are %v, want %v", checked, models)
	}
	if s := eval[string](t, ctx, `document.getElementById("reproduce-seeds").value`); s != "5" {
		t.Errorf("the seeds default to %s, want the protocol's 5", s)
	}
	eval[bool](t, ctx, `(() => { document.getElementById("reproduce-seeds").value = "2"; return true; })()`)
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("reproduce-run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, 8*time.Minute)
	t.Logf("reproduce on the demo with %v, %d seeds: %v in the browser (shared machine)", models, seeds, time.Since(start))
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the page shows an error: %s", msg)
	}
	md := eval[string](t, ctx, `reproduction.markdown`)
	tables := eval[[]pageTable](t, ctx, readReproduction)

	// The protocol run natively, as "dreval reproduce -engine go" runs it,
	// at the version the page reports.
	cfg := experiment.Study()
	cfg.Data = []string{"demo"}
	cfg.Models = models
	cfg.Seeds = seeds
	cfg.Registry = experiment.DefaultRegistry()
	cfg.ModelOptions = experiment.ModelOptions{Engine: "go", ModelsDir: sharedtest.ModelsDir()}
	cfg.Version = pageVersion(t, md)
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	if err := report.Reproduction(&want, res, report.ReproductionOptions{DropRates: experiment.StudyDropRates()}); err != nil {
		t.Fatal(err)
	}
	if got := withoutRunLines(md); got != want.String() {
		t.Errorf("the page's reproduction.md differs from the native one:\n%s", firstDiff(got, want.String()))
	}
	for _, line := range []string{"Command: `dreval reproduce -engine go -data demo -models static,bm25 -seeds 2`", "Machine: the browser app"} {
		if !strings.Contains(md, line) {
			t.Errorf("the page's reproduction.md lacks %q", line)
		}
	}

	wantTables := report.ReproductionTables(res, experiment.StudyDropRates())
	if len(tables) != len(wantTables) {
		t.Fatalf("the page shows %d tables, want %d", len(tables), len(wantTables))
	}
	cells := 0
	for i, pt := range tables {
		wt := wantTables[i]
		if pt.Name != wt.Name || len(pt.Rows) != len(wt.Rows) {
			t.Errorf("table %d: %s with %d rows, want %s with %d", i, pt.Name, len(pt.Rows), wt.Name, len(wt.Rows))
			continue
		}
		for r, row := range pt.Rows {
			if len(row) != len(wt.Rows[r]) {
				t.Errorf("table %s row %d: %d cells, want %d", wt.Name, r, len(row), len(wt.Rows[r]))
				continue
			}
			for c, text := range row {
				if w := wt.Rows[r][c].String(); text != w {
					t.Errorf("table %s row %d cell %d: page %q, native %q", wt.Name, r, c, text, w)
				}
				cells++
			}
		}
	}
	t.Logf("%d tables, %d cells equal to the native ones", len(tables), cells)
	findings := eval[[]string](t, ctx, `[...document.querySelectorAll("#reproduction-output ul.findings li")].map((li) => li.textContent)`)
	if strings.Join(findings, "\n") != strings.Join(report.Findings(res), "\n") {
		t.Errorf("the page's findings:\n%s\nnative:\n%s", strings.Join(findings, "\n"), strings.Join(report.Findings(res), "\n"))
	}
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("reproduction")))
	if err != nil {
		t.Fatal(err)
	}
	name := strings.ReplaceAll(t.Name(), "/", "-")
	savePNG(t, name+"-section.png", png)
	screenshot(t, ctx, name+"-page.png")
}

// TestReproduceCancel cancels a reproduction with minilm (minutes in
// wasm) once it encodes: the page says so, shows no reproduction, and
// the restarted workers take the next job.
func TestReproduceCancel(t *testing.T) {
	sharedtest.ModelDir(t, "minilm")
	ctx, url := browser(t, 5*time.Minute, fileServer(t))
	load(t, ctx, url)
	eval[bool](t, ctx, `(() => { for (const b of document.querySelectorAll("input[name=reproduce-model]")) b.checked = b.value === "minilm"; return true; })()`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("reproduce-run"))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.getElementById("status").textContent.startsWith("encode corpus")`, 2*time.Minute)
	if !eval[bool](t, ctx, `document.getElementById("reproduce-run").disabled`) {
		t.Error("the reproduce button is enabled while a reproduction runs")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("cancel"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, time.Minute)
	if s := eval[string](t, ctx, `document.getElementById("status").textContent`); !strings.HasPrefix(s, "Cancelled") {
		t.Errorf("status after cancelling: %q", s)
	}
	if !eval[bool](t, ctx, `document.getElementById("reproduction").hidden`) {
		t.Error("a cancelled reproduction shows results")
	}
	// The restarted workers reproduce with bm25 alone, one seed.
	waitJS(t, ctx, `document.body.dataset.ready === "true"`, time.Minute)
	eval[bool](t, ctx, `(() => { for (const b of document.querySelectorAll("input[name=reproduce-model]")) b.checked = b.value === "bm25"; document.getElementById("reproduce-seeds").value = "1"; return true; })()`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("reproduce-run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 2, 3*time.Minute)
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the reproduction after cancelling failed: %s", msg)
	}
	if md := eval[string](t, ctx, `reproduction.markdown`); !strings.Contains(md, "Note: 1 seeds, fewer than the protocol's 5.") {
		t.Errorf("the one-seed reproduction does not say it has fewer seeds than the protocol:\n%s", md)
	}
}

// pageVersion returns the dreval version of the reproduction's protocol
// line ("dreval VERSION; datasets: ...").
func pageVersion(t testing.TB, md string) string {
	t.Helper()
	for _, line := range strings.Split(md, "\n") {
		if v, ok := strings.CutPrefix(line, "dreval "); ok {
			if i := strings.Index(v, "; datasets: "); i >= 0 {
				return v[:i]
			}
		}
	}
	t.Fatalf("the page's reproduction.md has no protocol line:\n%s", md)
	return ""
}

// withoutRunLines drops the Command and Machine lines, which say where
// the numbers were made.
func withoutRunLines(md string) string {
	var keep []string
	for _, line := range strings.SplitAfter(md, "\n") {
		if !strings.HasPrefix(line, "Command: ") && !strings.HasPrefix(line, "Machine: ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\npage:   %s\nnative: %s", i+1, x, y)
		}
	}
	return "(same lines)"
}
