//go:build !js

package e2e

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/serve"
)

// ortWebDir returns the onnxruntime-web folder scripts/setup-ort-web.sh
// installs, skipping t (failing it under CI) when it is not installed.
func ortWebDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("DREVAL_ORT_WEB")
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(c, "dreval", "ort-web")
	}
	if _, err := serve.ReadORTIndex(os.DirFS(dir)); err != nil {
		msg := fmt.Sprintf("onnxruntime-web is not installed in %s (%v); run scripts/setup-ort-web.sh", dir, err)
		if sharedtest.InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// ortLib returns the native ONNX Runtime library, skipping t (failing it
// under CI) when it cannot be loaded.
func ortLib(t testing.TB) string {
	t.Helper()
	c, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	p := ort.DefaultLibPath(c)
	if err := ort.Available(p); err != nil {
		msg := fmt.Sprintf("ONNX Runtime cannot be loaded from %s (%v); run scripts/setup-ort.sh", p, err)
		if sharedtest.InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

var (
	drevalOnce sync.Once
	drevalBin  string
	drevalErr  error

	ortSiteOnce sync.Once
	ortSiteDir  string
	ortSiteErr  error
)

// dreval builds the dreval command once (with the browser app of
// webapp/static: scripts/wasm-build.sh builds it) and returns its path.
func dreval(t testing.TB) string {
	t.Helper()
	drevalOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dreval-e2e-bin-")
		if err != nil {
			drevalErr = err
			return
		}
		drevalBin = filepath.Join(dir, "dreval")
		build := exec.Command("go", "build", "-o", drevalBin, "./cmd/dreval")
		build.Dir = sharedtest.Root()
		if out, err := build.CombinedOutput(); err != nil {
			drevalErr = fmt.Errorf("building dreval: %v\n%s", err, out)
		}
	})
	if drevalErr != nil {
		t.Fatal(drevalErr)
	}
	return drevalBin
}

// ortSite is what "dreval site -model minilm" writes with the installed
// models and onnxruntime-web: the app, models/minilm, the demo's
// precomputed MiniLM vectors (data/demo/, native ONNX Runtime),
// onnxruntime-web under ort/ with its index, and _headers.
func ortSite(t testing.TB) string {
	t.Helper()
	sharedtest.ModelDir(t, "minilm")
	web, bin := ortWebDir(t), dreval(t)
	ortSiteOnce.Do(func() {
		ortSiteDir, ortSiteErr = os.MkdirTemp("", "dreval-e2e-ortsite-")
		if ortSiteErr != nil {
			return
		}
		cmd := exec.Command(bin, "site", "-out", ortSiteDir, "-model", "minilm", "-models", sharedtest.ModelsDir(), "-ort-web", web)
		if out, err := cmd.CombinedOutput(); err != nil {
			ortSiteErr = fmt.Errorf("dreval site: %v\n%s", err, out)
		}
	})
	if ortSiteErr != nil {
		t.Fatal(ortSiteErr)
	}
	return ortSiteDir
}

// staticHost is a plain file server over dir, sending the COOP/COEP
// headers of the site's _headers when isolated (a host that reads
// _headers), none otherwise (one that does not).
func staticHost(dir string, isolated bool) http.Handler {
	fsrv := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isolated {
			for k, v := range serve.IsolationHeaders {
				w.Header().Set(k, v)
			}
		}
		fsrv.ServeHTTP(w, r)
	})
}

