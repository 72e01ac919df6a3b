//go:build !js

package e2e

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/serve"
)

// chromiumPath returns Debian's chromium, skipping t (failing under CI)
// when it is not installed.
func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if sharedtest.InCI() {
		t.Fatal("chromium is not installed: apt-get install -y chromium")
	}
	t.Skip("chromium is not installed: apt-get install -y chromium")
	return ""
}

var (
	siteOnce sync.Once
	siteDir  string
	siteErr  error
)

// site assembles, once, the directory the tests serve: webapp/static, the
// freshly built app.wasm, Go's wasm_exec.js and models/<name> links to the
// installed models.
func site(t testing.TB) string {
	t.Helper()
	models := map[string]string{}
	for _, name := range []string{"minilm", "static"} {
		dir := filepath.Join(sharedtest.ModelsDir(), name)
		if _, err := os.Stat(filepath.Join(dir, "config.json")); err == nil {
			models[name] = dir
		}
	}
	siteOnce.Do(func() {
		siteDir, siteErr = os.MkdirTemp("", "dreval-e2e-site-")
		if siteErr != nil {
			return
		}
		root := sharedtest.Root()
		static := filepath.Join(root, "webapp", "static")
		entries, err := os.ReadDir(static)
		if err != nil {
			siteErr = err
			return
		}
		for _, e := range entries {
			if e.IsDir() || e.Name() == "app.wasm.gz" || e.Name() == "wasm_exec.js" {
				continue
			}
			if siteErr = copyFile(filepath.Join(static, e.Name()), filepath.Join(siteDir, e.Name())); siteErr != nil {
				return
			}
		}
		goroot, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			siteErr = fmt.Errorf("go env GOROOT: %v", err)
			return
		}
		if siteErr = copyFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"), filepath.Join(siteDir, "wasm_exec.js")); siteErr != nil {
			return
		}
		// As scripts/wasm-build.sh builds it: without the demo
		// collection (tag nodemo), which the page fetches as demo.zip,
		// and with its -gcflags.
		flags, err := exec.Command(filepath.Join(root, "scripts", "wasm-gcflags.sh")).Output()
		if err != nil {
			siteErr = fmt.Errorf("scripts/wasm-gcflags.sh: %v", err)
			return
		}
		args := append([]string{"build", "-trimpath", "-tags", "nodemo", "-ldflags=-s -w"}, strings.Fields(string(flags))...)
		build := exec.Command("go", append(args, "-o", filepath.Join(siteDir, "app.wasm"), "./wasm")...)
		build.Dir = root
		build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if out, err := build.CombinedOutput(); err != nil {
			siteErr = fmt.Errorf("building the wasm app: %v\n%s", err, out)
			return
		}
		if siteErr = gzipFile(filepath.Join(siteDir, "app.wasm"), filepath.Join(siteDir, "app.wasm.gz")); siteErr != nil {
			return
		}
		demo := exec.Command("go", "run", "./dataset/demo/zip", "-out", filepath.Join(siteDir, dataset.DemoZip))
		demo.Dir = root
		if out, err := demo.CombinedOutput(); err != nil {
			siteErr = fmt.Errorf("writing %s: %v\n%s", dataset.DemoZip, err, out)
			return
		}
		if siteErr = os.MkdirAll(filepath.Join(siteDir, "models"), 0o755); siteErr != nil {
			return
		}
		for name, dir := range models {
			if siteErr = linkTree(dir, filepath.Join(siteDir, "models", name)); siteErr != nil {
				return
			}
		}
		// The list of the models a static host serves, as "dreval site"
		// writes it ("dreval serve" answers it itself).
		models := os.DirFS(filepath.Join(siteDir, "models"))
		x, err := modelfiles.IndexFS(models)
		if err != nil {
			siteErr = err
			return
		}
		if siteErr = x.SetDigests(models, nil); siteErr != nil {
			return
		}
		x.SetPreload(modelfiles.LessonModel)
		b, err := json.Marshal(x)
		if err != nil {
			siteErr = err
			return
		}
		siteErr = os.WriteFile(filepath.Join(siteDir, "models", modelfiles.IndexFile), b, 0o644)
	})
	if siteErr != nil {
		t.Fatal(siteErr)
	}
	return siteDir
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func gzipFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(out, gzip.BestCompression)
	if _, err := zw.Write(b); err != nil {
		out.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// fileServer is a plain net/http file server over the site.
func fileServer(t testing.TB) http.Handler {
	return http.FileServer(http.Dir(site(t)))
}

// serveMux is "dreval serve"'s handler (package serve) over the site's
// files (the page, app.wasm.gz) and the installed models.
func serveMux(t testing.TB) http.Handler {
	dir := site(t)
	return serve.NewMux(serve.Options{Assets: os.DirFS(dir), Models: os.DirFS(filepath.Join(dir, "models"))})
}

// browser serves h on 127.0.0.1 and returns a chromedp context on a fresh
// headless Chromium, and the page's URL.
func browser(t testing.TB, timeout time.Duration, h http.Handler) (context.Context, string) {
	exe := chromiumPath(t)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1366, 900),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(cancelC)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelT)
	return ctx, srv.URL + "/"
}

