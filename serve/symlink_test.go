package serve

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/modelfiles"
)

// symlinkedModels builds a models folder with links of every kind:
// inside it (served), and to a file and a folder outside it, relative
// and absolute (refused). It returns the folder.
func symlinkedModels(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	models := filepath.Join(root, "models")
	outside := filepath.Join(root, "outside")
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	write(filepath.Join(outside, "secret.json"), `{"SECRET": true}`)
	write(filepath.Join(outside, "evildir", "config.json"), `{"SECRET": "dir"}`)
	write(filepath.Join(outside, "evildir", "tokenizer.json"), `{"SECRET": "dir"}`)
	write(filepath.Join(models, "ok", "config.json"), `{"hidden_size": 4}`)
	write(filepath.Join(models, "shared", "tokenizer.json"), `{"model": {}}`)
	link("../shared/tokenizer.json", filepath.Join(models, "ok", "tokenizer.json")) // inside: served
	link("ok", filepath.Join(models, "alias"))                                      // a model folder linked inside: served
	write(filepath.Join(models, "evil", "tokenizer.json"), `{"model": {}}`)
	link("../../outside/secret.json", filepath.Join(models, "evil", "config.json"))
	link(filepath.Join(outside, "secret.json"), filepath.Join(models, "evil", "model.onnx"))
	link(filepath.Join(models, "ok", "config.json"), filepath.Join(models, "evil", "sentence_bert_config.json")) // absolute, even inside: refused
	link("../outside/evildir", filepath.Join(models, "evildir"))
	link(filepath.Join(outside, "evildir"), filepath.Join(models, "absdir"))
	link("config.json", filepath.Join(models, "loop", "config.json")) // a link to itself
	link("nowhere.json", filepath.Join(models, "ok", "model.onnx"))   // dangling: absent
	return models
}

// TestFaultSymlinkedModelFiles: /models/ serves a file reached through
// links only when every link stays inside the models folder; the others
// are 404 and listed nowhere.
func TestFaultSymlinkedModelFiles(t *testing.T) {
	models := symlinkedModels(t)
	for _, name := range []string{"os.DirFS", "DirFS"} {
		t.Run(name, func(t *testing.T) {
			fsys := os.DirFS(models)
			if name == "DirFS" {
				var err error
				if fsys, err = DirFS(models); err != nil {
					t.Fatal(err)
				}
			}
			ts := newTestServer(t, Options{Models: fsys})
			for _, tt := range []struct {
				path   string
				status int
			}{
				{"/models/ok/config.json", http.StatusOK},
				{"/models/ok/tokenizer.json", http.StatusOK},
				{"/models/alias/config.json", http.StatusOK},
				{"/models/evil/tokenizer.json", http.StatusOK},
				{"/models/evil/config.json", http.StatusNotFound},
				{"/models/evil/model.onnx", http.StatusNotFound},
				{"/models/evil/sentence_bert_config.json", http.StatusNotFound},
				{"/models/evildir/config.json", http.StatusNotFound},
				{"/models/evildir/tokenizer.json", http.StatusNotFound},
				{"/models/absdir/config.json", http.StatusNotFound},
				{"/models/loop/config.json", http.StatusNotFound},
			} {
				r := do(t, nil, http.MethodGet, ts.URL+tt.path, nil)
				if r.status != tt.status || strings.Contains(string(r.body), "SECRET") {
					t.Errorf("GET %s: %d %.100s; want %d", tt.path, r.status, r.body, tt.status)
				}
			}
			r := do(t, nil, http.MethodGet, ts.URL+"/models/index.json", nil)
			if r.status != http.StatusOK {
				t.Fatalf("index: %d %s", r.status, r.body)
			}
			var x modelfiles.Index
			if err := json.Unmarshal(r.body, &x); err != nil {
				t.Fatal(err)
			}
			listed := map[string]bool{}
			for _, m := range x.Models {
				for _, f := range m.Files {
					listed[m.Name+"/"+f.Path] = true
				}
			}
			for _, want := range []string{"ok/config.json", "ok/tokenizer.json", "alias/config.json", "evil/tokenizer.json"} {
				if !listed[want] {
					t.Errorf("the index does not list %s: %s", want, r.body)
				}
			}
			for f := range listed {
				if m, _, _ := strings.Cut(f, "/"); m == "evildir" || m == "absdir" || m == "loop" || (m == "evil" && f != "evil/tokenizer.json") {
					t.Errorf("the index lists %s, reached through a link leading outside: %s", f, r.body)
				}
			}
		})
	}
}

var _ fs.FS = os.DirFS(".")