// nativeRunWith is nativeRun with engine (go or ort) and the ONNX Runtime
// library lib.
func nativeRunWith(t testing.TB, model, eng, lib string, rate float64, seeds int) *results.Results {
	t.Helper()
	res, err := experiment.Run(context.Background(), experiment.Config{
		Data:         []string{"demo"},
		Models:       []string{model},
		Registry:     experiment.DefaultRegistry(),
		ModelOptions: experiment.ModelOptions{Engine: experiment.Engine(eng), ModelsDir: sharedtest.ModelsDir(), OrtLibrary: lib},
		Rates:        []float64{0, rate},
		Seeds:        seeds,
		FirstSeed:    1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// perturbedOnly returns how many query sequences a demo run of MiniLM
// at rate (and 0) with seeds seeds from 1 searches that are not the
// clean text's ids of a demo query: what the page encodes when the clean
// queries' vectors come precomputed.
func perturbedOnly(t testing.TB, lib string, rate float64, seeds int) int {
	t.Helper()
	_, n := querySequences(t, lib, rate, seeds)
	return n
}

// querySequences returns how many distinct query sequences that run
// searches, and how many of them are not a demo query's clean ids
// (perturbedOnly).
func querySequences(t testing.TB, lib string, rate float64, seeds int) (all, perturbed int) {
	t.Helper()
	cfg := experiment.Config{
		Data:         []string{"demo"},
		Models:       []string{"minilm"},
		Registry:     experiment.DefaultRegistry(),
		ModelOptions: experiment.ModelOptions{Engine: experiment.EngineORT, ModelsDir: sharedtest.ModelsDir(), OrtLibrary: lib},
		Rates:        []float64{0, rate},
		Seeds:        seeds,
		FirstSeed:    1,
	}
	m, err := cfg.Registry.Open(context.Background(), "minilm", cfg.ModelOptions)
	if err != nil {
		t.Fatal(err)
	}
	if m.Close != nil {
		defer m.Close()
	}
	c, err := dataset.Load("demo", "test")
	if err != nil {
		t.Fatal(err)
	}
	seqs, err := experiment.QuerySequences(cfg, c, m)
	if err != nil {
		t.Fatal(err)
	}
	clean := map[string]bool{}
	for _, q := range c.Queries {
		clean[experiment.QueryKey(m.Query.Tokenizer.EncodeIDs(q.Text))] = true
	}
	n := 0
	for _, s := range seqs {
		if !clean[experiment.QueryKey(s)] {
			n++
		}
	}
	return len(seqs), n
}

// encodedLine matches the status line's "N texts encoded at R texts/s
// (ENGINE)".
var encodedLine = regexp.MustCompile(`(\d+) texts encoded at ([0-9.]+) texts/s \(([^)]*)\)`)

// runDemo runs the demo with model at rate 0.1, seed 1 (TREC measures
// shown) under the page's Engine setting eng and returns how long the
// run took and the status line.
func runDemo(t testing.TB, ctx context.Context, model, eng string, n int) (time.Duration, string) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`(() => { document.getElementById("model").value = %q; document.getElementById("engine").value = %q; document.getElementById("seeds").value = "1"; document.getElementById("first-seed").value = "1"; document.getElementById("trec").checked = true; return true; })()`, model, eng))
	setRate(t, ctx, 10, "input")
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, n, 10*time.Minute)
	took := time.Since(start)
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the page shows an error: %s", msg)
	}
	return took, eval[string](t, ctx, `document.getElementById("status").textContent`)
}

