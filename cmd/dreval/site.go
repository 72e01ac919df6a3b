package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/serve"
	"github.com/dreval/dreval/webapp"
)

func init() {
	register(&command{
		name:    "site",
		summary: "write the browser app, model files and demo data as a static site for any file host",
		run:     runSite,
	})
}

const siteUsage = `-out DIR [-models DIR] [-model minilm,...] [flags]

Writes a self-contained static site: the browser app built into this binary
(index.html and its files, app.wasm.gz, wasm_exec.js), the files
of each -model (models/NAME/config.json, tokenizer.json and weights), the
demo corpus embedded by each model (data/demo/NAME.npy and NAME.json, read
from the "dreval eval" cache or encoded here) and its queries' clean vectors
(NAME.queries.npy and .json), onnxruntime-web (ort/, from
-ort-web) and _headers, the COOP/COEP headers for the hosts that read it.
The layout is the one "dreval serve" serves, so the app works from any
static file host.`

func runSite(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "site", siteUsage)
	out := fs.String("out", "", "output `directory` (created; existing files are overwritten)")
	models := modelsDirFlag(fs)
	modelList := fs.String("model", "static,minilm", "installed models to include, comma-separated `names`")
	engine := fs.String("engine", "auto", "encoder `engine`: "+engine.Help())
	ortLib := fs.String("ort-lib", evalDefaultOrtLib(), "ONNX Runtime shared `library`")
	cacheDir := fs.String("cache", evalDefaultCacheDir(), "corpus embedding cache `directory` shared with \"dreval eval\" (\"\": none)")
	app := fs.Bool("app", true, "include the browser app (false: models and data only, as the Worker build embeds them)")
	weights := fs.Bool("weights", true, "include the weight files (*.safetensors, pytorch_model.bin, model.onnx); false keeps config.json and tokenizer.json only")
	ortWeb := fs.String("ort-web", defaultORTWeb(), "onnxruntime-web `directory` to copy into ort/ (scripts/setup-ort-web.sh installs it; \"\": none, the page encodes in pure Go)")
	webgpu := fs.Bool("webgpu", true, "include onnxruntime-web's WebGPU build (27 MB; hosts with a 25 MiB limit per file, such as Workers static assets, need false)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	case *out == "":
		return usageErrorf("-out DIR is required")
	}
	eng, err := parseEngineFlag(*engine)
	if err != nil {
		return err
	}
	var names []string
	for _, n := range strings.Split(*modelList, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if strings.ContainsAny(n, `/\`) || n == "." || n == ".." {
			return usageErrorf("-model %q: give installed model names, not paths", n)
		}
		names = append(names, n)
	}
	if *app && !webapp.Built() {
		return errNoApp
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	var st siteStats
	if *app {
		if err := writeApp(*out, webapp.FS(), &st); err != nil {
			return err
		}
		if err := st.write(filepath.Join(*out, "_headers"), siteHeaders()); err != nil {
			return err
		}
		x, err := writeORTWeb(*out, *ortWeb, *webgpu, &st)
		switch {
		case err != nil:
			fmt.Fprintf(env.stderr, "dreval site: warning: onnxruntime-web left out: %v; the page will encode with the pure-Go engine\n", err)
		case x != nil:
			fmt.Fprintf(env.stderr, "dreval site: onnxruntime-web %s in ort/ (%d files)\n", x.Version, len(x.Files))
		}
	}
	sm := newServeModels(*models, eng, *ortLib, *cacheDir)
	sm.note = func(msg string) { fmt.Fprintf(env.stderr, "dreval site: %s\n", msg) }
	var demo []modelfiles.File // the demo vectors written, for the index
	var optimized []string     // models whose model.onnx was optimized offline
	for _, name := range names {
		opt, err := writeModelFiles(*out, *models, name, *weights, *ortLib, sm.note, &st)
		if err != nil {
			return err
		}
		if opt {
			optimized = append(optimized, name)
		}
		d, err := sm.demo(context.Background(), name)
		if err != nil {
			return err
		}
		// modelfiles.DemoFiles's order: the corpus's description and
		// matrix, the queries'.
		files := modelfiles.DemoFiles(name)
		for i, b := range [][]byte{d.Meta, d.NPY, d.QueryMeta, d.QueryNPY} {
			f := files[i]
			if err := st.write(filepath.Join(*out, filepath.FromSlash(modelfiles.DemoDir), f), b); err != nil {
				return err
			}
			demo = append(demo, modelfiles.File{Path: f, Size: int64(len(b))})
		}
	}
	if err := writeModelIndex(*out, demo, optimized, &st); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "wrote %d files (%.1f MiB) to %s\n", st.files, float64(st.bytes)/(1<<20), *out)
	return nil
}

type siteStats struct {
	files int
	bytes int64
}

// wrote counts the file p written by another (ort.Optimize).
func (s *siteStats) wrote(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	s.files++
	s.bytes += fi.Size()
	return nil
}

func (s *siteStats) write(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return err
	}
	s.files++
	s.bytes += int64(len(b))
	return nil
}

// writeApp copies the app's files to out and adds wasm_exec.js from the
// Go installation when the app does not carry it. The app goes as
// app.wasm.gz alone, which the page fetches and decompresses on any host
// (loader.js): an app.wasm beside it, 10 MB the page never loads, is not
// written.
func writeApp(out string, app fs.FS, st *siteStats) error {
	err := fs.WalkDir(app, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(app, p)
		if err != nil {
			return err
		}
		return st.write(filepath.Join(out, filepath.FromSlash(p)), b)
	})
	if err != nil {
		return err
	}
	if _, err := fs.Stat(app, "wasm_exec.js"); err == nil {
		return nil
	}
	src, err := wasmExecJS()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return st.write(filepath.Join(out, "wasm_exec.js"), b)
}

// wasmExecJS finds the wasm_exec.js of the Go that built this binary:
// $(go env GOROOT)/lib/wasm/wasm_exec.js when "go env GOVERSION" matches.
func wasmExecJS() (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("wasm_exec.js is not built into this binary and no Go installation is on PATH to copy it from; run make wasm && make build")
	}
	outb, err := exec.Command(goBin, "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT GOVERSION: %w", err)
	}
	lines := strings.Fields(string(outb))
	if len(lines) != 2 {
		return "", fmt.Errorf("go env GOROOT GOVERSION printed %q", outb)
	}
	if lines[1] != runtime.Version() {
		return "", fmt.Errorf("wasm_exec.js is not built into this binary, and the Go on PATH (%s) is not the one that built it (%s): the two must match; run make wasm && make build", lines[1], runtime.Version())
	}
	p := filepath.Join(lines[0], "lib", "wasm", "wasm_exec.js")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("wasm_exec.js is not built into this binary and %w", err)
	}
	return p, nil
}

// writeModelFiles copies the files of model name that loading it reads
// (modelfiles.ToLoad: not a README) and, with the weights, its model.onnx
// (the graph onnxruntime-web runs in the page, writeGraph) to
// out/models/name/; without weights, only its settings. It reports
// whether it wrote the graph optimized.
func writeModelFiles(out, modelsDir, name string, weights bool, ortLib string, note func(string), st *siteStats) (optimized bool, err error) {
	dir := filepath.Join(modelsDir, name)
	if _, err := os.Stat(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("model %q is not installed in %s; run \"dreval model get %s\"", name, modelsDir, name)
		}
		return false, err
	}
	// Read through the models folder's root: a file, or the model's
	// folder, linked from outside it is refused, not copied.
	fsys, err := serve.DirFS(modelsDir)
	if err != nil {
		return false, err
	}
	if _, err := fs.Stat(fsys, name); err != nil {
		return false, fmt.Errorf("model %q in %s: not copied: %w", name, modelsDir, err)
	}
	files, err := modelfiles.LoadFiles(modelfiles.OSDir(dir))
	if err != nil {
		return false, err
	}
	have := map[string]bool{}
	for _, n := range files {
		if n == modelfiles.ONNX || !weights && (path.Ext(n) == ".safetensors" || path.Base(n) == modelfiles.PyTorch) {
			continue // the graph: below
		}
		b, err := fs.ReadFile(fsys, path.Join(name, n))
		if err != nil {
			return false, fmt.Errorf("model %q in %s: not copied: %w", name, modelsDir, err)
		}
		if err := st.write(filepath.Join(out, "models", name, filepath.FromSlash(n)), b); err != nil {
			return false, err
		}
		have[n] = true
	}
	if !have["config.json"] && !have[modelfiles.ManifestFile] {
		return false, fmt.Errorf("model %q in %s has no config.json nor %s", name, dir, modelfiles.ManifestFile)
	}
	// The graph the ort engines run, beside the weights it was exported
	// from: the page's onnxruntime-web fetches it instead of building it
	// from the weights in a worker.
	if !weights {
		return false, nil
	}
	onnx := filepath.Join(dir, modelfiles.ONNX)
	if _, err := os.Lstat(onnx); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if _, err := fs.Stat(fsys, path.Join(name, modelfiles.ONNX)); err != nil {
		return false, fmt.Errorf("model %q in %s: not copied: %w", name, modelsDir, err)
	}
	return writeGraph(onnx, filepath.Join(out, "models", name, modelfiles.ONNX), ortLib, note, st)
}

// writeGraph writes the graph src to dst as ONNX Runtime (the library
// lib) optimizes it offline (ort.Optimize), which the page's
// onnxruntime-web opens with its own optimizations off (the index says
// so: modelfiles.File.Optimized): a MiniLM session 0.17 s sooner, for the
// same products. Where it cannot (no ONNX Runtime, a graph with external
// data), it copies src and says why (note), and reports false.
func writeGraph(src, dst, lib string, note func(string), st *siteStats) (optimized bool, err error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return false, err
	}
	err = ort.Optimize(src, dst, lib)
	if err == nil {
		return true, st.wrote(dst)
	}
	note(fmt.Sprintf("%s copied as it is, not optimized for onnxruntime-web: %v", src, err))
	b, err := os.ReadFile(src)
	if err != nil {
		return false, err
	}
	return false, st.write(dst, b)
}

// writeModelIndex writes out/models/index.json, the list of the models
// copied and their files (modelfiles.Index; the weights' SHA-256 too) with the files the page
// preloads, as "dreval serve" serves it, and demo, the demo vectors
// written under out/data/demo (Index.Demo, which "dreval serve" leaves
// empty: it computes them when asked); the graphs of the models named
// in optimized are marked optimized offline (File.Optimized).
func writeModelIndex(out string, demo []modelfiles.File, optimized []string, st *siteStats) error {
	models := os.DirFS(filepath.Join(out, "models"))
	x, err := modelfiles.IndexFS(models)
	if errors.Is(err, fs.ErrNotExist) {
		x, err = &modelfiles.Index{Models: []modelfiles.Model{}}, nil
	}
	if err != nil {
		return err
	}
	// The weights' digests: the page fetches weights only when its
	// engine reads them (modelfiles.File.SHA256).
	if err := x.SetDigests(models, nil); err != nil {
		return err
	}
	for _, name := range optimized {
		if m := x.Model(name); m != nil {
			m.SetOptimized(modelfiles.ONNX, ort.OptimizedLevel)
		}
	}
	// The page asks for a listed .npy with its .json and preloads the
	// opening model's.
	x.Demo = demo
	x.SetPreload(modelfiles.LessonModel) // fetched by the page with the app
	b, err := json.Marshal(x)
	if err != nil {
		return err
	}
	return st.write(filepath.Join(out, "models", modelfiles.IndexFile), b)
}
