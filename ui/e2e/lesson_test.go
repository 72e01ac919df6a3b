//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/modelfiles"
)

// The page as a teacher opens it (issue 16): the opening lesson, the
// layout at 1280x800 and 800 px, and the defects found by trying it.

// lessonRates are the opening sweep's rates (app.js's sweepJob at the
// default rate of 10%).
var lessonRates = []float64{0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5}

// notFound records the paths its handler answered 404.
type notFound struct {
	h     http.Handler
	mu    sync.Mutex
	paths []string
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

func (n *notFound) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
	n.h.ServeHTTP(sw, r)
	if sw.code == http.StatusNotFound {
		n.mu.Lock()
		n.paths = append(n.paths, r.URL.Path)
		n.mu.Unlock()
	}
}

func (n *notFound) list() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.paths)
}

// viewport sets the page's viewport.
func viewport(t testing.TB, ctx context.Context, w, h int64) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h)); err != nil {
		t.Fatal(err)
	}
}

// noHorizontalScroll fails t when the document is wider than the
// viewport, naming the widest elements.
func noHorizontalScroll(t testing.TB, ctx context.Context, what string) {
	t.Helper()
	type width struct {
		Doc  int    `json:"doc"`
		View int    `json:"view"`
		Wide string `json:"wide"`
	}
	w := eval[width](t, ctx, `(() => {
		const view = document.documentElement.clientWidth, wide = [];
		for (const e of document.querySelectorAll("body *")) {
			const r = e.getBoundingClientRect();
			if (r.width > 0 && r.right > view + 1) wide.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className : "") + " " + Math.round(r.right));
		}
		return {doc: document.documentElement.scrollWidth, view, wide: wide.slice(0, 5).join(", ")};
	})()`)
	if w.Doc > w.View {
		t.Errorf("%s: the document is %d px wide in a %d px viewport (horizontal scrolling); past the edge: %s", what, w.Doc, w.View, w.Wide)
	}
}