// TestORTWebDemoMatchesNativeORT runs the demo with MiniLM on
// onnxruntime-web (the page's default where the site serves it) from a
// static host that sends COOP/COEP: the table equals "dreval eval -engine
// ort" to 4 decimals, the status line names the engine, its workers and
// its threads (more than one: the page is cross-origin isolated), and the
// note under the Engine setting says where it ran.
func TestORTWebDemoMatchesNativeORT(t *testing.T) {
	sharedtest.ModelDir(t, "minilm")
	lib := ortLib(t)
	var mu sync.Mutex
	var weights []string // the requests for minilm's weights
	host := staticHost(ortSite(t), true)
	ctx, url := browser(t, 15*time.Minute, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/models/minilm/") && modelfiles.IsWeights(r.URL.Path) {
			mu.Lock()
			weights = append(weights, r.URL.Path)
			mu.Unlock()
		}
		host.ServeHTTP(w, r)
	}))
	load(t, ctx, url)
	if !eval[bool](t, ctx, `self.crossOriginIsolated`) {
		t.Fatal("the page is not cross-origin isolated under COOP/COEP")
	}
	took, status := runDemo(t, ctx, "minilm", "auto", 1)
	t.Logf("demo with minilm on onnxruntime-web, rate 0.1, seed 1: %v; status %q", took, status)
	m := encodedLine.FindStringSubmatch(status)
	if m == nil {
		t.Fatalf("the status line %q does not say \"N texts encoded at R texts/s (ENGINE)\"", status)
	}
	workers := eval[int](t, ctx, `state.pool.size`)
	threads := regexp.MustCompile(`^ort-web wasm, (\d+) workers?, (\d+) threads?`).FindStringSubmatch(m[3])
	if threads == nil {
		t.Fatalf("engine %q: want \"ort-web wasm, N workers, T threads…\"", m[3])
	}
	if w, _ := strconv.Atoi(threads[1]); w != workers {
		t.Errorf("engine %q names %d workers, the page has %d", m[3], w, workers)
	}
	// The page's cores are shared between its workers: each session gets
	// hardwareConcurrency / workers threads (TestORTWebThreads checks one
	// worker gets them all).
	if th, _ := strconv.Atoi(threads[2]); th != max(1, eval[int](t, ctx, `navigator.hardwareConcurrency`)/workers) {
		t.Errorf("engine %q: %d threads per session, want hardwareConcurrency / workers", m[3], th)
	}
	note := eval[string](t, ctx, `document.getElementById("engine-note").textContent`)
	if !regexp.MustCompile(`onnxruntime-web 1\.30\.0 on WebAssembly \(SIMD, \d+ thread`).MatchString(note) {
		t.Errorf("engine note %q does not say onnxruntime-web on WebAssembly and its threads", note)
	}
	native := nativeRunWith(t, "minilm", "ort", lib, 0.1, 1)
	checkTable(t, eval[[]cell](t, ctx, readTable), native, 0.1, true)
	// The site's precomputed corpus vectors and clean query vectors were
	// used: the page encoded exactly the query sequences a perturbation
	// changed.
	if n, want := atoi(m[1]), perturbedOnly(t, lib, 0.1, 1); n != want || want == 0 {
		t.Errorf("the page encoded %d texts, want the %d perturbed query sequences that differ from the clean ones (note %q)", n, want, note)
	}
	for _, want := range []string{
		"demo documents' vectors came precomputed (data/demo/minilm.npy, engine ort): only the queries were encoded.",
		"demo queries' clean vectors came precomputed (data/demo/minilm.queries.npy, engine ort): only the query sequences a perturbation changed were encoded.",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("engine note %q does not say %q", note, want)
		}
	}
	// The site's model.onnx is ONNX Runtime's offline optimization
	// ("dreval site": ort.Optimize), which the page opens as it is, and
	// says so while the model opens.
	if tl := eval[[]string](t, ctx, `self.drevalTimeline`); !slices.ContainsFunc(tl, func(s string) bool {
		return strings.Contains(s, "the site's models/minilm/model.onnx, optimized offline by ONNX Runtime")
	}) {
		t.Errorf("the page's status lines %q never say it runs the site's model.onnx optimized offline", tl)
	}
	// onnxruntime-web runs the site's model.onnx: the weights beside it,
	// which the fingerprint takes from the index's SHA-256, are not
	// downloaded (43 MB of float16).
	mu.Lock()
	if len(weights) > 0 {
		t.Errorf("the page asked for minilm's weights %v, which onnxruntime-web does not read", weights)
	}
	mu.Unlock()
	screenshot(t, ctx, "demo-minilm-ortweb.png")
}

