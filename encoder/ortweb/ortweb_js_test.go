//go:build js && wasm

package ortweb_test

import (
	"math"
	"os"
	"path/filepath"
	"syscall/js"
	"testing"

	"github.com/dreval/dreval/encoder/ortweb"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/internal/retrievertest"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

// runtime loads the installed onnxruntime-web's WebAssembly build (the
// file the browser app loads) under node, one thread, skipping the test
// (failing it under CI) when it is not installed.
func runtime(t *testing.T) *ortweb.Runtime {
	t.Helper()
	dir := os.Getenv("DREVAL_ORT_WEB")
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(c, "dreval", "ort-web")
	}
	script := filepath.Join(dir, "ort.wasm.min.js")
	if _, err := os.Stat(script); err != nil {
		msg := "onnxruntime-web is not installed (" + err.Error() + "); run scripts/setup-ort-web.sh"
		if sharedtest.InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	req := js.Global().Get("require")
	if req.Type() != js.TypeFunction {
		t.Skip("not under node (no require)")
	}
	ort := req.Invoke(script)
	ort.Get("env").Get("wasm").Set("numThreads", 1)
	rt, err := ortweb.NewRuntime(ort, "wasm")
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// agree checks that two sets of embeddings are the same vectors to
// float rounding: cosine >= 0.99999 and norms within 1e-4.
func agree(t *testing.T, what string, got, want [][]float32) float64 {
	t.Helper()
	worst := 1.0
	for i := range want {
		var dot, na, nb float64
		for j := range want[i] {
			dot += float64(got[i][j]) * float64(want[i][j])
			na += float64(got[i][j]) * float64(got[i][j])
			nb += float64(want[i][j]) * float64(want[i][j])
		}
		c := dot / math.Sqrt(na*nb)
		worst = math.Min(worst, c)
		if c < 0.99999 || math.Abs(math.Sqrt(na)-math.Sqrt(nb)) > 1e-4 {
			t.Errorf("%s, sequence %d: cosine %.7f, norms %.6f and %.6f", what, i, c, math.Sqrt(na), math.Sqrt(nb))
		}
	}
	return worst
}

// embedBoth embeds texts of the model in dir with onnxruntime-web (the
// graph BuildGraph gives) and with the pure-Go engine.
func embedBoth(t *testing.T, rt *ortweb.Runtime, dir string, texts []string) (web, ref [][]float32, e *ortweb.Embedder) {
	t.Helper()
	d := modelfiles.OSDir(dir)
	s, err := transformer.ReadSettings(d, transformer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	goEnc, err := transformer.Load(d, transformer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opened := 0
	emb := ortweb.NewEmbedder(s.Config, s.Head, func() (ortweb.Forwarder, error) {
		opened++
		return open(rt, s)
	})
	if emb.Dim() != goEnc.Dim() || emb.VocabSize() != s.Config.VocabSize {
		t.Fatalf("dims %d (go %d), vocab %d", emb.Dim(), goEnc.Dim(), emb.VocabSize())
	}
	if opened != 0 {
		t.Error("the session was opened before the first embedding")
	}
	ids, _ := goEnc.Tokenize(texts)
	ref, err = goEnc.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	emb.BatchSize = 3 // several batches of different widths
	web, err = emb.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := emb.EmbedIDs(ids[:1]); err != nil || opened != 1 || len(again) != 1 {
		t.Errorf("second call: %v, session opened %d times", err, opened)
	}
	return web, ref, emb
}

var texts = []string{
	"how do I repot a snake plant",
	"",
	"The 14 bus runs every ten minutes from the station to the museum quarter, and later every half hour.",
	"a",
	"courgettes got enormous while I was on holiday",
	"what is theraderm used for",
	"difference between a mcdouble and a double cheeseburger",
}

// TestEveryFamily runs tiny checkpoints of every family on
// onnxruntime-web and checks the vectors against the pure-Go engine.
func TestEveryFamily(t *testing.T) {
	rt := runtime(t)
	for _, layout := range []string{"bert", "roberta", "distilbert", "mpnet", "ance-sentence-transformers"} {
		t.Run(layout, func(t *testing.T) {
			dir := t.TempDir()
			retrievertest.Write(t, layout, dir, 11)
			web, ref, emb := embedBoth(t, rt, dir, texts)
			worst := agree(t, layout, web, ref)
			t.Logf("%s: 1 - worst cosine = %.3g", layout, 1-worst)
			if err := emb.Close(); err != nil {
				t.Error(err)
			}
			if _, err := emb.EmbedIDs([][]int32{{0, 1}}); err == nil {
				t.Error("a closed embedder embedded")
			}
		})
	}
}

// TestMiniLM runs the installed all-MiniLM-L6-v2 on onnxruntime-web, from
// the graph exported in memory from its fp16 safetensors as the browser
// does, against the pure-Go engine.
func TestMiniLM(t *testing.T) {
	if testing.Short() {
		t.Skip("loads MiniLM")
	}
	rt := runtime(t)
	dir := sharedtest.ModelDir(t, "minilm")
	// The folder without model.onnx, as the browser receives it.
	tmp := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "model.onnx" {
			if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(tmp, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	web, ref, emb := embedBoth(t, rt, tmp, texts)
	t.Logf("MiniLM on onnxruntime-web %s, %d thread(s): 1 - worst cosine to the pure-Go engine = %.3g", rt.Version, rt.Threads(), 1-agree(t, "minilm", web, ref))
	sess, err := emb.Session()
	if err != nil {
		t.Fatal(err)
	}
	if p := sess.(*ortweb.Session).Plan(); p.Output != "last_hidden_state" || len(p.Inputs) != 3 {
		t.Errorf("plan %+v", p)
	}
}

// open opens a session of the graph BuildGraph gives for s.
func open(rt *ortweb.Runtime, s *transformer.Settings) (ortweb.Forwarder, error) {
	g, err := ortweb.BuildGraph(s, "test")
	if err != nil {
		return nil, err
	}
	sess, err := rt.Open(g.JS(), false)
	if err != nil {
		return nil, err
	}
	return sess, nil
}

// TestOpenErrors: onnxruntime-web refuses bytes that are no graph.
func TestOpenErrors(t *testing.T) {
	if _, err := runtime(t).Open(js.Global().Get("Uint8Array").New(10), false); err == nil {
		t.Error("ten zero bytes opened as a graph")
	}
}