// inViewport reports whether the element of selector is shown and its
// top lies within the viewport.
func inViewport(t testing.TB, ctx context.Context, selector string) bool {
	t.Helper()
	return eval[bool](t, ctx, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; const r = e.getBoundingClientRect();
		return r.height > 0 && r.top >= 0 && r.top < window.innerHeight; })()`, selector))
}

// staticSweep is the native run of the opening lesson: "dreval eval
// -engine go -data demo -models static -rates 0,...,0.5 -seeds 5".
func staticSweep(t testing.TB) *experiment.Config {
	t.Helper()
	sharedtest.ModelDir(t, "static")
	return &experiment.Config{
		Data:         []string{"demo"},
		Models:       []string{"static"},
		Registry:     experiment.DefaultRegistry(),
		ModelOptions: experiment.ModelOptions{Engine: "go", ModelsDir: sharedtest.ModelsDir()},
		Rates:        lessonRates,
		Seeds:        5,
		FirstSeed:    1,
	}
}

// TestOpeningLesson: on load the page runs the static model's sweep with
// 5 seeds and shows its chart and table, the CLI's numbers, with no
// request answered 404; after Run the results are in view at 1280x800;
// at 800 px nothing scrolls sideways; screenshots at both widths.
func TestOpeningLesson(t *testing.T) {
	cfg := staticSweep(t)
	nf := &notFound{h: fileServer(t)}
	ctx, url := browser(t, 10*time.Minute, nf)
	viewport(t, ctx, 1280, 800)
	load(t, ctx, url)
	if got := eval[string](t, ctx, `document.body.dataset.lesson`); got != "done" {
		t.Fatalf("the opening lesson: %q, want done", got)
	}
	t.Logf("the opening sweep was on screen %s ms after the page's load began (shared machine, load %s)", eval[string](t, ctx, `document.body.dataset.lessonMs`), loadAvg())
	if eval[bool](t, ctx, `document.getElementById("results").hidden`) {
		t.Fatal("the opening lesson shows no results")
	}
	if got := eval[string](t, ctx, `document.getElementById("seeds").value`); got != "5" {
		t.Errorf("seeds default to %s, want 5", got)
	}
	if got := eval[string](t, ctx, `document.querySelector("#table .results-table").dataset.model`); got != "static" {
		t.Errorf("the opening table is of %q, want static", got)
	}
	for _, sel := range []string{"#lesson", "dl.legend"} {
		if !eval[bool](t, ctx, fmt.Sprintf(`!!document.querySelector(%q) && document.querySelector(%q).textContent.length > 40`, sel, sel)) {
			t.Errorf("the page lacks its explanation %s", sel)
		}
	}
	if !eval[bool](t, ctx, `document.getElementById("lesson").textContent.includes("idshift")`) {
		t.Error("the lesson does not say what idshift does")
	}
	// Every measure family of the table has its sentence in the legend.
	legend := eval[[]string](t, ctx, `[...document.querySelectorAll("dl.legend dt")].map((e) => e.textContent.replace("@k", ""))`)
	for _, m := range eval[[]string](t, ctx, `[...document.querySelectorAll("#table tbody tr")].map((tr) => tr.dataset.measure.split("@")[0])`) {
		if !slices.Contains(legend, m) {
			t.Errorf("measure %s of the table has no sentence in the legend %v", m, legend)
		}
	}

	res, err := experiment.Run(context.Background(), *cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, eval[[]cell](t, ctx, readTable), res, 0.1, false)
	type point struct {
		Model   string `json:"model"`
		Rate    string `json:"rate"`
		Mean    string `json:"mean"`
		Changed string `json:"changed"`
	}
	pts := eval[[]point](t, ctx, `[...document.querySelectorAll("#chart circle.point")].map((c) => ({model: c.dataset.model, rate: c.dataset.rate, mean: c.dataset.mean, changed: c.dataset.changed}))`)
	if len(pts) != len(lessonRates) {
		t.Fatalf("the opening chart has %d points, want %d", len(pts), len(lessonRates))
	}
	mr := res.Datasets[0].Models[0]
	want := []float64{mr.Clean.Means[metrics.ConventionST]["ndcg@10"]}
	changed := []float64{0}
	for _, rs := range mr.Rates {
		want = append(want, rs.Stats[metrics.ConventionST]["ndcg@10"].Mean)
		changed = append(changed, rs.ChangedFraction.Mean)
	}
	for i, p := range pts {
		if p.Rate != strconv.FormatFloat(lessonRates[i], 'g', -1, 64) || p.Mean != fmt.Sprintf("%.4f", want[i]) {
			t.Errorf("point %d: rate %s ndcg@10 %s, native rate %v %.4f", i, p.Rate, p.Mean, lessonRates[i], want[i])
		}
		// The realised fraction of changed tokens, charted beside the rate asked.
		if p.Changed != fmt.Sprintf("%.4f", changed[i]) {
			t.Errorf("point %d: %s of the tokens changed, native %.4f", i, p.Changed, changed[i])
		}
	}
	if got := eval[int](t, ctx, `document.querySelectorAll("#chart text.changed").length`); got < 4 {
		t.Errorf("the chart's row of tokens changed has %d labels, want one per rate (but those too close)", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#chart line.mark").length`); n == 0 {
		t.Error("the chart does not mark the selected rate")
	}
	screenshot(t, ctx, "lesson-1280.png")

	// Run at a new rate: status and results in view without scrolling.
	setRate(t, ctx, 15, "input")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, 5*time.Minute)
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the run shows an error: %s", msg)
	}
	for _, sel := range []string{"#status", "#table table.results"} {
		if !inViewport(t, ctx, sel) {
			t.Errorf("at 1280x800 after Run, %s is not in the viewport", sel)
		}
	}
	if got := eval[string](t, ctx, `document.querySelector("#table .results-table").dataset.rate`); got != "0.15" {
		t.Errorf("the table after Run is of rate %q, want 15%%", got)
	}
	noHorizontalScroll(t, ctx, "1280 px")
	screenshot(t, ctx, "run-1280.png")

	// 800 px: one column, nothing wider than the viewport, the CI on one
	// line, the inspector's token columns readable.
	viewport(t, ctx, 800, 900)
	eval[bool](t, ctx, `(() => { document.getElementById("inspector-box").open = true; return true; })()`)
	noHorizontalScroll(t, ctx, "800 px, inspector open")
	if lines := eval[float64](t, ctx, `(() => { const c = document.querySelector("#table td[data-field=ci]"); return c.getBoundingClientRect().height / parseFloat(getComputedStyle(c).lineHeight); })()`); lines > 1.9 {
		t.Errorf("at 800 px a CI takes %.1f lines, want one", lines)
	}
	if w := eval[float64](t, ctx, `document.querySelector("#inspector td.tokens").getBoundingClientRect().width`); w < 150 {
		t.Errorf("at 800 px the inspector's token column is %.0f px wide (a word a line)", w)
	}
	screenshot(t, ctx, "run-800.png")
	// api/encode answers 404 on a plain file server: that is how the
	// page learns it is not "dreval serve" (browser/server.go's probe). So
	// do the optional assets this site lacks, whose absence the page
	// says in words: onnxruntime-web (ort/index.json, loader.js) and the
	// demo's precomputed vectors (data/demo/MODEL.json, browser/demo.go).
	nfs := slices.DeleteFunc(nf.list(), func(p string) bool {
		return p == "/api/encode" || p == "/ort/index.json" || strings.HasPrefix(p, "/data/demo/") && strings.HasSuffix(p, ".json")
	})
	if len(nfs) > 0 {
		t.Errorf("the page asked for files the server does not have (404): %v", nfs)
	}
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// TestDefects: each defect a teacher hit, in one session after the
// opening lesson.
func TestDefects(t *testing.T) {
	sharedtest.ModelDir(t, "static")
	sharedtest.ModelDir(t, "minilm") // BM25 perturbs through minilm's tokenizer
	ctx, url := browser(t, 10*time.Minute, fileServer(t))
	viewport(t, ctx, 1280, 800)
	load(t, ctx, url)
	runs := 0
	click := func(id string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID(id))); err != nil {
			t.Fatal(err)
		}
		runs++
		finish(t, ctx, runs, 5*time.Minute)
	}
	shown := func(id string) bool {
		return !eval[bool](t, ctx, fmt.Sprintf(`document.getElementById(%q).hidden`, id))
	}

	// The two seed fields have names of their own.
	labels := eval[[]string](t, ctx, `["seeds", "reproduce-seeds"].map((id) => document.getElementById(id).labels[0].textContent.trim())`)
	if labels[0] == labels[1] {
		t.Errorf("both seed fields are named %q", labels[0])
	}

	// Focus stays on a control when Run disables itself: on Cancel while
	// the run goes, back on Run after.
	eval[bool](t, ctx, `(() => { window.focusLog = []; new MutationObserver(() => focusLog.push(document.body.dataset.busy + ":" + (document.activeElement.id || document.activeElement.tagName)))
		.observe(document.body, {attributes: true, attributeFilter: ["data-busy"]}); return true; })()`)
	setRate(t, ctx, 12, "input")
	eval[bool](t, ctx, `(() => { document.getElementById("run").focus(); return true; })()`)
	press(t, ctx, kb.Enter)
	runs++
	finish(t, ctx, runs, 5*time.Minute)
	if got := eval[[]string](t, ctx, `focusLog`); !slices.Equal(got, []string{"true:cancel", "false:run"}) {
		t.Errorf("focus while running and after: %v, want [true:cancel false:run]", got)
	}
	if !strings.HasPrefix(eval[string](t, ctx, `document.getElementById("timing").textContent`), "Updated in") {
		t.Fatal("a run does not say how long it took")
	}

	// The seed fields' max holds: 50 seeds is refused, the run does not
	// start, and the results of other settings leave the screen.
	eval[bool](t, ctx, `(() => { document.getElementById("seeds").value = "50"; return true; })()`)
	click("run")
	if msg := pageError(t, ctx); !strings.Contains(msg, "from 1 to 20") {
		t.Errorf("50 seeds: the error is %q, want it to say from 1 to 20", msg)
	}
	if shown("results") {
		t.Error("after a failed run the previous results stay under the error")
	}
	if s := eval[string](t, ctx, `document.getElementById("timing").textContent`); s != "" {
		t.Errorf("after a failed run the timing still says %q", s)
	}
	eval[bool](t, ctx, `(() => { document.getElementById("seeds").value = "5"; return true; })()`)
	setRate(t, ctx, 0, "input")
	click("run")
	if pageError(t, ctx) == "" || shown("results") {
		t.Error("a run at 0% shows no error, or the previous results stay under it")
	}
	setRate(t, ctx, 10, "input")
	click("run")
	if msg := pageError(t, ctx); msg != "" || !shown("results") {
		t.Fatalf("the run after the errors: error %q, results shown %v", msg, shown("results"))
	}

	// Another model run with the same settings joins the lesson's chart.
	eval[bool](t, ctx, `(() => { document.getElementById("model").value = "bm25"; return true; })()`)
	click("run")
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the BM25 run shows an error: %s", msg)
	}
	if got := eval[[]string](t, ctx, `[...document.querySelectorAll("#chart polyline.series")].map((p) => p.dataset.model)`); !slices.Equal(got, []string{"bm25", "static"}) {
		t.Errorf("the chart after a BM25 run has the series %q, want bm25 (selected) and static", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#chart circle.point[data-model="static"]').length`); n != len(lessonRates)+1 {
		t.Errorf("the static series has %d points after the BM25 run, want the lesson's %d and 12%%", n, len(lessonRates))
	}

	// Reproduce (BM25, one seed): its own timing, the stale results gone,
	// the reproduction in view, "1 seed", no table wider than the page.
	eval[bool](t, ctx, `(() => { for (const b of document.querySelectorAll("input[name=reproduce-model]")) b.checked = b.value === "bm25"; document.getElementById("reproduce-seeds").value = "1"; return true; })()`)
	click("reproduce-run")
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the reproduction shows an error: %s", msg)
	}
	if s := eval[string](t, ctx, `document.getElementById("timing").textContent`); strings.HasPrefix(s, "Updated in") {
		t.Errorf("after Reproduce the timing is the previous run's: %q", s)
	}
	if shown("results") || !shown("reproduction") {
		t.Errorf("after Reproduce: results shown %v, reproduction shown %v; want only the reproduction", shown("results"), shown("reproduction"))
	}
	if !inViewport(t, ctx, "#reproduction h2") {
		t.Error("at 1280x800 the reproduction is not in the viewport")
	}
	status := eval[string](t, ctx, `document.getElementById("status").textContent`)
	if strings.Contains(status, "seed(s)") || !strings.Contains(status, "1 seed,") {
		t.Errorf("status after a one-seed reproduction: %q", status)
	}
	if txt := eval[string](t, ctx, `document.getElementById("reproduction-output").textContent`); strings.Contains(txt, "over 1 datasets") || !strings.Contains(txt, "NDCG@10, on demo)") {
		t.Error("the one-dataset reproduction's findings say \"mean over 1 datasets\", not \"on demo\"")
	}
	// Numbers right-aligned in every row of the reproduction's tables.
	if bad := eval[[]string](t, ctx, `[...document.querySelectorAll("#reproduction-output td.n")].filter((td) => getComputedStyle(td).textAlign !== "right").map((td) => td.textContent).slice(0, 5)`); len(bad) > 0 {
		t.Errorf("number cells of the reproduction not right-aligned: %q", bad)
	}
	noHorizontalScroll(t, ctx, "reproduction at 1280 px")
	screenshot(t, ctx, "reproduction-1280.png")
	viewport(t, ctx, 800, 900)
	noHorizontalScroll(t, ctx, "reproduction at 800 px")
	screenshot(t, ctx, "reproduction-800.png")
}