// TestORTWebThreads: with one worker, onnxruntime-web runs each
// session on every core when the page is cross-origin isolated (COOP/COEP)
// and on one thread when it is not, and the engine text says so.
func TestORTWebThreads(t *testing.T) {
	sharedtest.ModelDir(t, "minilm")
	for _, isolated := range []bool{true, false} {
		t.Run(fmt.Sprintf("isolated=%v", isolated), func(t *testing.T) {
			ctx, url := browser(t, 10*time.Minute, staticHost(ortSite(t), isolated))
			load(t, ctx, url+"?workers=1")
			if got := eval[bool](t, ctx, `self.crossOriginIsolated`); got != isolated {
				t.Fatalf("crossOriginIsolated %v, want %v", got, isolated)
			}
			want := 1
			if isolated {
				want = max(1, eval[int](t, ctx, `navigator.hardwareConcurrency`))
			}
			label := evalAwait[string](t, ctx, `state.pool.request({type: "bench", model: "minilm", engine: "ort-web", n: 4, tokens: 16, batch: 4}).then((a) => a.engine)`)
			if w := fmt.Sprintf("ort-web wasm, 1 worker, %d thread", want); !strings.HasPrefix(label, w) {
				t.Errorf("engine %q, want %q", label, w)
			}
		})
	}
}

// TestORTWebAbsentFallsBack: where the site serves no onnxruntime-web,
// its Engine choices are disabled with the reason, the page says the
// pure-Go engine encodes, and a MiniLM run's status line names it.
func TestORTWebAbsentFallsBack(t *testing.T) {
	sharedtest.ModelDir(t, "minilm")
	ctx, url := browser(t, 15*time.Minute, staticHost(site(t), true))
	load(t, ctx, url)
	waitJS(t, ctx, `document.getElementById("engine-note").textContent !== ""`, 30*time.Second)
	note := eval[string](t, ctx, `document.getElementById("engine-note").textContent`)
	if !regexp.MustCompile(`onnxruntime-web is not available \(this site does not serve onnxruntime-web.*pure-Go engine`).MatchString(note) {
		t.Errorf("engine note %q does not say onnxruntime-web is absent and the pure-Go engine encodes", note)
	}
	if !eval[bool](t, ctx, `document.querySelector("#engine option[value=ort-web]").disabled && document.querySelector("#engine option[value=webgpu]").disabled`) {
		t.Error("the onnxruntime-web choices are enabled on a site without it")
	}
	label := evalAwait[string](t, ctx, `state.pool.request({type: "bench", model: "minilm", n: 2, tokens: 8, batch: 2}).then((a) => a.engine)`)
	if label != "go, 1 worker" {
		t.Errorf("engine %q without onnxruntime-web, want \"go, 1 worker\"", label)
	}
}

// TestORTWebWebGPUFallback: asked for WebGPU in a browser without it
// (headless Chromium here has no adapter), the page runs onnxruntime-web
// on WebAssembly and says why.
func TestORTWebWebGPUFallback(t *testing.T) {
	sharedtest.ModelDir(t, "minilm")
	ctx, url := browser(t, 15*time.Minute, staticHost(ortSite(t), true))
	load(t, ctx, url)
	opt := eval[string](t, ctx, `(() => { const o = document.querySelector("#engine option[value=webgpu]"); return (o.disabled ? "disabled: " : "") + o.textContent; })()`)
	if eval[bool](t, ctx, `!!navigator.gpu`) {
		t.Logf("this Chromium has navigator.gpu; WebGPU option: %q", opt)
	} else if !regexp.MustCompile(`^disabled: .*no WebGPU \(navigator\.gpu\)`).MatchString(opt) {
		t.Errorf("WebGPU option %q: want it disabled, saying there is no navigator.gpu", opt)
	}
	// A request for WebGPU all the same falls back to WebAssembly.
	label := evalAwait[string](t, ctx, `state.pool.request({type: "bench", model: "minilm", engine: "webgpu", n: 2, tokens: 8, batch: 2}).then((a) => a.engine)`)
	adapter := evalAwait[bool](t, ctx, `navigator.gpu ? navigator.gpu.requestAdapter().then((a) => !!a, () => false) : Promise.resolve(false)`)
	want := map[bool]string{true: "ort-web webgpu, 1 worker", false: "ort-web wasm, 1 worker, "}[adapter]
	if !strings.HasPrefix(label, want) {
		t.Errorf("engine %q for a WebGPU request (graphics adapter: %v), want %q", label, adapter, want)
	}
	t.Logf("WebGPU request, graphics adapter %v: %q", adapter, label)
}

