//go:build !js

package e2e

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dreval/dreval/dataset"
)

// TestDemoFetchedWithTheApp checks that the app, built without the demo
// collection, reads it from the site's demo.zip: fetched once by the page,
// starting while the app itself downloads, on a static host and from
// "dreval serve" (the opening lesson runs on it).
func TestDemoFetchedWithTheApp(t *testing.T) {
	app, err := os.ReadFile(filepath.Join(site(t), "app.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	demo, err := dataset.Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	if p := demo.Corpus[0].Text; bytes.Contains(app, []byte(p)) {
		t.Errorf("the app embeds the demo collection (its first passage %.40q...)", p)
	}
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"static host", fileServer(t)}, {"dreval serve", serveMux(t)}} {
		t.Run(h.name, func(t *testing.T) {
			ctx, url := browser(t, 10*time.Minute, h.h)
			load(t, ctx, url)
			type entry struct {
				Name                   string
				StartTime, ResponseEnd float64
			}
			got := eval[[]entry](t, ctx, `performance.getEntriesByType("resource").filter((e) => /\/(demo\.zip|app\.wasm\.gz)$/.test(e.name)).map((e) => ({Name: e.name.replace(/^.*\//, ""), StartTime: e.startTime, ResponseEnd: e.responseEnd}))`)
			var zips, apps []entry
			for _, e := range got {
				switch e.Name {
				case dataset.DemoZip:
					zips = append(zips, e)
				case "app.wasm.gz":
					apps = append(apps, e)
				}
			}
			if len(zips) != 1 || len(apps) != 1 {
				t.Fatalf("the page fetched %s %d times and app.wasm.gz %d times, want once each (%+v)", dataset.DemoZip, len(zips), len(apps), got)
			}
			if zips[0].StartTime > apps[0].ResponseEnd {
				t.Errorf("%s was requested at %.0f ms, after the app's download ended (%.0f ms): not in parallel", dataset.DemoZip, zips[0].StartTime, apps[0].ResponseEnd)
			}
			if got := eval[string](t, ctx, `document.body.dataset.lesson`); got != "done" {
				t.Errorf("the opening lesson on the fetched demo: %q, want done", got)
			}
			if n := eval[int](t, ctx, `document.querySelectorAll("#table tbody tr").length`); n == 0 {
				t.Error("the opening lesson shows no results table")
			}
		})
	}
}
