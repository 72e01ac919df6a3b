//go:build !js

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dreval/dreval/internal/sharedtest"
)

// The browser figures, measured in headless Chromium against the plain
// file server on 127.0.0.1:
//
//	go test ./ui/e2e -run '^$' -bench Browser -benchtime 3x

// BenchmarkBrowserPageLoad reports how long a fresh load of the page
// takes until the form is usable (DOMContentLoaded) and until every
// worker has compiled its wasm instance and is ready.
func BenchmarkBrowserPageLoad(b *testing.B) {
	ctx, url := browser(b, 10*time.Minute, fileServer(b))
	var dom, ready float64
	for b.Loop() {
		load(b, ctx, url)
		dom += eval[float64](b, ctx, `performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd`)
		ready += eval[float64](b, ctx, `Number(document.body.dataset.readyMs)`)
	}
	b.ReportMetric(dom/float64(b.N), "ms-interactive")
	b.ReportMetric(ready/float64(b.N), "ms-workers-ready")
	b.ReportMetric(float64(eval[int](b, ctx, `state.pool.size`)), "workers")
}

// BenchmarkBrowserOpeningLesson reports when the opening lesson (the
// static model's sweep, 7 rates, 5 seeds) is on screen, in ms from the
// start of a fresh load (a new browser each time: nothing cached).
func BenchmarkBrowserOpeningLesson(b *testing.B) {
	sharedtest.ModelDir(b, "static")
	var lesson float64
	for b.Loop() {
		ctx, url := browser(b, 10*time.Minute, fileServer(b))
		load(b, ctx, url)
		ms, err := strconv.ParseFloat(eval[string](b, ctx, `document.body.dataset.lessonMs || ""`), 64)
		if err != nil {
			b.Fatalf("the opening lesson did not finish: %v", err)
		}
		lesson += ms
	}
	b.ReportMetric(lesson/float64(b.N), "ms-lesson")
}

// BenchmarkBrowserMiniLMQueryEncoding reports the sentences per second
// one worker embeds with MiniLM at 32 tokens (batches of 32).
func BenchmarkBrowserMiniLMQueryEncoding(b *testing.B) {
	sharedtest.ModelDir(b, "minilm")
	ctx, url := browser(b, 10*time.Minute, fileServer(b))
	load(b, ctx, url)
	var rate float64
	for b.Loop() {
		ans, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](
			`state.pool.request({type: "bench", model: "minilm", n: 32, tokens: 32}).then((a) => ({perSecond: a.perSecond, seconds: a.seconds}))`,
			chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		rate += ans["perSecond"]
	}
	b.ReportMetric(rate/float64(b.N), "sentences/s/worker")
}

// BenchmarkBrowserMiniLMAllWorkers reports the sentences per second the
// page's workers embed together with MiniLM at 32 tokens, each batch split
// between them as a run splits it; with the per-worker figure above it
// shows how encoding scales with workers (one per core, up to 8).
func BenchmarkBrowserMiniLMAllWorkers(b *testing.B) {
	sharedtest.ModelDir(b, "minilm")
	ctx, url := browser(b, 10*time.Minute, fileServer(b))
	load(b, ctx, url)
	var rate, workers float64
	for b.Loop() {
		ans, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](
			`state.pool.request({type: "bench", model: "minilm", n: 32 * state.pool.size, tokens: 32, all: true}).then((a) => ({perSecond: a.perSecond, workers: a.workers}))`,
			chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		rate += ans["perSecond"]
		workers = ans["workers"]
	}
	b.ReportMetric(rate/float64(b.N), "sentences/s")
	b.ReportMetric(workers, "workers")
}

// BenchmarkBrowserSliderRefresh reports how long moving the rate slider
// takes to refresh the demo's table (the page's own measure: from the
// change event to the new table in the page), with the static model when
// it is installed, else BM25. Each iteration moves to a rate not run
// before, so every refresh is a new run (the corpus vectors are kept).
func BenchmarkBrowserSliderRefresh(b *testing.B) {
	model := "bm25"
	if _, err := os.Stat(filepath.Join(sharedtest.ModelsDir(), "static", "config.json")); err == nil {
		model = "static"
	} else {
		sharedtest.ModelDir(b, "minilm")
	}
	ctx, url := browser(b, 10*time.Minute, fileServer(b))
	load(b, ctx, url)
	eval[bool](b, ctx, fmt.Sprintf(`(() => { document.getElementById("model").value = %q; return true; })()`, model))
	setRate(b, ctx, 10, "input")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		b.Fatal(err)
	}
	finish(b, ctx, 1, 5*time.Minute)
	var total, inRun float64
	pct, done := 11, 1
	for b.Loop() {
		setRate(b, ctx, pct, "change")
		done++
		finish(b, ctx, done, 5*time.Minute)
		if msg := pageError(b, ctx); msg != "" {
			b.Fatal(msg)
		}
		ms, err := strconv.ParseFloat(eval[string](b, ctx, `document.getElementById("timing").dataset.ms`), 64)
		if err != nil {
			b.Fatal(err)
		}
		total += ms
		run, _ := strconv.ParseFloat(eval[string](b, ctx, `document.getElementById("timing").dataset.runMs`), 64)
		inRun += run
		pct = 11 + (pct-10)%39
	}
	b.ReportMetric(total/float64(b.N), "ms/refresh")
	b.ReportMetric(inRun/float64(b.N), "ms-experiment.Run/refresh")
	b.Logf("model %s", model)
}

// BenchmarkBrowserSliderAfterSweep reports how long moving the slider
// takes after "Compare rates" ran the sweep (0, 5, 10, 20, 30, 40, 50%):
// the worker re-renders the table of a rate it already ran.
func BenchmarkBrowserSliderAfterSweep(b *testing.B) {
	model := "bm25"
	if _, err := os.Stat(filepath.Join(sharedtest.ModelsDir(), "static", "config.json")); err == nil {
		model = "static"
	} else {
		sharedtest.ModelDir(b, "minilm")
	}
	ctx, url := browser(b, 10*time.Minute, fileServer(b))
	load(b, ctx, url)
	eval[bool](b, ctx, fmt.Sprintf(`(() => { document.getElementById("model").value = %q; return true; })()`, model))
	setRate(b, ctx, 10, "input")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("sweep"))); err != nil {
		b.Fatal(err)
	}
	finish(b, ctx, 1, 5*time.Minute)
	if n := eval[int](b, ctx, `document.querySelectorAll("#chart circle.point").length`); n != 7 {
		b.Fatalf("the sweep's chart has %d points, want 7", n)
	}
	rates := []int{5, 20, 30, 40, 50, 10}
	var total float64
	done := 1
	for i := 0; b.Loop(); i++ {
		setRate(b, ctx, rates[i%len(rates)], "change")
		done++
		finish(b, ctx, done, time.Minute)
		if msg := pageError(b, ctx); msg != "" {
			b.Fatal(msg)
		}
		ms, err := strconv.ParseFloat(eval[string](b, ctx, `document.getElementById("timing").dataset.ms`), 64)
		if err != nil {
			b.Fatal(err)
		}
		total += ms
	}
	b.ReportMetric(total/float64(b.N), "ms/refresh")
	b.Logf("model %s", model)
}