// TestORTWebEmbeddingsMatchNative embeds texts in the page with
// onnxruntime-web and natively with ONNX Runtime (the same graph):
// cosine >= 0.99999 for every text.
func TestORTWebEmbeddingsMatchNative(t *testing.T) {
	sharedtest.ModelDir(t, "minilm")
	lib := ortLib(t)
	m, err := experiment.DefaultRegistry().Open(context.Background(), "minilm", experiment.ModelOptions{Engine: "ort", ModelsDir: sharedtest.ModelsDir(), OrtLibrary: lib})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if m.Close != nil {
			m.Close()
		}
	}()
	texts := []string{
		"how do I repot a snake plant",
		"what is dense retrieval?",
		"The 14 bus runs every ten minutes from the station to the museum quarter, and later every half hour until midnight.",
		"a",
		"experimental investigation of the aerodynamics of a wing in a slipstream",
		"tokenizer poisoning shifts ids",
	}
	var ids [][]int32
	for _, s := range texts {
		ids = append(ids, m.Document.Tokenizer.EncodeIDs(s))
	}
	want, err := m.Document.Embedder.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	ctx, url := browser(t, 10*time.Minute, staticHost(ortSite(t), true))
	load(t, ctx, url)
	got := pageEmbed(t, ctx, "minilm", ids, m.Document.Embedder.Dim())
	worst := 1.0
	for i, w := range want {
		c := cosine(w, got[i])
		worst = math.Min(worst, c)
		if c < 0.99999 {
			t.Errorf("text %d (%q): cosine %.7f between onnxruntime-web and native ONNX Runtime", i, texts[i], c)
		}
	}
	t.Logf("MiniLM, %d texts: worst cosine onnxruntime-web vs native ONNX Runtime %.8f (1 - cos = %.2g)", len(texts), worst, 1-worst)
}

// pageEmbed embeds the id sequences ids with model in the page's first
// worker on onnxruntime-web (its document tower) and returns one vector
// of dim values per sequence; another answer fails t.
func pageEmbed(t *testing.T, ctx context.Context, model string, ids [][]int32, dim int) [][]float64 {
	t.Helper()
	var data, lens []byte
	for _, s := range ids {
		lens = binary.LittleEndian.AppendUint32(lens, uint32(len(s)))
		for _, id := range s {
			data = binary.LittleEndian.AppendUint32(data, uint32(id))
		}
	}
	js := fmt.Sprintf(`state.pool.request({type: "embed", model: %q, engine: "ort-web", side: "document", data: new Uint8Array(%s), lens: new Uint8Array(%s)}).then((a) => ({dim: a.dim, data: Array.from(new Float32Array(a.data.buffer, a.data.byteOffset, a.data.byteLength / 4))}))`, model, byteArray(data), byteArray(lens))
	got := evalAwait[struct {
		Dim  int       `json:"dim"`
		Data []float64 `json:"data"`
	}](t, ctx, js)
	if got.Dim != dim || len(got.Data) != dim*len(ids) {
		t.Fatalf("the page answered %d values of dim %d, want %d of %d", len(got.Data), got.Dim, dim*len(ids), dim)
	}
	out := make([][]float64, len(ids))
	for i := range out {
		out[i] = got.Data[i*dim : (i+1)*dim]
	}
	return out
}

// cosine returns the cosine of vectors a and b (of one length).
func cosine[A, B float32 | float64](a []A, b []B) float64 {
	var dot, na, nb float64
	for j := range a {
		x, y := float64(a[j]), float64(b[j])
		dot += x * y
		na += x * x
		nb += y * y
	}
	return dot / math.Sqrt(na*nb)
}

