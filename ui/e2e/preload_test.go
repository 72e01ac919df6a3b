//go:build !js

package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

// TestModelPreloadedWithTheApp: the files of the model the page opens on
// (models/index.json's preload, modelfiles.Index.SetPreload) are
// requested while the app downloads, before the workers are ready, and
// each is downloaded once for both workers, from a static host as from
// "dreval serve"; the opening lesson then runs on them.
func TestModelPreloadedWithTheApp(t *testing.T) {
	sharedtest.ModelDir(t, modelfiles.LessonModel)
	for _, c := range []struct {
		name  string
		serve bool
	}{{"static host", false}, {"dreval serve", true}} {
		t.Run(c.name, func(t *testing.T) {
			h := fileServer(t)
			if c.serve {
				h = serveMux(t)
			}
			ctx, url := browser(t, 10*time.Minute, h)
			load(t, ctx, url)
			x, err := chromedp.Run(ctx, chromedp.Evaluate[modelfiles.Index](`fetch("models/index.json").then((r) => r.json())`, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatal(err)
			}
			if len(x.Preload) == 0 {
				t.Fatalf("models/index.json lists nothing to preload: %+v", x)
			}
			type entry struct {
				Name      string
				StartTime float64
			}
			got := eval[[]entry](t, ctx, `performance.getEntriesByType("resource").map((e) => ({Name: new URL(e.name).pathname.slice(1), StartTime: e.startTime}))`)
			ready := eval[float64](t, ctx, `Number(document.body.dataset.readyMs)`)
			for _, p := range x.Preload {
				var starts []float64
				for _, e := range got {
					if e.Name == p.URL {
						starts = append(starts, e.StartTime)
					}
				}
				if len(starts) != 1 {
					t.Errorf("%s requested %d times, want once for both workers", p.URL, len(starts))
					continue
				}
				if starts[0] > ready {
					t.Errorf("%s requested at %.0f ms, after the workers were ready (%.0f ms): not preloaded with the app", p.URL, starts[0], ready)
				}
			}
			want := []string{"models/static/config.json", "models/static/model.safetensors", "models/static/tokenizer.json"}
			var urls []string
			for _, p := range x.Preload {
				urls = append(urls, p.URL)
			}
			if !slices.Equal(urls, want) {
				t.Errorf("preloaded %v, want the static model's files %v", urls, want)
			}
			if got := eval[string](t, ctx, `document.body.dataset.lesson`); got != "done" {
				t.Errorf("the opening lesson on the preloaded model: %q, want done", got)
			}
		})
	}
}

// TestTamperedWeightsRefused: the SHA-256 the page computes once and
// hands to the workers with a file is that of the bytes they hold. A
// host serving the static model's weights with one byte changed has the
// opening lesson refused, not run on the changed table: by the digest
// the site's model index lists, or, where the index was written for the
// changed weights, by the fingerprint their demo vectors were made with.
func TestTamperedWeightsRefused(t *testing.T) {
	dir := filepath.Join(site(t), "models", modelfiles.LessonModel)
	sharedtest.ModelDir(t, modelfiles.LessonModel)
	weights, err := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	weights[len(weights)-1] ^= 1 // one bit of the table's last value
	sum := sha256.Sum256(weights)
	index, err := os.ReadFile(filepath.Join(site(t), "models", modelfiles.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	var x modelfiles.Index
	if err := json.Unmarshal(index, &x); err != nil {
		t.Fatal(err)
	}
	listed := x.Model(modelfiles.LessonModel).SHA256("model.safetensors")
	if listed == "" {
		t.Fatalf("the site's index lists no SHA-256 of %s's weights", modelfiles.LessonModel)
	}
	rewritten := bytes.ReplaceAll(index, []byte(listed), []byte(hex.EncodeToString(sum[:])))
	for _, tc := range []struct {
		name  string
		index []byte
		want  string
	}{
		{"the index lists the weights' digest", index, "has SHA-256 " + hex.EncodeToString(sum[:]) + ", but the site's models/index.json lists " + listed},
		{"the index was written for the changed weights", rewritten, "do not belong together"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := fileServer(t)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/models/" + modelfiles.LessonModel + "/model.safetensors":
					http.ServeContent(w, r, "model.safetensors", time.Time{}, bytes.NewReader(weights))
				case "/models/" + modelfiles.IndexFile:
					http.ServeContent(w, r, modelfiles.IndexFile, time.Time{}, bytes.NewReader(tc.index))
				default:
					files.ServeHTTP(w, r)
				}
			})
			ctx, url := browser(t, 10*time.Minute, h)
			if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
				t.Fatal(err)
			}
			waitJS(t, ctx, `!document.getElementById("error").hidden || document.body.dataset.lesson === "done"`, 5*time.Minute)
			if msg := pageError(t, ctx); !strings.Contains(msg, tc.want) {
				t.Fatalf("the page's error is %q, want %q (lesson: %q)", msg, tc.want, eval[string](t, ctx, `document.body.dataset.lesson || ""`))
			}
		})
	}
}

// TestReloadReadsCacheStorage: a reload downloads nothing unchanged. The
// opening model's weights, which the page stores in Cache Storage as they
// download, are revalidated (304) and read from the cache on the second
// load, and the lesson shows the same table.
func TestReloadReadsCacheStorage(t *testing.T) {
	sharedtest.ModelDir(t, "static")
	files := fileServer(t)
	var (
		mu    sync.Mutex
		codes = map[string][]int{}
	)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		files.ServeHTTP(sw, r)
		mu.Lock()
		codes[r.URL.Path] = append(codes[r.URL.Path], sw.code)
		mu.Unlock()
	})
	ctx, url := browser(t, 5*time.Minute, h)
	load(t, ctx, url)
	first := eval[string](t, ctx, `document.getElementById("table").textContent`)
	const weights = "/models/static/model.safetensors"
	mu.Lock()
	got := slices.Clone(codes[weights])
	mu.Unlock()
	if !slices.Equal(got, []int{http.StatusOK}) {
		t.Fatalf("first load: %s answered %v, want one 200", weights, got)
	}
	load(t, ctx, url)
	mu.Lock()
	got = slices.Clone(codes[weights])
	mu.Unlock()
	if !slices.Equal(got, []int{http.StatusOK, http.StatusNotModified}) {
		t.Fatalf("after a reload: %s answered %v, want 200 then 304 (read from Cache Storage)", weights, got)
	}
	if again := eval[string](t, ctx, `document.getElementById("table").textContent`); again != first || first == "" {
		t.Errorf("the lesson's table after the reload differs from the first load's")
	}
}