// load opens the page and waits until its workers are ready and the
// opening lesson (the static model's sweep) is over; it returns how long
// the workers took.
func load(t testing.TB, ctx context.Context, url string) time.Duration {
	t.Helper()
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.body.dataset.ready === "true" || !document.getElementById("error").hidden`, time.Minute)
	d := time.Since(start)
	waitJS(t, ctx, `(document.body.dataset.lesson || "") !== "" || !document.getElementById("error").hidden`, 5*time.Minute)
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the page reports an error on load: %s", msg)
	}
	return d
}

func waitJS(t testing.TB, ctx context.Context, cond string, timeout time.Duration) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		status, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("status").textContent`))
		t.Fatalf("waiting for %s: %v (status: %q, error: %q)", cond, err, status, pageError(t, ctx))
	}
}

func eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

func pageError(t testing.TB, ctx context.Context) string {
	v, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const e = document.getElementById("error"); return e.hidden ? "" : e.textContent; })()`))
	return v
}

// finish waits until the page has finished job n.
func finish(t testing.TB, ctx context.Context, n int, timeout time.Duration) {
	t.Helper()
	waitJS(t, ctx, fmt.Sprintf(`Number(document.body.dataset.runs || 0) >= %d && document.body.dataset.busy === "false"`, n), timeout)
}

func screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	savePNG(t, name, png)
}

// savePNG writes a screenshot into $DREVAL_E2E_OUT, else the test's
// temporary directory.
func savePNG(t testing.TB, name string, png []byte) {
	t.Helper()
	dir := os.Getenv("DREVAL_E2E_OUT")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// cell is one number of the results table.
type cell struct {
	Measure    string `json:"measure"`
	Convention string `json:"convention"`
	Field      string `json:"field"`
	Text       string `json:"text"`
}

const readTable = `[...document.querySelectorAll("#table tbody tr")].flatMap((tr) =>
  [...tr.querySelectorAll("[data-field]")].filter((e) => e.dataset.field !== "ci").map((e) =>
    ({measure: tr.dataset.measure, convention: tr.dataset.convention, field: e.dataset.field, text: e.textContent.trim()})))`

// checkTable checks every number of the page's table against the rate
// summary of the native results.
func checkTable(t testing.TB, cells []cell, res *results.Results, rate float64, withTREC bool) {
	t.Helper()
	var rs *results.RateSummary
	for _, r := range res.Datasets[0].Models[0].Rates {
		if r.Rate == rate {
			rs = r
		}
	}
	if rs == nil {
		t.Fatalf("native results lack rate %v", rate)
	}
	want := len(res.Measures(metrics.ConventionST))
	if withTREC {
		want += len(res.Measures(metrics.ConventionTREC))
	}
	if rows := len(cells) / 8; rows != want || len(cells)%8 != 0 {
		t.Fatalf("the table has %d cells, want 8 for each of %d measures", len(cells), want)
	}
	for _, c := range cells {
		conv, err := metrics.ParseConvention(c.Convention)
		if err != nil {
			t.Fatalf("row of measure %s: %v", c.Measure, err)
		}
		cmp, ok := rs.Drop.Get(conv, c.Measure)
		if !ok {
			t.Errorf("the page shows measure %s/%s, absent from the native results", c.Convention, c.Measure)
			continue
		}
		var v float64
		switch c.Field {
		case "clean":
			v = float64(cmp.MeanA)
		case "perturbed":
			v = float64(cmp.MeanB)
		case "diff":
			v = float64(cmp.MeanDiff)
		case "ci_low":
			v = float64(cmp.CILow)
		case "ci_high":
			v = float64(cmp.CIHigh)
		case "p_randomization":
			v = float64(cmp.PRandomization)
		case "p_ttest":
			v = float64(cmp.PTTest)
		case "n":
			if c.Text != strconv.Itoa(cmp.N) {
				t.Errorf("%s n: page %q, native %d", c.Measure, c.Text, cmp.N)
			}
			continue
		default:
			t.Errorf("unexpected field %q", c.Field)
			continue
		}
		if math.IsNaN(v) {
			if c.Text != "n/a" {
				t.Errorf("%s %s: page %q, native NaN", c.Measure, c.Field, c.Text)
			}
			continue
		}
		got, err := strconv.ParseFloat(c.Text, 64)
		if err != nil {
			t.Errorf("%s %s: page shows %q, not a number", c.Measure, c.Field, c.Text)
			continue
		}
		// Four decimals: the page's rounding of the native value.
		if want := fmt.Sprintf("%.4f", v); math.Abs(got-v) > 0.5e-4+1e-12 {
			t.Errorf("%s %s: page %s, native %s (%v)", c.Measure, c.Field, c.Text, want, v)
		}
	}
}

// nativeRun runs what the page runs (browser/app.go RunSettings.config), as
// "dreval eval -engine go -data demo -models M -rates 0,R -seeds S" does.
func nativeRun(t testing.TB, model string, rate float64, seeds int) *results.Results {
	t.Helper()
	res, err := experiment.Run(context.Background(), experiment.Config{
		Data:         []string{"demo"},
		Models:       []string{model},
		Registry:     experiment.DefaultRegistry(),
		ModelOptions: experiment.ModelOptions{Engine: "go", ModelsDir: sharedtest.ModelsDir()},
		Rates:        []float64{0, rate},
		Seeds:        seeds,
		FirstSeed:    1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// demoModel is the model the demo test runs: static when installed, else
// minilm.
func demoModel(t testing.TB) string {
	if _, err := os.Stat(filepath.Join(sharedtest.ModelsDir(), "static", "config.json")); err == nil {
		return "static"
	}
	sharedtest.ModelDir(t, "minilm")
	return "minilm"
}

func setRate(t testing.TB, ctx context.Context, percent int, event string) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const r = document.getElementById("rate"); r.value = "%d"; r.dispatchEvent(new Event("input")); %s return true; })()`,
		percent, map[bool]string{true: `r.dispatchEvent(new Event("change"));`, false: ""}[event == "change"]))
}

