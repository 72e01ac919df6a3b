//go:build !js

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/modeltest"
	"github.com/dreval/dreval/internal/retrievertest"
	"github.com/dreval/dreval/internal/sharedtest"
)

// minilmONNXDir returns a model directory "minilm-onnx" holding the
// installed MiniLM's config.json and tokenizer.json and its weights
// exported as model.onnx (no safetensors).
func minilmONNXDir(t testing.TB) string {
	return modeltest.ONNXDir(t, "minilm", append(modeltest.Settings(t, "minilm"), "config.json", "tokenizer.json")...)
}

const (
	uploadError  = `(() => { const e = document.getElementById("model-upload-error"); return e.hidden ? "" : e.textContent; })()`
	uploadStatus = `document.getElementById("model-upload-status").textContent`
)

// demoSubset writes a BEIR folder (corpus.jsonl, queries.jsonl,
// qrels/test.tsv) with the demo's passages of the given topics and the
// queries whose judged passages are all among them, and returns it: the
// topics food and skin make 100 passages and 14 queries, few enough for
// MiniLM in wasm, which takes minutes per worker for the whole demo.
func demoSubset(t testing.TB, topics ...string) string {
	t.Helper()
	c, err := dataset.Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "qrels"), 0o755); err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	var corpus, queries, qrels bytes.Buffer
	enc := json.NewEncoder(&corpus)
	for _, d := range c.Corpus {
		topic, _, _ := strings.Cut(d.ID, "-")
		if slices.Contains(topics, topic) {
			kept[d.ID] = true
			if err := enc.Encode(map[string]string{"_id": d.ID, "title": d.Title, "text": d.Text}); err != nil {
				t.Fatal(err)
			}
		}
	}
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	enc = json.NewEncoder(&queries)
	n := 0
	for _, q := range c.Queries {
		docs := slices.Sorted(maps.Keys(c.Qrels[q.ID]))
		if !slices.ContainsFunc(docs, func(id string) bool { return kept[id] }) || slices.ContainsFunc(docs, func(id string) bool { return !kept[id] }) {
			continue
		}
		n++
		if err := enc.Encode(map[string]string{"_id": q.ID, "text": q.Text}); err != nil {
			t.Fatal(err)
		}
		for _, id := range docs {
			fmt.Fprintf(&qrels, "%s\t%s\t%d\n", q.ID, id, c.Qrels[q.ID][id])
		}
	}
	if len(kept) == 0 || n == 0 {
		t.Fatalf("topics %v: %d passages, %d queries", topics, len(kept), n)
	}
	for name, b := range map[string][]byte{"corpus.jsonl": corpus.Bytes(), "queries.jsonl": queries.Bytes(), "qrels/test.tsv": qrels.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestModelUpload uploads MiniLM as model.onnx with its config.json and
// tokenizer.json through the page's file inputs, runs it at rate 0.1, seed
// 1, on the demo's first two topics uploaded as BEIR files (demoSubset),
// and checks the table against the native experiment on the same
// directories ("dreval eval -engine go -data DATA -model DIR"); then a
// corrupt model.onnx and a missing tokenizer.json are reported inline,
// naming the file, and the earlier results stay.
func TestModelUpload(t *testing.T) {
	dir := minilmONNXDir(t)
	data := demoSubset(t, "food", "skin")
	ctx, url := browser(t, 15*time.Minute, fileServer(t))
	load(t, ctx, url)
	workers := eval[int](t, ctx, `state.pool.size`)

	// The files are chosen before the model: the run sends them.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`input[name=data][value=beir]`)),
		chromedp.SetUploadFiles(chromedp.ID("beir-pick"), []string{
			filepath.Join(data, "corpus.jsonl"), filepath.Join(data, "queries.jsonl"), filepath.Join(data, "qrels", "test.tsv")}),
		chromedp.SetUploadFiles(chromedp.ID("model-tokenizer"), []string{filepath.Join(dir, "tokenizer.json")}),
		chromedp.SetUploadFiles(chromedp.ID("model-weights"), []string{filepath.Join(dir, "model.onnx")}),
		chromedp.SetUploadFiles(chromedp.ID("model-config"), []string{filepath.Join(dir, "config.json")}),
		chromedp.SetUploadFiles(chromedp.ID("model-modules"), []string{filepath.Join(dir, "modules.json")}),
		chromedp.SetUploadFiles(chromedp.ID("model-pooling"), []string{filepath.Join(dir, "1_Pooling", "config.json")}),
		chromedp.SetUploadFiles(chromedp.ID("model-sbert"), []string{filepath.Join(dir, "sentence_bert_config.json")}),
		chromedp.SetUploadFiles(chromedp.ID("model-stconfig"), []string{filepath.Join(dir, "config_sentence_transformers.json")}),
	); err != nil {
		t.Fatal(err)
	}
	eval[bool](t, ctx, `(() => { const m = document.getElementById("model"); m.value = "upload"; m.dispatchEvent(new Event("change"));
		document.getElementById("seeds").value = "1"; document.getElementById("first-seed").value = "1"; document.getElementById("trec").checked = true; return true; })()`)
	if eval[bool](t, ctx, `document.getElementById("model-upload").hidden`) {
		t.Error("choosing the upload does not show its file inputs")
	}
	setRate(t, ctx, 10, "input")
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, 12*time.Minute)
	t.Logf("uploaded MiniLM (model.onnx) on the demo's food and skin topics at rate 0.1, seed 1, %d workers: %v in the browser (upload, load and run)", workers, time.Since(start))
	if msg := pageError(t, ctx); msg != "" {
		t.Fatalf("the page shows an error: %s", msg)
	}
	if s := eval[string](t, ctx, uploadStatus); !strings.Contains(s, "as upload-1") || !strings.Contains(s, "384 dimensions") || !strings.Contains(s, "weights model.onnx") {
		t.Errorf("upload status %q", s)
	}
	if got := eval[int](t, ctx, `document.querySelectorAll("#inspector tbody tr").length`); got == 0 {
		t.Error("the inspector is empty")
	}
	native, err := experiment.Run(context.Background(), experiment.Config{
		Data:         []string{data},
		Models:       []string{dir},
		Registry:     experiment.DefaultRegistry(),
		ModelOptions: experiment.ModelOptions{Engine: "go", ModelsDir: sharedtest.ModelsDir()},
		Rates:        []float64{0, 0.1},
		Seeds:        1,
		FirstSeed:    1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, eval[[]cell](t, ctx, readTable), native, 0.1, true)
	screenshot(t, ctx, "model-upload-minilm-onnx.png")
	before := eval[string](t, ctx, `document.getElementById("table").innerHTML`)

	// A corrupt model.onnx (its first half): checked when chosen.
	full, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "model.onnx")
	if err := os.WriteFile(bad, full[:len(full)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.ID("model-weights"), []string{bad})); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 2, 3*time.Minute)
	msg := eval[string](t, ctx, uploadError)
	t.Logf("corrupt model.onnx: %s", msg)
	if !strings.Contains(msg, "model.onnx") || !strings.Contains(msg, "could not be loaded") || strings.Contains(msg, "/models/") {
		t.Errorf("the inline error %q does not name model.onnx in words", msg)
	}
	if after := eval[string](t, ctx, `document.getElementById("table").innerHTML`); after != before {
		t.Error("the earlier results changed after the failed upload")
	}
	// Said once, where the files are chosen; the status line points there.
	if general := pageError(t, ctx); general != "" {
		t.Errorf("the page's error box repeats the inline error: %q", general)
	}
	if s := eval[string](t, ctx, `document.getElementById("status").textContent`); !strings.Contains(s, "see the error under the model's files") {
		t.Errorf("status %q does not point to the inline error", s)
	}
	screenshot(t, ctx, "model-upload-corrupt-onnx.png")

	// No tokenizer.json: refused before anything is sent.
	eval[bool](t, ctx, `(() => { document.getElementById("model-tokenizer").value = ""; return true; })()`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 3, time.Minute)
	if msg := eval[string](t, ctx, uploadError); !strings.Contains(msg, "tokenizer.json is missing") {
		t.Errorf("the inline error %q does not say that tokenizer.json is missing", msg)
	}
	if after := eval[string](t, ctx, `document.getElementById("table").innerHTML`); after != before {
		t.Error("the earlier results changed after the refused upload")
	}
}