// TestCancelFirstRun: cancelling the opening sweep, before any run has
// finished, does not speak of results on screen.
func TestCancelFirstRun(t *testing.T) {
	sharedtest.ModelDir(t, "static")
	ctx, url := browser(t, 5*time.Minute, fileServer(t))
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.body.dataset.busy === "true" || (document.body.dataset.lesson || "") !== ""`, time.Minute)
	if eval[string](t, ctx, `document.body.dataset.lesson || ""`) != "" {
		t.Fatal("the opening sweep ended before it could be cancelled")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("cancel"))); err != nil {
		t.Fatal(err)
	}
	s := eval[string](t, ctx, `document.getElementById("status").textContent`)
	if !strings.HasPrefix(s, "Cancelled") || strings.Contains(s, "results on screen") || !strings.Contains(s, "no run has finished") {
		t.Errorf("status after cancelling the first run: %q", s)
	}
	waitJS(t, ctx, `document.body.dataset.ready === "true"`, time.Minute)
}

// axePath is the axe-core script scripts/setup-axe.sh installs.
func axePath(t testing.TB) string {
	p := os.Getenv("DREVAL_AXE")
	if p == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		p = filepath.Join(dir, "dreval", "axe", "axe.min.js")
	}
	if _, err := os.Stat(p); err != nil {
		if sharedtest.InCI() {
			t.Fatalf("axe-core is not installed (%v): run scripts/setup-axe.sh", err)
		}
		t.Skipf("axe-core is not installed (%v): run scripts/setup-axe.sh", err)
	}
	return p
}

// TestAccessibility runs axe-core over the page after the opening lesson
// (inspector open) and after a reproduction: no violation of WCAG 2.x
// level A or AA.
func TestAccessibility(t *testing.T) {
	sharedtest.ModelDir(t, "static")
	sharedtest.ModelDir(t, "minilm")
	src, err := os.ReadFile(axePath(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, url := browser(t, 10*time.Minute, fileServer(t))
	viewport(t, ctx, 1280, 800)
	load(t, ctx, url)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](string(src)+";true")); err != nil {
		t.Fatal(err)
	}
	check := func(state string) {
		t.Helper()
		type violation struct {
			ID     string   `json:"id"`
			Impact string   `json:"impact"`
			Help   string   `json:"help"`
			Nodes  []string `json:"nodes"`
		}
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]violation](`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]}})
			.then((r) => r.violations.map((v) => ({id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.slice(0, 4).map((n) => n.target.join(" "))})))`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range v {
			t.Errorf("%s: axe %s (%s): %s at %s", state, x.ID, x.Impact, x.Help, strings.Join(x.Nodes, "; "))
		}
	}
	eval[bool](t, ctx, `(() => { document.getElementById("inspector-box").open = true; return true; })()`)
	check("after the opening lesson")
	eval[bool](t, ctx, `(() => { for (const b of document.querySelectorAll("input[name=reproduce-model]")) b.checked = b.value === "bm25"; document.getElementById("reproduce-seeds").value = "1"; return true; })()`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("reproduce-run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, 5*time.Minute)
	check("after a reproduction")
	eval[bool](t, ctx, `(() => { document.querySelector("input[name=data][value=beir]").click(); return true; })()`)
	check("with the BEIR upload open")
}

// TestMetricsScoringChoices: the qrels + run mode takes a convention,
// measures and -c, and prints what "dreval metrics" prints with them.
func TestMetricsScoringChoices(t *testing.T) {
	ctx, url := browser(t, 5*time.Minute, fileServer(t))
	load(t, ctx, url)
	abs := func(name string) string {
		p, err := filepath.Abs(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`input[name=data][value=trec]`)),
		chromedp.SetUploadFiles(chromedp.ID("qrels-file"), []string{abs("small.qrels")}),
		chromedp.SetUploadFiles(chromedp.ID("run-file"), []string{abs("small.run")}),
	); err != nil {
		t.Fatal(err)
	}
	if eval[bool](t, ctx, `document.getElementById("scoring").hidden`) {
		t.Fatal("the metrics mode offers no convention, measures or -c")
	}
	runs := 0
	for _, c := range []struct {
		convention, measures string
		complete             bool
	}{
		{"trec", "ndcg_cut.10 map P.5,10", true},
		{"st", "ndcg@10 mrr@10", false},
	} {
		eval[bool](t, ctx, fmt.Sprintf(`(() => { document.getElementById("convention").value = %q; document.getElementById("measures").value = %q; document.getElementById("complete").checked = %v; return true; })()`,
			c.convention, c.measures, c.complete))
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
			t.Fatal(err)
		}
		runs++
		finish(t, ctx, runs, time.Minute)
		if msg := pageError(t, ctx); msg != "" {
			t.Fatalf("%+v: the page shows an error: %s", c, msg)
		}
		req := metrics.Request{Measures: strings.Fields(c.measures), Convention: c.convention, Level: 1, Complete: c.complete}
		qf, err := os.Open(abs("small.qrels"))
		if err != nil {
			t.Fatal(err)
		}
		rf, err := os.Open(abs("small.run"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := req.Evaluate(qf, "small.qrels", rf, "small.run")
		qf.Close()
		rf.Close()
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		if err := metrics.WriteTREC(&want, res, false); err != nil {
			t.Fatal(err)
		}
		if got := eval[string](t, ctx, `document.querySelector("#metrics pre.trec-text").textContent`); got != want.String() {
			t.Errorf("%+v: the page's metrics differ from dreval metrics':\npage:\n%s\nnative:\n%s", c, got, want.String())
		}
	}
}

// TestLessonSkippedWithoutStatic opens the page on a site that does not
// serve the static model: the opening lesson, asked for before the page
// knows which models the site serves, is skipped with a status that says
// why, not failed, and the model choice falls to one the site serves.
func TestLessonSkippedWithoutStatic(t *testing.T) {
	dir := sharedtest.ModelDir(t, "minilm")
	sharedtest.ModelDir(t, "static")
	models := t.TempDir()
	if err := linkTree(dir, filepath.Join(models, "minilm")); err != nil {
		t.Fatal(err)
	}
	x, err := modelfiles.IndexFS(os.DirFS(models))
	if err != nil {
		t.Fatal(err)
	}
	x.SetPreload(modelfiles.LessonModel) // static is not there: nothing
	index, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	files := fileServer(t)
	var asked sync.Map
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/models/"+modelfiles.IndexFile:
			w.Header().Set("Content-Type", "application/json")
			w.Write(index)
		case strings.HasPrefix(r.URL.Path, "/models/static/"):
			asked.Store(r.URL.Path, true)
			http.NotFound(w, r)
		default:
			files.ServeHTTP(w, r)
		}
	})
	ctx, url := browser(t, 2*time.Minute, h)
	load(t, ctx, url)
	if got := eval[string](t, ctx, `document.body.dataset.lesson`); got != "skipped" {
		t.Fatalf("the opening lesson on a site without static: %q, want skipped", got)
	}
	status := eval[string](t, ctx, `document.getElementById("status").textContent`)
	if !strings.Contains(status, "did not run") || !strings.Contains(status, "static") {
		t.Errorf("status %q does not say that the lesson did not run and why", status)
	}
	if eval[bool](t, ctx, `!document.getElementById("results").hidden && document.getElementById("table").textContent.trim() !== ""`) {
		t.Error("results are shown, but the lesson did not run")
	}
	waitJS(t, ctx, `document.getElementById("model").value !== "static"`, 30*time.Second)
	asked.Range(func(k, _ any) bool {
		t.Errorf("the page asked for %s, which the index does not list", k)
		return true
	})
}
