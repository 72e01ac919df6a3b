//go:build !js

package e2e

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
)

// quantizedMiniLM writes the installed MiniLM in the Transformers.js
// layout with one graph, onnx/model_VARIANT.onnx: the installed
// model.onnx rewritten by "dreval model quantize -mode MODE" (int8:
// model_quantized.onnx; fp16: model_fp16.onnx), beside the installed
// config.json, tokenizer.json and sentence-transformers settings (no
// safetensors). It returns that folder, for the page's upload, and a
// copy with the graph as model.onnx, for "dreval eval -engine ort -model
// DIR" (whose default graph is model.onnx).
func quantizedMiniLM(t testing.TB, mode string) (upload, native string) {
	t.Helper()
	src := sharedtest.ModelDir(t, "minilm")
	variant := map[string]string{"int8": "quantized", "fp16": "fp16"}[mode]
	base := t.TempDir()
	upload, native = filepath.Join(base, "minilm-"+mode), filepath.Join(base, "native-"+mode)
	graph := filepath.Join(upload, "onnx", "model_"+variant+".onnx")
	if err := os.MkdirAll(filepath.Dir(graph), 0o755); err != nil {
		t.Fatal(err)
	}
	q := exec.Command(dreval(t), "model", "quantize", "-mode", mode, filepath.Join(src, "model.onnx"), graph)
	out, err := q.CombinedOutput()
	if err != nil {
		t.Fatalf("dreval model quantize -mode %s: %v\n%s", mode, err, out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
	files := append([]string{"config.json", "tokenizer.json"}, modelSettings(t, src)...)
	for _, dir := range []string{upload, native} {
		for _, f := range files {
			copyInto(t, filepath.Join(src, filepath.FromSlash(f)), filepath.Join(dir, filepath.FromSlash(f)))
		}
	}
	copyInto(t, graph, filepath.Join(native, "model.onnx"))
	return upload, native
}

// modelSettings returns the sentence-transformers settings files of the
// model folder src that it has.
func modelSettings(t testing.TB, src string) []string {
	var out []string
	for _, f := range []string{"modules.json", "1_Pooling/config.json", "sentence_bert_config.json", "config_sentence_transformers.json"} {
		if _, err := os.Stat(filepath.Join(src, filepath.FromSlash(f))); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// copyInto copies the file from to to (a copy, not a link, which a
// browser's folder upload would skip), making its folder.
func copyInto(t testing.TB, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(from, to); err != nil {
		t.Fatal(err)
	}
}

// TestORTWebUploadQuantized uploads MiniLM's int8 and fp16 graphs, made
// at test time by "dreval model quantize" from the installed model.onnx,
// as model folders in the Transformers.js layout (onnx/model_quantized.onnx,
// onnx/model_fp16.onnx), choosing the graph under "ONNX graph", to a site
// serving onnxruntime-web: the page runs them on onnxruntime-web
// (the status line says so), and with Engine "pure Go" the upload is
// refused with the message that points to the ort engine.
//
// fp16: the page's table at rate 0.1, seed 1, on two demo topics equals
// "dreval eval -engine ort" with the same graph to 4 decimals, and its
// embeddings match native ONNX Runtime's at cosine >= 0.99999.
//
// int8: onnxruntime-web and native ONNX Runtime 1.24.1 do not compute
// the same numbers for the graph (measured: cosine 0.9947-0.9983 between
// them), so the tables differ in their last digits; the page's
// embeddings are checked against native ONNX Runtime's on the same graph
// and on the float32 one at cosine >= 0.99 (the quantizer's target).
func TestORTWebUploadQuantized(t *testing.T) {
	sharedtest.ModelDir(t, "minilm")
	lib := ortLib(t)
	data := demoSubset(t, "food", "skin")
	for _, c := range []struct {
		mode, graph, describe string
		// minCos is the least cosine between the page's embeddings and
		// native ONNX Runtime's on the same graph; exact, whether the
		// tables are equal to 4 decimals.
		minCos float64
		exact  bool
	}{
		{"int8", "quantized", "int8-quantized", 0.99, false},
		{"fp16", "fp16", "float16", 0.99999, true},
	} {
		t.Run(c.mode, func(t *testing.T) {
			up, nat := quantizedMiniLM(t, c.mode)
			name := "upload-1-" + filepath.Base(up)
			ctx, url := browser(t, 15*time.Minute, staticHost(ortSite(t), true))
			load(t, ctx, url)
			if err := chromedp.Do(ctx,
				chromedp.Click(chromedp.CSS(`input[name=data][value=beir]`)),
				chromedp.SetUploadFiles(chromedp.ID("beir-pick"), []string{
					filepath.Join(data, "corpus.jsonl"), filepath.Join(data, "queries.jsonl"), filepath.Join(data, "qrels", "test.tsv")}),
			); err != nil {
				t.Fatal(err)
			}
			eval[bool](t, ctx, fmt.Sprintf(`(() => { const m = document.getElementById("model"); m.value = "upload"; m.dispatchEvent(new Event("change"));
				document.getElementById("model-graph").value = %q; document.getElementById("engine").value = "auto";
				document.getElementById("seeds").value = "1"; document.getElementById("first-seed").value = "1"; document.getElementById("trec").checked = true; return true; })()`, c.graph))
			if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.ID("model-folder"), []string{up})); err != nil {
				t.Fatal(err)
			}
			finish(t, ctx, 1, 5*time.Minute)
			if msg := eval[string](t, ctx, uploadError); msg != "" {
				t.Fatalf("the upload of %s failed: %s", filepath.Base(up), msg)
			}
			st := eval[string](t, ctx, uploadStatus)
			t.Logf("upload status: %s", st)
			if !strings.Contains(st, "as "+name+":") || !strings.Contains(st, "384 dimensions") || !strings.Contains(st, "engine ort.") {
				t.Errorf("upload status %q: want %s, 384 dimensions, engine ort", st, name)
			}
			setRate(t, ctx, 10, "input")
			start := time.Now()
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
				t.Fatal(err)
			}
			finish(t, ctx, 2, 10*time.Minute)
			if msg := pageError(t, ctx); msg != "" {
				t.Fatalf("the page shows an error: %s", msg)
			}
			status := eval[string](t, ctx, `document.getElementById("status").textContent`)
			t.Logf("run on the demo's food and skin topics: %v; status %q", time.Since(start), status)
			if m := encodedLine.FindStringSubmatch(status); m == nil || !strings.HasPrefix(m[3], "ort-web wasm, ") {
				t.Errorf("status %q: want \"N texts encoded at R texts/s (ort-web wasm, …)\"", status)
			}
			native, err := experiment.Run(context.Background(), experiment.Config{
				Data:         []string{data},
				Models:       []string{nat},
				Registry:     experiment.DefaultRegistry(),
				ModelOptions: experiment.ModelOptions{Engine: "ort", ModelsDir: sharedtest.ModelsDir(), OrtLibrary: lib},
				Rates:        []float64{0, 0.1},
				Seeds:        1,
				FirstSeed:    1,
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			cells := eval[[]cell](t, ctx, readTable)
			if c.exact {
				checkTable(t, cells, native, 0.1, true)
			} else if len(cells) == 0 {
				t.Error("the page shows no table")
			}
			screenshot(t, ctx, "upload-minilm-"+c.mode+"-ortweb.png")

			checkUploadEmbeddings(t, ctx, name, nat, lib, c.minCos)

			// The pure-Go engine refuses the graph, on the page.
			eval[bool](t, ctx, `(() => { const e = document.getElementById("engine"); e.value = "go"; e.dispatchEvent(new Event("change")); return true; })()`)
			finish(t, ctx, 3, 3*time.Minute)
			msg := eval[string](t, ctx, uploadError)
			t.Logf("pure-Go engine: %s", msg)
			if !strings.Contains(msg, "could not be loaded") || !strings.Contains(msg, "the pure-Go engine cannot run this "+c.describe) || !strings.Contains(msg, "use the ort engine (-engine ort)") {
				t.Errorf("with Engine go, the inline error %q does not refuse the %s graph pointing to the ort engine", msg, c.describe)
			}
			screenshot(t, ctx, "upload-minilm-"+c.mode+"-go-refused.png")
		})
	}
}

// checkUploadEmbeddings embeds texts with the uploaded model name in the
// page (onnxruntime-web) and natively with ONNX Runtime on the model
// folder dir: cosine >= minCos for every text; and against the installed
// float32 MiniLM natively, >= 0.99.
func checkUploadEmbeddings(t *testing.T, ctx context.Context, name, dir, lib string, minCos float64) {
	t.Helper()
	m, err := experiment.DefaultRegistry().Open(context.Background(), dir, experiment.ModelOptions{Engine: "ort", ModelsDir: sharedtest.ModelsDir(), OrtLibrary: lib})
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
		"The 14 bus runs every ten minutes from the station to the museum quarter, and later every half hour until midnight.",
		"a",
		"experimental investigation of the aerodynamics of a wing in a slipstream",
	}
	var ids [][]int32
	for _, s := range texts {
		ids = append(ids, m.Document.Tokenizer.EncodeIDs(s))
	}
	want, err := m.Document.Embedder.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	f32, err := experiment.DefaultRegistry().Open(context.Background(), "minilm", experiment.ModelOptions{Engine: "ort", ModelsDir: sharedtest.ModelsDir(), OrtLibrary: lib})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := f32.Document.Embedder.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	if f32.Close != nil {
		f32.Close()
	}
	got := pageEmbed(t, ctx, name, ids, m.Document.Embedder.Dim())
	worst := 1.0
	for i, w := range want {
		c := cosine(w, got[i])
		worst = math.Min(worst, c)
		pf, nf := cosine(ref[i], got[i]), cosine(ref[i], w)
		t.Logf("text %d: cosine page vs native, same graph %.7f; page vs native float32 %.7f; native vs native float32 %.7f", i, c, pf, nf)
		if c < minCos {
			t.Errorf("text %d (%q): cosine %.7f between onnxruntime-web and native ONNX Runtime on the same graph, want >= %v", i, texts[i], c, minCos)
		}
		if pf < 0.99 {
			t.Errorf("text %d (%q): cosine %.7f between onnxruntime-web's and native ONNX Runtime's float32 embeddings, want >= 0.99", i, texts[i], pf)
		}
	}
	t.Logf("%s, %d texts: worst cosine onnxruntime-web vs native ONNX Runtime on the same graph %.8f (1 - cos = %.2g)", name, len(texts), worst, 1-worst)
}
