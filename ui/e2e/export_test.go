//go:build !js

package e2e

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dreval/dreval/internal/sharedtest"
)

var (
	cliOnce sync.Once
	cliPath string
	cliErr  error
)

// cli builds the dreval command once for the tests that compare the page
// with it.
func cli(t testing.TB) string {
	t.Helper()
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dreval-e2e-cli-")
		if err != nil {
			cliErr = err
			return
		}
		cliPath = filepath.Join(dir, "dreval")
		build := exec.Command("go", "build", "-o", cliPath, "./cmd/dreval")
		build.Dir = sharedtest.Root()
		if out, err := build.CombinedOutput(); err != nil {
			cliErr = err
			cliPath = string(out)
		}
	})
	if cliErr != nil {
		t.Fatalf("building dreval: %v\n%s", cliErr, cliPath)
	}
	return cliPath
}

// TestDownloadsEqualTheCLIsFiles runs the demo in the page and downloads
// its comparisons.csv, TREC runs and qrels, and every file: each equals,
// byte for byte, the file "dreval eval" writes for the same configuration
// (package report makes both).
func TestDownloadsEqualTheCLIsFiles(t *testing.T) {
	model := demoModel(t)
	sharedtest.ModelDir(t, "minilm")
	out := t.TempDir()
	cmd := exec.Command(cli(t), "eval", "-engine", "go", "-data", "demo", "-models", model, "-rates", "0,0.1", "-seeds", "1",
		"-models-dir", sharedtest.ModelsDir(), "-no-cache", "-quiet", "-out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dreval eval: %v\n%s", err, b)
	}

	ctx, url := browser(t, 3*time.Minute, fileServer(t))
	load(t, ctx, url)
	eval[bool](t, ctx, `(() => { document.getElementById("model").value = "`+model+`"; return true; })()`)
	setRate(t, ctx, 10, "input")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, 2*time.Minute)
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the page shows an error: %s", msg)
	}
	// What the download buttons save (app.js's exporter): the worker's
	// export answer, the zips as base64.
	type exported struct {
		CSV     string `json:"csv"`
		RunsZip string `json:"runsZip"`
		AllZip  string `json:"allZip"`
	}
	ex, err := chromedp.Run(ctx, chromedp.Evaluate[exported](`state.pool.request({type: "export"}).then((a) => {
		const b64 = (u8) => { let s = ""; for (let i = 0; i < u8.length; i += 8192) s += String.fromCharCode(...u8.subarray(i, i + 8192)); return btoa(s); };
		return {csv: a.csv, runsZip: b64(a.runsZip), allZip: b64(a.allZip)};
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, got []byte, file string) {
		t.Helper()
		want, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(file)))
		if err != nil {
			t.Errorf("%s: the CLI wrote no %s: %v", what, file, err)
			return
		}
		if !bytes.Equal(got, want) {
			g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
			line := 0
			for line < min(len(g), len(w)) && bytes.Equal(g[line], w[line]) {
				line++
			}
			var gl, wl []byte
			if line < len(g) {
				gl = g[line]
			}
			if line < len(w) {
				wl = w[line]
			}
			t.Errorf("%s: %s differs from the CLI's (%d bytes, the CLI's %d); first at line %d:\n page %q\n CLI  %q", what, file, len(got), len(want), line+1, gl, wl)
		}
	}
	same("comparisons.csv download", []byte(ex.CSV), "comparisons.csv")
	runs := unzip(t, ex.RunsZip)
	var names []string
	for name, b := range runs {
		names = append(names, name)
		same("TREC runs download", b, name)
	}
	sort.Strings(names)
	if want := []string{"qrels/demo.qrels", "runs/" + model + "__clean.trec", "runs/" + model + "__rate0.1__seed1.trec"}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("the runs zip holds %v, want %v", names, want)
	}
	all := unzip(t, ex.AllZip)
	for _, name := range []string{"tables.md", "tables.tex", "tables/demo.csv", "tables/drop-demo.csv", "examples.md"} {
		if b, ok := all[name]; !ok {
			t.Errorf("the zip of every file lacks %s", name)
		} else {
			same("every file download", b, name)
		}
	}
	if _, ok := all["report.html"]; !ok {
		t.Error("the zip of every file lacks report.html")
	}
}

// unzip returns the files of a base64-encoded zip archive.
func unzip(t *testing.T, b64 string) map[string][]byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = data
	}
	return out
}
