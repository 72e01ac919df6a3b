//go:build !js

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httputil"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/serve"
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
// start of a fresh load (a new browser each time: nothing cached):
// ms-lesson-table when its table and chart are shown, ms-lesson when it is
// over (its inspector shown too); and, where /proc has the browser's
// threads (Linux), the CPU seconds the page's busiest worker and all its
// workers used until then (figures a loaded machine does not inflate as
// it does the wall-clock ones). It logs the timeline of the last load:
// each status line the page showed, at ms since the load began.
//
// The page is served from the tests' site (the app and the installed
// models, no precomputed demo vectors), or, with $DREVAL_BENCH_SITE set,
// from that "dreval site" output (static and minilm by default, with
// each model's precomputed demo vectors) as a plain file host with the
// site's COOP/COEP headers, which is what a deployed site serves:
//
//	build/dreval site -out /tmp/site
//	DREVAL_BENCH_SITE=/tmp/site go test ./ui/e2e -run '^$' -bench BrowserOpeningLesson -benchtime 3x
func BenchmarkBrowserOpeningLesson(b *testing.B) {
	sharedtest.ModelDir(b, "static")
	var lesson, table, busiest, workers float64
	var timeline []string
	seen := map[string]bool{}
	host := func() http.Handler { return fileServer(b) }
	if dir := os.Getenv("DREVAL_BENCH_SITE"); dir != "" {
		host = func() http.Handler { return staticHost(dir, true) }
	}
	for b.Loop() {
		ctx, url := browser(b, 10*time.Minute, host())
		load(b, ctx, url)
		cpu := workerCPU(seen)
		for _, c := range cpu {
			workers += c
		}
		if len(cpu) > 0 {
			busiest += slices.Max(cpu)
		}
		ms, err := strconv.ParseFloat(eval[string](b, ctx, `document.body.dataset.lessonMs || ""`), 64)
		if err != nil {
			b.Fatalf("the opening lesson did not finish: %v", err)
		}
		lesson += ms
		ms, err = strconv.ParseFloat(eval[string](b, ctx, `document.body.dataset.lessonTableMs || ""`), 64)
		if err != nil {
			b.Fatalf("the opening lesson showed no table: %v", err)
		}
		table += ms
		timeline = eval[[]string](b, ctx, `self.drevalTimeline`)
		// Closed now, not when the benchmark ends: its workers would go
		// on with the background tests during the next load.
		if err := chromedp.Cancel(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("timeline of the last load (ms since it began: status), load average %s:\n%s", loadAvg(), strings.Join(timeline, "\n"))
	b.ReportMetric(table/float64(b.N), "ms-lesson-table")
	b.ReportMetric(lesson/float64(b.N), "ms-lesson")
	if busiest > 0 {
		b.ReportMetric(busiest/float64(b.N), "cpu-s-busiest-worker")
		b.ReportMetric(workers/float64(b.N), "cpu-s-workers")
	}
}

// workerCPU returns the CPU seconds (user and system) of each Web Worker
// thread (Chromium names them DedicatedWorker) of the browsers this test
// process started, leaving out the threads in seen and adding the others
// to it; nothing where /proc does not list threads.
func workerCPU(seen map[string]bool) []float64 {
	stat := func(path string) []string {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		s := string(b)
		i := strings.LastIndex(s, ")")
		if i < 0 || i+2 > len(s) {
			return nil
		}
		return strings.Fields(s[i+2:]) // from the state on: [1] ppid, [11] utime, [12] stime
	}
	me := strconv.Itoa(os.Getpid())
	ours := func(pid string) bool {
		for range 8 { // the browser, its zygote and renderers: a few levels down
			if pid == me {
				return true
			}
			f := stat("/proc/" + pid + "/stat")
			if len(f) < 2 || f[1] == "0" || f[1] == "1" {
				return false
			}
			pid = f[1]
		}
		return false
	}
	comms, _ := filepath.Glob("/proc/[0-9]*/task/[0-9]*/comm")
	var out []float64
	for _, c := range comms {
		parts := strings.Split(c, "/") // "", proc, PID, task, TID, comm
		if seen[parts[4]] {
			continue
		}
		if name, err := os.ReadFile(c); err != nil || !strings.HasPrefix(string(name), "DedicatedWorker") || !ours(parts[2]) {
			continue
		}
		f := stat(filepath.Join(filepath.Dir(c), "stat"))
		if len(f) < 13 {
			continue
		}
		u, err1 := strconv.ParseFloat(f[11], 64)
		k, err2 := strconv.ParseFloat(f[12], 64)
		if err1 != nil || err2 != nil {
			continue
		}
		seen[parts[4]] = true
		out = append(out, (u+k)/100) // clock ticks: USER_HZ is 100 on Linux
	}
	return out
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

// rawORTWebSession is a JavaScript function of the site's base URL and
// a sequence length L that times one onnxruntime-web session, as a page
// that uses onnxruntime-web alone would, with ort.wasm.min.js loaded:
// one thread, the installed MiniLM's model.onnx (served as
// bench/model.onnx: the site ships the weights, from which the page
// builds the same graph), batches of 16 x L tokens, for about 8 s (and
// at least 64 texts) after a warm-up run. It answers texts/s.
const rawORTWebSession = `async (base, L) => {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = base + "ort/";
  const model = new Uint8Array(await (await fetch(base + "bench/model.onnx")).arrayBuffer());
  const sess = await ort.InferenceSession.create(model, {executionProviders: ["wasm"]});
  const B = 16;
  const ids = new BigInt64Array(B * L), mask = new BigInt64Array(B * L).fill(1n), types = new BigInt64Array(B * L);
  for (let i = 0; i < B * L; i++) ids[i] = BigInt(i % L === 0 ? 101 : i % L === L - 1 ? 102 : 1996 + (i % L));
  const feeds = {};
  for (const n of sess.inputNames) feeds[n] = new ort.Tensor("int64", n === "input_ids" ? ids : n === "attention_mask" ? mask : types, [B, L]);
  await sess.run(feeds);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < 8000 || n < 64) { await sess.run(feeds); n += B; }
  const perSecond = n / ((performance.now() - t0) / 1000);
  await sess.release();
  return perSecond;
}`

// rawORTWeb runs rawORTWebSession in the page's main thread, at the
// length self.drevalBenchTokens.
const rawORTWeb = `(async () => {
  await new Promise((resolve, reject) => { const s = document.createElement("script"); s.src = "ort/ort.wasm.min.js"; s.onload = resolve; s.onerror = () => reject(new Error("ort/ort.wasm.min.js")); document.head.appendChild(s); });
  return await (` + rawORTWebSession + `)(new URL(".", location.href).href, self.drevalBenchTokens);
})()`

// rawORTWebWorker runs rawORTWebSession in a dedicated Web Worker of its
// own (no Go, no app): what one session does on a worker's thread, which
// the page's workers are, against the page's main thread.
const rawORTWebWorker = `(async () => {
  const base = new URL(".", location.href).href, L = self.drevalBenchTokens;
  const session = ` + "`" + rawORTWebSession + "`" + `;
  const body = "self.onmessage = async () => { try { importScripts(" + JSON.stringify(base + "ort/ort.wasm.min.js") + "); const r = await (" + session + ")(" + JSON.stringify(base) + ", " + L + "); postMessage({ok: r}); } catch (e) { postMessage({error: String(e && e.message || e)}); } };";
  const w = new Worker(URL.createObjectURL(new Blob([body], {type: "text/javascript"})));
  const ans = await new Promise((resolve) => { w.onmessage = (e) => resolve(e.data); w.postMessage(0); });
  w.terminate();
  if (ans.error) throw new Error(ans.error);
  return ans.ok;
})()`

// BenchmarkORTWebPage compares, in one headless Chromium on a site
// served with COOP/COEP (as "dreval site" asks of a host, and "dreval
// serve" does), MiniLM at 32 tokens ($DREVAL_BENCH_TOKENS others, such
// as 256, Cranfield's abstracts' length): one raw onnxruntime-web session
// (rawORTWeb: one thread, batches of 16), one of the page's workers on
// onnxruntime-web (batches of 16, like the raw session), and all the
// page's workers together (each batch of 16 per worker split between
// them as a run splits it), one after the other in each iteration.
// Reported: texts/s of each, and the page's and a worker's ratios to the
// raw session; worker-in-session-texts/s counts only the time the
// worker's session spends in its runs (the rest is Go's: feeds, copies,
// the head). A worker embeds 8,192 tokens' worth of texts (256 at 32
// tokens), each page worker as many.
//
//	go test ./ui/e2e -run '^$' -bench ORTWebPage -benchtime 1x
//	DREVAL_BENCH_TOKENS=256 go test ./ui/e2e -run '^$' -bench ORTWebPage -benchtime 1x
func BenchmarkORTWebPage(b *testing.B) {
	tokens := 32
	if v := os.Getenv("DREVAL_BENCH_TOKENS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 || n > 512 {
			b.Fatalf("DREVAL_BENCH_TOKENS=%q: want a sequence length from 2 to 512 (MiniLM's positions)", v)
		}
		tokens = n
	}
	texts := max(64, 8192/tokens/16*16)
	onnx := filepath.Join(sharedtest.ModelDir(b, "minilm"), "model.onnx")
	mux := http.NewServeMux()
	mux.Handle("/", staticHost(ortSite(b), true))
	mux.HandleFunc("/bench/model.onnx", func(w http.ResponseWriter, r *http.Request) {
		for k, v := range serve.IsolationHeaders {
			w.Header().Set(k, v)
		}
		http.ServeFile(w, r, onnx)
	})
	ctx, url := browser(b, 20*time.Minute, mux)
	load(b, ctx, url)
	workers := eval[int](b, ctx, `state.pool.size`)
	eval[bool](b, ctx, fmt.Sprintf(`(() => { self.drevalBenchTokens = %d; return true; })()`, tokens))
	var raw, rawWorker, one, inSession, all float64
	var label string
	for b.Loop() {
		r, err := chromedp.Run(ctx, chromedp.Evaluate[float64](rawORTWeb, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		raw += r
		rw, err := chromedp.Run(ctx, chromedp.Evaluate[float64](rawORTWebWorker, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		rawWorker += rw
		w, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]any](
			fmt.Sprintf(`state.pool.request({type: "bench", model: "minilm", engine: "ort-web", n: %d, tokens: %d, batch: 16}).then((a) => ({perSecond: a.perSecond, engine: a.engine, session: a.sessionSeconds}))`, texts, tokens),
			chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		one += w["perSecond"].(float64)
		if sec, ok := w["session"].(float64); ok && sec > 0 {
			inSession += float64(texts) / sec
		}
		p, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]any](
			fmt.Sprintf(`state.pool.request({type: "bench", model: "minilm", engine: "ort-web", n: %d * state.pool.size, tokens: %d, batch: 16, all: true}).then((a) => ({perSecond: a.perSecond, engine: a.engine}))`, texts, tokens),
			chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		all += p["perSecond"].(float64)
		label = p["engine"].(string)
	}
	n := float64(b.N)
	b.Logf("page: %s", label)
	b.ReportMetric(raw/n, "raw-session-texts/s")
	b.ReportMetric(rawWorker/n, "raw-session-in-a-worker-texts/s")
	b.ReportMetric(one/n, "worker-texts/s")
	b.ReportMetric(inSession/n, "worker-in-session-texts/s")
	b.ReportMetric(all/n, "page-texts/s")
	b.ReportMetric(one/raw, "worker/raw")
	b.ReportMetric(one/rawWorker, "worker/raw-in-a-worker")
	b.ReportMetric(all/raw, "page/raw")
	b.ReportMetric(float64(workers), "workers")
}

// BenchmarkORTWebDemoSite times the MiniLM demo run with the page's
// defaults (rate 10%, the form's seeds) from "dreval site"'s output on a
// plain file server with the _headers COOP/COEP, in a fresh browser each
// time (no Cache Storage): from the click on Run to the table. The site
// is written by "dreval site" from the installed models and
// onnxruntime-web (its precomputed demo vectors included), into
// $DREVAL_BENCH_SITE (made with build/dreval site -out DIR -model minilm).
//
//	build/dreval site -out /tmp/site -model minilm
//	DREVAL_BENCH_SITE=/tmp/site go test ./ui/e2e -run '^$' -bench ORTWebDemoSite -benchtime 1x
func BenchmarkORTWebDemoSite(b *testing.B) {
	dir := os.Getenv("DREVAL_BENCH_SITE")
	if dir == "" {
		b.Skip("DREVAL_BENCH_SITE is not set: write a site with build/dreval site -out DIR -model minilm")
	}
	var total, cpu float64
	cpuOK := true
	var status string
	for b.Loop() {
		ctx, url := browser(b, 10*time.Minute, staticHost(dir, true))
		load(b, ctx, url)
		eval[bool](b, ctx, `(() => { document.getElementById("model").value = "minilm"; return true; })()`)
		start := time.Now()
		cpu0, ok0 := browserCPU(ctx)
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
			b.Fatal(err)
		}
		finish(b, ctx, 1, 10*time.Minute)
		total += time.Since(start).Seconds()
		cpu1, ok1 := browserCPU(ctx)
		cpu += cpu1 - cpu0
		cpuOK = cpuOK && ok0 && ok1
		if msg := pageError(b, ctx); msg != "" {
			b.Fatalf("the page shows an error: %s", msg)
		}
		status = eval[string](b, ctx, `document.getElementById("status").textContent`)
	}
	b.Logf("status: %s", status)
	b.ReportMetric(total/float64(b.N), "s/run")
	if cpuOK {
		// The browser's CPU time over the run (all its processes): less
		// moved by the other programs on a shared machine than s/run.
		b.ReportMetric(cpu/float64(b.N), "cpu-s/run")
	}
}

// BenchmarkORTWebCranfield runs Cranfield (../shared/data) with
// MiniLM in the page on onnxruntime-web, uploaded as a BEIR folder, rate
// 10%, one seed: from the click on Run to the table.
//
//	go test ./ui/e2e -run '^$' -bench ORTWebCranfield -benchtime 1x -timeout 30m
func BenchmarkORTWebCranfield(b *testing.B) {
	benchCranfield(b, func() http.Handler { return staticHost(ortSite(b), true) })
}

// BenchmarkORTWebCranfieldServe is BenchmarkORTWebCranfield with the page
// served by a default "dreval serve" (ONNX Runtime), which encodes for
// the page: the status line names the server's engine.
//
//	go test ./ui/e2e -run '^$' -bench ORTWebCranfieldServe -benchtime 1x -timeout 30m
func BenchmarkORTWebCranfieldServe(b *testing.B) {
	sharedtest.ModelDir(b, "minilm")
	u := startServe(b)
	// Through encodeCounter's wrap (as TestServeEncodesByDefault), which
	// reads each /api/encode request whole before passing it on, and
	// counts what the server encoded.
	var count encodeCounter
	benchCranfield(b, func() http.Handler { return count.wrap(httputil.NewSingleHostReverseProxy(u)) })
	count.mu.Lock()
	defer count.mu.Unlock()
	b.Logf("/api/encode: %d requests, %d answered, %d sequences encoded on the server", count.requests, count.ok, count.sequences)
	if count.sequences == 0 {
		b.Error("the server encoded nothing")
	}
}

func benchCranfield(b *testing.B, host func() http.Handler) {
	sharedtest.ModelDir(b, "minilm")
	data := sharedtest.Path(b, "data/cranfield")
	var total float64
	var status string
	for b.Loop() {
		ctx, url := browser(b, 20*time.Minute, host())
		load(b, ctx, url)
		uploadBEIR(b, ctx, data)
		eval[bool](b, ctx, `(() => { document.getElementById("model").value = "minilm"; document.getElementById("engine").value = "auto"; document.getElementById("seeds").value = "1"; return true; })()`)
		setRate(b, ctx, 10, "input")
		start := time.Now()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
			b.Fatal(err)
		}
		finish(b, ctx, 1, 15*time.Minute)
		total += time.Since(start).Seconds()
		if msg := pageError(b, ctx); msg != "" {
			b.Fatalf("the page shows an error: %s", msg)
		}
		status = eval[string](b, ctx, `document.getElementById("status").textContent`)
	}
	b.Logf("status: %s", status)
	b.ReportMetric(total/float64(b.N), "s/run")
}

// uploadBEIR picks the BEIR folder dir (corpus.jsonl, queries.jsonl,
// qrels/test.tsv) in the page's file input.
func uploadBEIR(t testing.TB, ctx context.Context, dir string) {
	t.Helper()
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`input[name=data][value=beir]`)),
		chromedp.SetUploadFiles(chromedp.ID("beir-pick"), []string{
			filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "queries.jsonl"), filepath.Join(dir, "qrels", "test.tsv")}),
	); err != nil {
		t.Fatal(err)
	}
}
