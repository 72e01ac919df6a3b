//go:build !js

package e2e

import (
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestZZTimeline(t *testing.T) {
	dir := os.Getenv("DREVAL_BENCH_SITE")
	ctx, url := browser(t, 10*time.Minute, staticHost(dir, true))
	load(t, ctx, url)
	eval[bool](t, ctx, `(() => { document.getElementById("model").value = "minilm"; window.__tl = []; const st = document.getElementById("status"); const t0 = performance.now(); let last = ""; setInterval(() => { const s = st.textContent; if (s !== last) { last = s; window.__tl.push(((performance.now()-t0)/1000).toFixed(2) + " " + s.slice(0, 150)); } }, 20); return true; })()`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, 10*time.Minute)
	for _, l := range eval[[]string](t, ctx, `window.__tl`) {
		t.Log(l)
	}
}
