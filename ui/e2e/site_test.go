//go:build !js

package e2e

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/webapp"
)

// buildSite builds the dreval binary from this tree and runs its "site"
// command (-out DIR -model static -engine go, no cache), returning DIR.
// The app in the site is the one built into the binary (webapp/static's
// app.wasm.gz, made by "make wasm").
func buildSite(t testing.TB) string {
	t.Helper()
	if !webapp.Built() {
		if sharedtest.InCI() {
			t.Fatal("webapp/static/app.wasm.gz is missing: run make wasm")
		}
		t.Skip("webapp/static/app.wasm.gz is missing: run make wasm")
	}
	bin := buildDreval(t)
	out := filepath.Join(t.TempDir(), "site")
	site := exec.Command(bin, "site", "-out", out, "-models", sharedtest.ModelsDir(), "-model", "static", "-engine", "go", "-cache", "")
	if b, err := site.CombinedOutput(); err != nil {
		t.Fatalf("dreval site: %v\n%s", err, b)
	} else {
		t.Logf("dreval site: %s", b)
	}
	for _, f := range []string{"index.html", "app.js", "worker.js", "wasm_exec.js", "app.wasm.gz", "demo.zip",
		"models/static/config.json", "models/static/tokenizer.json", "data/demo/static.npy", "data/demo/static.json"} {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(f))); err != nil {
			t.Errorf("the site lacks %s: %v", f, err)
		}
	}
	return out
}

// buildDreval builds the dreval command of this tree into a temporary
// directory and returns its path.
func buildDreval(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dreval")
	build := exec.Command("go", "build", "-o", bin, "./cmd/dreval")
	build.Dir = sharedtest.Root()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/dreval: %v\n%s", err, out)
	}
	return bin
}

// TestStaticSiteDemo serves the output of "dreval site" with a plain
// net/http file server and runs the demo with the static model at rate
// 0.1, seed 1: the page's table must equal experiment.Run's numbers.
func TestStaticSiteDemo(t *testing.T) {
	if _, err := os.Stat(filepath.Join(sharedtest.ModelsDir(), "static", "config.json")); err != nil {
		if sharedtest.InCI() {
			t.Fatalf("the static model is not installed in %s: dreval model get static", sharedtest.ModelsDir())
		}
		t.Skipf("the static model is not installed in %s: dreval model get static", sharedtest.ModelsDir())
	}
	chromiumPath(t)
	dir := buildSite(t)
	ctx, url := browser(t, 10*time.Minute, http.FileServer(http.Dir(dir)))
	load(t, ctx, url)
	if s := eval[string](t, ctx, `(() => { const o = [...document.getElementById("model").options].find((o) => o.value === "static"); return o.disabled ? o.textContent : ""; })()`); s != "" {
		t.Fatalf("the page marks the static model unavailable: %q", s)
	}
	eval[bool](t, ctx, `(() => { document.getElementById("model").value = "static"; document.getElementById("seeds").value = "1"; document.getElementById("first-seed").value = "1"; document.getElementById("trec").checked = true; return true; })()`)
	setRate(t, ctx, 10, "input")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, 5*time.Minute)
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the page shows an error: %s", msg)
	}
	cells := eval[[]cell](t, ctx, readTable)
	if len(cells) == 0 {
		t.Fatal("the page shows no results table")
	}
	checkTable(t, cells, nativeRun(t, "static", 0.1, 1), 0.1, true)
	screenshot(t, ctx, fmt.Sprintf("site-demo-%s.png", "static"))
}