// evalAwait evaluates js, a promise, and returns its value.
func evalAwait[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// byteArray writes b as a JavaScript array literal.
func byteArray(b []byte) string {
	out, _ := json.Marshal(func() []int {
		v := make([]int, len(b))
		for i, x := range b {
			v[i] = int(x)
		}
		return v
	}())
	return string(out)
}

// startServe builds the dreval command and runs "dreval serve" on a free
// loopback port with the installed models, onnxruntime-web and the
// default engine and embedding cache; it returns the server's URL.
func startServe(t testing.TB) *url.URL {
	t.Helper()
	cmd := exec.Command(dreval(t), "serve", "-addr", "127.0.0.1:0", "-models", sharedtest.ModelsDir(), "-ort-web", ortWebDir(t))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	found := make(chan string, 1)
	var logs strings.Builder
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`dreval serve: (http://127\.0\.0\.1:\d+)/`)
		for sc.Scan() {
			mu.Lock()
			logs.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		t.Logf("dreval serve:\n%s", logs.String())
	})
	select {
	case u := <-found:
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		return p
	case <-time.After(time.Minute):
		t.Fatal("dreval serve did not start within a minute")
	}
	return nil
}

// TestServeEncodesByDefault runs the MiniLM demo against a default
// "dreval serve" (ONNX Runtime): the page encodes its queries on the
// server, says so in words, and its table equals "dreval eval -engine
// ort" to 4 decimals, as the same run on onnxruntime-web in the page
// does (TestORTWebDemoMatchesNativeORT).
func TestServeEncodesByDefault(t *testing.T) {
	sharedtest.ModelDir(t, "minilm")
	lib := ortLib(t)
	var count encodeCounter
	h := count.wrap(httputil.NewSingleHostReverseProxy(startServe(t)))
	ctx, u := browser(t, 15*time.Minute, h)
	load(t, ctx, u)
	if !eval[bool](t, ctx, `self.crossOriginIsolated`) {
		t.Error("the page is not cross-origin isolated under dreval serve")
	}
	took, status := runDemo(t, ctx, "minilm", "auto", 1)
	note := eval[string](t, ctx, `document.getElementById("engine-note").textContent`)
	t.Logf("demo with minilm against dreval serve: %v; status %q; note %q", took, status, note)
	if !strings.Contains(note, "Encoding on the server (ONNX Runtime)") {
		t.Errorf("engine note %q does not say the server encodes with ONNX Runtime", note)
	}
	if m := encodedLine.FindStringSubmatch(status); m == nil || m[3] != "the server's ONNX Runtime" {
		t.Errorf("status %q: want \"N texts encoded at R texts/s (the server's ONNX Runtime)\"", status)
	}
	count.mu.Lock()
	t.Logf("/api/encode: %d requests, %d answered, %d sequences", count.requests, count.ok, count.sequences)
	if count.sequences == 0 {
		t.Error("the server encoded nothing")
	}
	count.mu.Unlock()
	checkTable(t, eval[[]cell](t, ctx, readTable), nativeRunWith(t, "minilm", "ort", lib, 0.1, 1), 0.1, true)
}