// TestModelUploadFolder chooses a model folder (config.json left out: the
// ONNX graph says the configuration) and checks that every worker gets it
// and the first opens it as soon as it is chosen.
func TestModelUploadFolder(t *testing.T) {
	dir := minilmONNXDir(t)
	if err := os.Remove(filepath.Join(dir, "config.json")); err != nil {
		t.Fatal(err)
	}
	for _, srv := range []struct {
		name string
		h    func(testing.TB) http.Handler
	}{{"fileserver", fileServer}, {"serve", serveMux}} {
		t.Run(srv.name, func(t *testing.T) { testModelUploadFolder(t, srv.h(t), dir) })
	}
}

func testModelUploadFolder(t *testing.T, h http.Handler, dir string) {
	ctx, url := browser(t, 5*time.Minute, h)
	load(t, ctx, url)
	eval[bool](t, ctx, `(() => { const m = document.getElementById("model"); m.value = "upload"; m.dispatchEvent(new Event("change")); return true; })()`)
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.ID("model-folder"), []string{dir})); err != nil {
		t.Fatal(err)
	}
	finish(t, ctx, 1, 3*time.Minute)
	if msg := eval[string](t, ctx, uploadError); msg != "" {
		t.Fatalf("the folder upload failed: %s", msg)
	}
	if s := eval[string](t, ctx, uploadStatus); !strings.Contains(s, "from the folder minilm-onnx as upload-1-minilm-onnx:") || !strings.Contains(s, "384 dimensions") {
		t.Errorf("upload status %q", s)
	}
	// Every worker holds the files (helpers embed with the same model).
	n := eval[int](t, ctx, `state.pool.size`)
	dims, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`state.pool.broadcast({type: "model", model: "upload-1-minilm-onnx"}).then((as) => as.map((a) => a.dim))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("opening upload-1-minilm-onnx in every worker: %v", err)
	}
	if len(dims) != n {
		t.Fatalf("%d answers from %d workers", len(dims), n)
	}
	for i, d := range dims {
		if d != 384 {
			t.Errorf("worker %d opened upload-1-minilm-onnx with %d dimensions, want 384", i+1, d)
		}
	}
	screenshot(t, ctx, strings.ReplaceAll(t.Name(), "/", "-")+".png")
}

// TestModelUploadRetrieverLayouts uploads tiny retrievers in their
// published folder layouts (internal/retrievertest) as folders: DPR's two
// towers with vocab.txt tokenizers, and sentence-transformers' ANCE
// (RoBERTa with vocab.json and merges.txt, Dense and LayerNorm module
// folders). The page describes each (towers, heads, score), and its table
// at rate 0.1, seed 1, on two demo topics equals the native experiment's
// on the same folders.
func TestModelUploadRetrieverLayouts(t *testing.T) {
	data := demoSubset(t, "food", "skin")
	for _, c := range []struct{ layout, want string }{
		{"dpr", "2 towers (query: cls (DPR), max 64 tokens; document: cls (DPR), max 64 tokens), score dot product, weights question_encoder/model.safetensors, ctx_encoder/model.safetensors"},
		{"ance-sentence-transformers", "cls, dense 16->16, layernorm 16 (sentence-transformers modules, ANCE), max 48 tokens, score dot product, weights model.safetensors"},
	} {
		t.Run(c.layout, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), c.layout)
			retrievertest.Write(t, c.layout, dir, 3)
			ctx, url := browser(t, 8*time.Minute, fileServer(t))
			load(t, ctx, url)
			if err := chromedp.Do(ctx,
				chromedp.Click(chromedp.CSS(`input[name=data][value=beir]`)),
				chromedp.SetUploadFiles(chromedp.ID("beir-pick"), []string{
					filepath.Join(data, "corpus.jsonl"), filepath.Join(data, "queries.jsonl"), filepath.Join(data, "qrels", "test.tsv")}),
			); err != nil {
				t.Fatal(err)
			}
			eval[bool](t, ctx, `(() => { const m = document.getElementById("model"); m.value = "upload"; m.dispatchEvent(new Event("change"));
				document.getElementById("seeds").value = "1"; document.getElementById("first-seed").value = "1"; document.getElementById("trec").checked = true; return true; })()`)
			if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.ID("model-folder"), []string{dir})); err != nil {
				t.Fatal(err)
			}
			finish(t, ctx, 1, 3*time.Minute)
			if msg := eval[string](t, ctx, uploadError); msg != "" {
				t.Fatalf("the folder upload failed: %s", msg)
			}
			if s := eval[string](t, ctx, uploadStatus); !strings.Contains(s, "16 dimensions, "+c.want+", engine go.") {
				t.Errorf("upload status %q lacks %q", s, c.want)
			}
			setRate(t, ctx, 10, "input")
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
				t.Fatal(err)
			}
			finish(t, ctx, 2, 5*time.Minute)
			if msg := pageError(t, ctx); msg != "" {
				t.Fatalf("the page shows an error: %s", msg)
			}
			native, err := experiment.Run(context.Background(), experiment.Config{
				Data:         []string{data},
				Models:       []string{dir},
				Registry:     experiment.DefaultRegistry(),
				ModelOptions: experiment.ModelOptions{Engine: "go", ModelsDir: sharedtest.ModelsDir()},
				Rates:        []float64{0, 0.1},
				Seeds:        1,
				FirstSeed:    1,
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if m := native.Datasets[0].Models[0]; m.Score != "dot" {
				t.Errorf("native score %q, want dot", m.Score)
			}
			checkTable(t, eval[[]cell](t, ctx, readTable), native, 0.1, true)
			screenshot(t, ctx, "model-upload-"+c.layout+".png")
		})
	}
}