func TestDemoMatchesNativeRun(t *testing.T) {
	model := demoModel(t)
	ctx, url := browser(t, 15*time.Minute, fileServer(t))
	took := load(t, ctx, url)
	t.Logf("page interactive, %d workers ready, in %v", eval[int](t, ctx, `state.pool.size`), took)

	eval[bool](t, ctx, fmt.Sprintf(`(() => { document.getElementById("model").value = %q; document.getElementById("seeds").value = "1"; document.getElementById("first-seed").value = "1"; document.getElementById("trec").checked = true; return true; })()`, model))
	setRate(t, ctx, 10, "input")
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, 10*time.Minute)
	t.Logf("demo with %s at rate 0.1, seed 1: %v in the browser", model, time.Since(start))
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the page shows an error: %s", msg)
	}
	cells := eval[[]cell](t, ctx, readTable)
	native := nativeRun(t, model, 0.1, 1)
	checkTable(t, cells, native, 0.1, true)
	screenshot(t, ctx, "demo-"+model+".png")
	eval[bool](t, ctx, `(() => { document.getElementById("inspector-box").open = true; return true; })()`)
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("inspector")))
	if err != nil {
		t.Fatal(err)
	}
	savePNG(t, "demo-"+model+"-inspector.png", png)

	// The inspector lists every judged query; the chart has the clean
	// point and the rate's.
	if n := eval[int](t, ctx, `document.querySelectorAll("#inspector tbody tr").length`); n != native.Datasets[0].Judged {
		t.Errorf("the inspector lists %d queries, want %d", n, native.Datasets[0].Judged)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#chart circle.point").length`); n != 2 {
		t.Errorf("the chart has %d points, want 2", n)
	}

	// Moving the slider reruns at the new rate (corpus vectors kept).
	setRate(t, ctx, 20, "change")
	finish(t, ctx, 2, 10*time.Minute)
	ms := eval[string](t, ctx, `document.getElementById("timing").dataset.ms`)
	t.Logf("slider to 20%%: table refreshed in %s ms (page's measure, change event to table)", ms)
	checkTable(t, eval[[]cell](t, ctx, readTable), nativeRun(t, model, 0.2, 1), 0.2, true)
}