// atoi is strconv.Atoi of a number the page wrote, -1 when it is not one.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// TestORTWebPrefetch: a run with MiniLM on onnxruntime-web from a static
// host starts downloading onnxruntime-web and the site's model.onnx at
// once, while the model's own files (the tokenizer the Go side opens the
// model with) still download, not after the model is open: the host
// holds tokenizer.json back until model.onnx is asked for. Each file is
// downloaded once for all the workers, and the weights not at all
// (onnxruntime-web runs model.onnx; the index lists their SHA-256).
func TestORTWebPrefetch(t *testing.T) {
	sharedtest.ModelDir(t, "minilm")
	site := ortSite(t)
	var (
		mu        sync.Mutex
		counts    = map[string]int{}
		armed     bool
		held      bool // tokenizer.json asked for after the click, held until model.onnx was asked
		timedOut  bool
		onnxOnce  sync.Once
		onnxAsked = make(chan struct{})
	)
	files := staticHost(site, true)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		mu.Lock()
		counts[p]++
		gate := armed && p == "/models/minilm/tokenizer.json"
		mu.Unlock()
		if strings.HasSuffix(p, "/model.onnx") {
			onnxOnce.Do(func() { close(onnxAsked) })
		}
		if gate {
			select {
			case <-onnxAsked:
				mu.Lock()
				held = true
				mu.Unlock()
			case <-time.After(60 * time.Second):
				mu.Lock()
				timedOut = true
				mu.Unlock()
			}
		}
		files.ServeHTTP(w, r)
	})
	ctx, url := browser(t, 10*time.Minute, h)
	load(t, ctx, url)
	mu.Lock()
	armed = true
	preloaded := counts["/models/minilm/tokenizer.json"] > 0
	mu.Unlock()
	_, status := runDemo(t, ctx, "minilm", "auto", 1)
	if encodedLine.FindStringSubmatch(status) == nil || !strings.Contains(status, "ort-web wasm") {
		t.Fatalf("status %q: want texts encoded on onnxruntime-web", status)
	}
	mu.Lock()
	defer mu.Unlock()
	switch {
	case timedOut:
		t.Error("model.onnx was not asked for while tokenizer.json was held back (60 s): onnxruntime-web's files wait for the model to open")
	case preloaded:
		t.Log("minilm's tokenizer.json was fetched before the run (preloaded with the page): the order is not checked")
	case !held:
		t.Errorf("minilm's tokenizer.json was not asked for after the click (requests: %v)", counts)
	}
	if n := counts["/models/minilm/model.fp16.safetensors"]; n != 0 {
		t.Errorf("the weights were requested %d times; onnxruntime-web does not read them", n)
	}
	for _, p := range []string{"/models/minilm/model.onnx", "/ort/ort-wasm-simd-threaded.wasm"} {
		if counts[p] != 1 {
			t.Errorf("%s was requested %d times, want once for every worker", p, counts[p])
		}
	}
}

// TestPageHashesOnlyCheckedFiles: the page computes a file's SHA-256
// (crypto.subtle.digest, recorded here by the length of each input) only
// for a worker that checks it: a model's files, which the fingerprints
// cover, are hashed, and neither the served model.onnx (87 MB) nor
// onnxruntime-web's binary (14 MB), which no one checks, is hashed, on a
// MiniLM run on onnxruntime-web.
func TestPageHashesOnlyCheckedFiles(t *testing.T) {
	site := ortSite(t)
	var x modelfiles.Index
	b, err := os.ReadFile(filepath.Join(site, "models", modelfiles.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	m := x.Model("minilm")
	if m == nil {
		t.Fatal("the site's model index does not list minilm")
	}
	size := func(p string) int64 {
		st, err := os.Stat(filepath.Join(site, p))
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	checked := m.Size("tokenizer.json")
	unchecked := map[int64]string{
		size("models/minilm/" + modelfiles.ONNX): "the served model.onnx",
		size("ort/ort-wasm-simd-threaded.wasm"):  "onnxruntime-web's binary",
	}
	ctx, url := browser(t, 10*time.Minute, staticHost(site, true))
	record := `(() => {
  const digest = crypto.subtle.digest.bind(crypto.subtle);
  self.drevalDigested = [];
  crypto.subtle.digest = (alg, data) => { self.drevalDigested.push(data.byteLength); return digest(alg, data); };
})();`
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: record})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	load(t, ctx, url)
	_, status := runDemo(t, ctx, "minilm", "auto", 1)
	if !strings.Contains(status, "ort-web wasm") {
		t.Fatalf("status %q: want texts encoded on onnxruntime-web", status)
	}
	digested := eval[[]int64](t, ctx, `self.drevalDigested`)
	if !slices.Contains(digested, checked) {
		t.Errorf("no digest of minilm's tokenizer.json (%d bytes) among the page's digests %v: the fingerprints' files are to be hashed by the page", checked, digested)
	}
	for _, n := range digested {
		if what, ok := unchecked[n]; ok {
			t.Errorf("the page hashed %s (%d bytes), which no worker checks", what, n)
		}
	}
}

// TestModelWarmedOnSelect: choosing MiniLM in the form (a change event,
// as a user's choice fires) starts its downloads in the workers before
// Run is clicked: the graph and onnxruntime-web's binary are asked for
// without a run, and the run that follows asks for neither again.
func TestModelWarmedOnSelect(t *testing.T) {
	sharedtest.ModelDir(t, "minilm")
	var (
		mu     sync.Mutex
		counts = map[string]int{}
	)
	files := staticHost(ortSite(t), true)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		counts[r.URL.Path]++
		mu.Unlock()
		files.ServeHTTP(w, r)
	})
	asked := func(p string) int {
		mu.Lock()
		defer mu.Unlock()
		return counts[p]
	}
	ctx, url := browser(t, 10*time.Minute, h)
	load(t, ctx, url)
	const graph, runtime = "/models/minilm/model.onnx", "/ort/ort-wasm-simd-threaded.wasm"
	if asked(graph) != 0 {
		t.Fatalf("%s was asked for before MiniLM was chosen", graph)
	}
	eval[bool](t, ctx, `(() => { const s = document.getElementById("model"); s.value = "minilm"; s.dispatchEvent(new Event("change")); return true; })()`)
	deadline := time.Now().Add(60 * time.Second)
	for (asked(graph) == 0 || asked(runtime) == 0) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if asked(graph) == 0 || asked(runtime) == 0 {
		t.Fatalf("choosing MiniLM did not start its downloads within 60 s (%s: %d, %s: %d)", graph, asked(graph), runtime, asked(runtime))
	}
	if runs := eval[string](t, ctx, `document.body.dataset.runs || ""`); runs != "" {
		t.Fatalf("a run started (%s) without a click on Run", runs)
	}
	_, status := runDemo(t, ctx, "minilm", "auto", 1)
	if !strings.Contains(status, "ort-web wasm") {
		t.Fatalf("status %q: want texts encoded on onnxruntime-web", status)
	}
	for _, p := range []string{graph, runtime} {
		if n := asked(p); n != 1 {
			t.Errorf("%s was requested %d times, want once: the run uses what the choice fetched", p, n)
		}
	}
}

