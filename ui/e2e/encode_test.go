//go:build !js

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/serve"
)

// testEncoder is the encoder "dreval serve" answers /api/encode with
// (experiment.TextEncoder), naming engine as its engine.
type testEncoder struct {
	*experiment.TextEncoder
	engine string
}

func (e testEncoder) Engine() string { return e.engine }

// printedEncoder is a testEncoder that also gives a fingerprint, as
// "dreval serve"'s encoders do (serve.Fingerprinter).
type printedEncoder struct {
	testEncoder
	fingerprint string
}

func (e printedEncoder) Fingerprint() string { return e.fingerprint }

// staticEncoder opens the installed static model as "dreval serve" does.
func staticEncoder(t testing.TB) *experiment.TextEncoder {
	t.Helper()
	m, err := experiment.DefaultRegistry().Open(context.Background(), "static", experiment.ModelOptions{Engine: "go", ModelsDir: sharedtest.ModelsDir()})
	if err != nil {
		t.Fatal(err)
	}
	te, err := experiment.NewTextEncoder(m, "document")
	if err != nil {
		t.Fatal(err)
	}
	return te
}

// withEngine returns the document fingerprint of the installed static
// model opened with engine e.
func withEngine(t testing.TB, e string) string {
	t.Helper()
	m, err := experiment.DefaultRegistry().Open(context.Background(), "static", experiment.ModelOptions{Engine: "go", ModelsDir: sharedtest.ModelsDir()})
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.WithEngine(e)
	if err != nil {
		t.Fatal(err)
	}
	return o.Document.Fingerprint
}

// encodingServer serves the test site as "dreval serve" does, with enc
// answering /api/encode for the model static, and counts the requests.
func encodingServer(t testing.TB, enc serve.Encoder, count *encodeCounter) http.Handler {
	dir := site(t)
	return count.wrap(serve.NewMux(serve.Options{
		Assets: os.DirFS(dir),
		Models: os.DirFS(filepath.Join(dir, "models")),
		Encoder: func(_ context.Context, name, _ string) (serve.Encoder, error) {
			if name != "static" {
				return nil, serve.ErrUnknownModel
			}
			return enc, nil
		},
	}))
}

// encodeCounter counts the /api/encode requests and the sequences of
// those the server answered with 200.
type encodeCounter struct {
	mu        sync.Mutex
	requests  int
	ok        int
	sequences int
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(s int) {
	r.status = s
	r.ResponseWriter.WriteHeader(s)
}

func (c *encodeCounter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/encode" {
			h.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			IDs [][]int32 `json:"ids"`
		}
		json.Unmarshal(body, &req)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.requests++
		if rec.status == http.StatusOK {
			c.ok++
			c.sequences += len(req.IDs)
		}
	})
}

// TestServerEncode runs the demo with the static model against "dreval
// serve"'s handler with an encoder: the app encodes through /api/encode
// whatever engine the server names, as long as the server's model is
// the page's (its fingerprint, when it gives one), and says so in
// words; in the browser when the server's model is another. The table
// equals experiment.Run's numbers either way.
func TestServerEncode(t *testing.T) {
	if _, err := os.Stat(filepath.Join(sharedtest.ModelsDir(), "static", "config.json")); err != nil {
		if sharedtest.InCI() {
			t.Fatalf("the static model is not installed in %s", sharedtest.ModelsDir())
		}
		t.Skipf("the static model is not installed in %s", sharedtest.ModelsDir())
	}
	chromiumPath(t)
	te := staticEncoder(t)
	native := nativeRun(t, "static", 0.1, 1)
	docs := native.Datasets[0].Docs
	for _, tc := range []struct {
		name     string
		enc      serve.Encoder
		onServer bool
		note     string // in the engine note
	}{
		{"same engine", testEncoder{TextEncoder: te, engine: te.Engine()}, true, "Encoding on the server (static token table)"},
		// A server on another engine of the same model: the fingerprint
		// the model has with that engine.
		{"other engine", printedEncoder{testEncoder{TextEncoder: te, engine: "ort"}, withEngine(t, "ort")}, true, "Encoding on the server (ONNX Runtime)"},
		{"same fingerprint", printedEncoder{testEncoder{TextEncoder: te, engine: te.Engine()}, te.Fingerprint()}, true, "Encoding on the server"},
		{"other model", printedEncoder{testEncoder{TextEncoder: te, engine: te.Engine()}, "another-model-0123"}, false, "is another model than the one it serves to this page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var count encodeCounter
			h := encodingServer(t, tc.enc, &count)
			ctx, url := browser(t, 5*time.Minute, h)
			load(t, ctx, url)
			eval[bool](t, ctx, `(() => { document.getElementById("model").value = "static"; document.getElementById("seeds").value = "1"; document.getElementById("first-seed").value = "1"; document.getElementById("trec").checked = true; return true; })()`)
			setRate(t, ctx, 10, "input")
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("run"))); err != nil {
				t.Fatal(err)
			}
			finish(t, ctx, 1, 5*time.Minute)
			if msg := pageError(t, ctx); msg != "" {
				t.Fatalf("the page shows an error: %s", msg)
			}
			checkTable(t, eval[[]cell](t, ctx, readTable), native, 0.1, true)
			if note := eval[string](t, ctx, `document.getElementById("engine-note").textContent`); !strings.Contains(note, tc.note) {
				t.Errorf("engine note %q, want it to say %q", note, tc.note)
			}
			count.mu.Lock()
			defer count.mu.Unlock()
			t.Logf("/api/encode: %d requests, %d answered, %d sequences encoded on the server", count.requests, count.ok, count.sequences)
			if count.requests == 0 {
				t.Fatal("the app never asked /api/encode")
			}
			if tc.onServer && count.sequences < docs {
				t.Errorf("the server encoded %d sequences, fewer than the %d documents of the corpus", count.sequences, docs)
			}
			if !tc.onServer && count.sequences != 0 {
				t.Errorf("the server encoded %d sequences of another model", count.sequences)
			}
		})
	}
}