func TestMetricsUploadAndBadFile(t *testing.T) {
	for _, srv := range []struct {
		name string
		h    func(testing.TB) http.Handler
	}{{"fileserver", fileServer}, {"serve", serveMux}} {
		t.Run(srv.name, func(t *testing.T) { testMetricsUpload(t, srv.h(t)) })
	}
}

func testMetricsUpload(t testing.TB, h http.Handler) {
	ctx, url := browser(t, 5*time.Minute, h)
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
		chromedp.Click(chromedp.ID("run")),
	); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, time.Minute)
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the page shows an error: %s", msg)
	}
	got := eval[string](t, ctx, `document.querySelector("#metrics pre.trec-text").textContent`)
	want := nativeMetrics(t, abs("small.qrels"), abs("small.run"))
	if got != want {
		t.Errorf("the page's metrics differ from dreval metrics':\npage:\n%s\nnative:\n%s", got, want)
	}
	before := eval[string](t, ctx, `document.querySelector("#metrics table.measures").textContent`)

	// The same judgments as BEIR qrels, with a byte order mark and the
	// header or without the header, give the same numbers.
	trec, err := os.ReadFile(abs("small.qrels"))
	if err != nil {
		t.Fatal(err)
	}
	beir := map[string]string{"bom-header.tsv": "\ufeffquery-id\tcorpus-id\tscore\r\n", "no-header.tsv": ""}
	runs := 1
	for name, head := range beir {
		var b strings.Builder
		b.WriteString(head)
		for _, line := range strings.Split(strings.TrimSpace(string(trec)), "\n") {
			f := strings.Fields(line)
			b.WriteString(f[0] + "\t" + f[2] + "\t" + f[3] + "\r\n")
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx,
			chromedp.SetUploadFiles(chromedp.ID("qrels-file"), []string{p}),
			chromedp.Click(chromedp.ID("run")),
		); err != nil {
			t.Fatal(err)
		}
		runs++
		finish(t, ctx, runs, time.Minute)
		if msg := pageError(t, ctx); msg != "" {
			t.Fatalf("%s: the page shows an error: %s", name, msg)
		}
		if got := eval[string](t, ctx, `document.querySelector("#metrics pre.trec-text").textContent`); got != want {
			t.Errorf("%s: the page's metrics differ from the TREC form's:\npage:\n%s\nnative:\n%s", name, got, want)
		}
	}

	// A malformed run: an inline error names the file and the line, and
	// the earlier results stay.
	if err := chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.ID("run-file"), []string{abs("bad.run")}),
		chromedp.Click(chromedp.ID("run")),
	); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, runs+1, time.Minute)
	msg := pageError(t, ctx)
	if !strings.Contains(msg, "bad.run:3") {
		t.Errorf("the error %q does not name bad.run:3", msg)
	}
	if after := eval[string](t, ctx, `document.querySelector("#metrics table.measures").textContent`); after != before {
		t.Errorf("the earlier results changed after the failed upload")
	}
	screenshot(t, ctx, strings.ReplaceAll(t.Name(), "/", "-")+".png")
}