// TestORTWebDemoQueryVectorsRefused: a site whose precomputed demo query
// vectors claim another tokenizer (their tokenizer fingerprint edited) has
// them refused: the note says why, every query sequence is encoded, and
// the table still equals "dreval eval -engine ort" to 4 decimals.
func TestORTWebDemoQueryVectorsRefused(t *testing.T) {
	sharedtest.ModelDir(t, "minilm")
	lib := ortLib(t)
	site := ortSite(t)
	files := staticHost(site, true)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/data/demo/minilm.queries.json" {
			files.ServeHTTP(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join(site, "data/demo/minilm.queries.json"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		var meta map[string]any
		if err := json.Unmarshal(b, &meta); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		meta["tokenizer_fingerprint"] = "tampered"
		for k, v := range serve.IsolationHeaders {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(meta)
	})
	ctx, url := browser(t, 15*time.Minute, h)
	load(t, ctx, url)
	_, status := runDemo(t, ctx, "minilm", "auto", 1)
	note := eval[string](t, ctx, `document.getElementById("engine-note").textContent`)
	m := encodedLine.FindStringSubmatch(status)
	if m == nil {
		t.Fatalf("the status line %q does not say \"N texts encoded at R texts/s (ENGINE)\"", status)
	}
	if !strings.Contains(note, "The site's precomputed demo query vectors of minilm are not used: they were made with another tokenizer (tokenizer fingerprint tampered") {
		t.Errorf("engine note %q does not say the tampered query vectors were refused", note)
	}
	if all, _ := querySequences(t, lib, 0.1, 1); atoi(m[1]) != all {
		t.Errorf("the page encoded %s texts, want every one of the %d query sequences", m[1], all)
	}
	checkTable(t, eval[[]cell](t, ctx, readTable), nativeRunWith(t, "minilm", "ort", lib, 0.1, 1), 0.1, true)
}