// nativeMetrics returns what "dreval metrics -qrels Q -run R" prints: the
// trec convention's default measures, written by metrics.WriteTREC.
func nativeMetrics(t testing.TB, qrelsPath, runPath string) string {
	t.Helper()
	qf, err := os.Open(qrelsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer qf.Close()
	qrels, err := metrics.ReadQrels(qf, filepath.Base(qrelsPath))
	if err != nil {
		t.Fatal(err)
	}
	rf, err := os.Open(runPath)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	res, err := metrics.EvaluateReader(qrels, rf, filepath.Base(runPath), metrics.DefaultMeasures(metrics.ConventionTREC),
		metrics.Options{Convention: metrics.ConventionTREC, RelLevel: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := metrics.WriteTREC(&b, res, false); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestBEIRUploadWithBM25(t *testing.T) {
	sharedtest.ModelDir(t, "minilm") // BM25 perturbs through minilm's tokenizer
	for _, srv := range []struct {
		name string
		h    func(testing.TB) http.Handler
	}{{"fileserver", fileServer}, {"serve", serveMux}} {
		t.Run(srv.name, func(t *testing.T) { testBEIRUpload(t, srv.h(t)) })
	}
}

func testBEIRUpload(t testing.TB, h http.Handler) {
	ctx, url := browser(t, 5*time.Minute, h)
	load(t, ctx, url)
	demo := filepath.Join(sharedtest.Root(), "dataset", "demo")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`input[name=data][value=beir]`)),
		chromedp.SetUploadFiles(chromedp.ID("beir-pick"), []string{
			filepath.Join(demo, "corpus.jsonl"), filepath.Join(demo, "queries.jsonl"), filepath.Join(demo, "qrels", "test.tsv")}),
	); err != nil {
		t.Fatal(err)
	}
	eval[bool](t, ctx, `(() => { document.getElementById("model").value = "bm25"; document.getElementById("seeds").value = "1"; return true; })()`)
	setRate(t, ctx, 10, "input")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, 3*time.Minute)
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the page shows an error: %s", msg)
	}
	res, err := experiment.Run(context.Background(), experiment.Config{
		Data:         []string{demo},
		Models:       []string{"bm25"},
		Registry:     experiment.DefaultRegistry(),
		ModelOptions: experiment.ModelOptions{Engine: "go", ModelsDir: sharedtest.ModelsDir()},
		Rates:        []float64{0, 0.1},
		Seeds:        1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, eval[[]cell](t, ctx, readTable), res, 0.1, false)

	// Moving the slider reruns BM25 at 20%; the page measures the refresh.
	setRate(t, ctx, 20, "change")
	finish(t, ctx, 2, 3*time.Minute)
	t.Logf("bm25 slider to 20%%: table refreshed in %s ms", eval[string](t, ctx, `document.getElementById("timing").dataset.ms`))
}

// TestMain removes the assembled sites and the built command after the
// tests.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{siteDir, ortSiteDir, filepath.Dir(drevalBin)} {
		if dir != "" && dir != "." {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

func TestCancelKeepsResults(t *testing.T) {
	sharedtest.ModelDir(t, "minilm")
	ctx, url := browser(t, 5*time.Minute, fileServer(t))
	load(t, ctx, url)
	// A quick BM25 run first: its results must survive the cancelled run.
	eval[bool](t, ctx, `(() => { document.getElementById("model").value = "bm25"; return true; })()`)
	setRate(t, ctx, 10, "input")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, 3*time.Minute)
	before := eval[string](t, ctx, `document.getElementById("table").innerHTML`)
	// A MiniLM run takes minutes in wasm: cancel it once it is encoding.
	eval[bool](t, ctx, `(() => { document.getElementById("model").value = "minilm"; return true; })()`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.getElementById("status").textContent.startsWith("encode corpus")`, 2*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("cancel"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 2, time.Minute)
	if s := eval[string](t, ctx, `document.getElementById("status").textContent`); !strings.HasPrefix(s, "Cancelled") {
		t.Errorf("status after cancelling: %q", s)
	}
	if after := eval[string](t, ctx, `document.getElementById("table").innerHTML`); after != before {
		t.Error("the earlier results changed when the run was cancelled")
	}
	// The restarted workers take the next run.
	waitJS(t, ctx, `document.body.dataset.ready === "true"`, time.Minute)
	eval[bool](t, ctx, `(() => { document.getElementById("model").value = "bm25"; return true; })()`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 3, 3*time.Minute)
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the run after cancelling failed: %s", msg)
	}
}

func TestSweepChart(t *testing.T) {
	sharedtest.ModelDir(t, "minilm") // BM25 perturbs through minilm's tokenizer
	ctx, url := browser(t, 5*time.Minute, fileServer(t))
	load(t, ctx, url)
	eval[bool](t, ctx, `(() => { document.getElementById("model").value = "bm25"; document.getElementById("seeds").value = "1"; return true; })()`)
	setRate(t, ctx, 10, "input")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("sweep"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, 3*time.Minute)
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the page shows an error: %s", msg)
	}
	rates := []float64{0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5}
	res, err := experiment.Run(context.Background(), experiment.Config{
		Data:         []string{"demo"},
		Models:       []string{"bm25"},
		Registry:     experiment.DefaultRegistry(),
		ModelOptions: experiment.ModelOptions{Engine: "go", ModelsDir: sharedtest.ModelsDir()},
		Rates:        rates,
		Seeds:        1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	type point struct {
		Rate string `json:"rate"`
		Mean string `json:"mean"`
	}
	pts := eval[[]point](t, ctx, `[...document.querySelectorAll("#chart circle.point")].map((c) => ({rate: c.dataset.rate, mean: c.dataset.mean}))`)
	if len(pts) != len(rates) {
		t.Fatalf("the chart has %d points, want %d", len(pts), len(rates))
	}
	mr := res.Datasets[0].Models[0]
	want := []float64{mr.Clean.Means[metrics.ConventionST]["ndcg@10"]}
	for _, rs := range mr.Rates {
		want = append(want, rs.Stats[metrics.ConventionST]["ndcg@10"].Mean)
	}
	for i, p := range pts {
		if p.Rate != strconv.FormatFloat(rates[i], 'g', -1, 64) || p.Mean != fmt.Sprintf("%.4f", want[i]) {
			t.Errorf("point %d: rate %s ndcg@10 %s, native rate %v %.4f", i, p.Rate, p.Mean, rates[i], want[i])
		}
	}
	// The slider shows a swept rate without running again.
	setRate(t, ctx, 30, "change")
	finish(t, ctx, 2, time.Minute)
	checkTable(t, eval[[]cell](t, ctx, readTable), res, 0.3, false)
	t.Logf("slider to a swept rate: table refreshed in %s ms", eval[string](t, ctx, `document.getElementById("timing").dataset.ms`))
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("results")))
	if err != nil {
		t.Fatal(err)
	}
	savePNG(t, "sweep-bm25.png", png)

	// The exports: results.json reads back, the CSV has a row per rate and
	// measure, the zip holds the runs.
	type exported struct {
		Rates    []float64 `json:"rates"`
		CSVLines int       `json:"csvLines"`
		ZipBytes int       `json:"zipBytes"`
		ZipMagic string    `json:"zipMagic"`
	}
	ex, err := chromedp.Run(ctx, chromedp.Evaluate[exported](`state.pool.request({type: "export"}).then((a) => ({
		rates: JSON.parse(a.json).config.rates,
		csvLines: a.csv.trim().split("\n").length,
		zipBytes: a.runsZip.length,
		zipMagic: String.fromCharCode(a.runsZip[0], a.runsZip[1])}))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Rates) != len(rates) {
		t.Errorf("results.json has rates %v, want %v", ex.Rates, rates)
	}
	if want := 1 + (len(rates)-1)*(len(res.Measures(metrics.ConventionST))+len(res.Measures(metrics.ConventionTREC))); ex.CSVLines != want {
		t.Errorf("the CSV has %d lines, want %d", ex.CSVLines, want)
	}
	if ex.ZipMagic != "PK" || ex.ZipBytes < 1000 {
		t.Errorf("the runs zip starts %q and has %d bytes", ex.ZipMagic, ex.ZipBytes)
	}
}
