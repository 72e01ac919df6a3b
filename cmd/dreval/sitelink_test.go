package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFaultSiteSymlinkedModel: "dreval site" copies a model's files
// reached through links only when the links stay inside the models
// folder; a file or a model folder linked from outside is refused with
// an error naming it, and nothing of it is written.
func TestFaultSiteSymlinkedModel(t *testing.T) {
	root := t.TempDir()
	models := filepath.Join(root, "models")
	outside := filepath.Join(root, "outside")
	for p, s := range map[string]string{
		"outside/secret.json":            `{"SECRET": true}`,
		"outside/evildir/config.json":    `{"SECRET": "dir"}`,
		"outside/evildir/tokenizer.json": `{"SECRET": "dir"}`,
		"models/ok/config.json":          `{"hidden_size": 4}`,
		"models/shared/tokenizer.json":   `{"model": {}}`,
		"models/evil/tokenizer.json":     `{"model": {}}`,
	} {
		p = filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"models/ok/tokenizer.json": "../shared/tokenizer.json",
		"models/evil/config.json":  "../../outside/secret.json",
		"models/evildir":           "../outside/evildir",
		"models/absdir":            filepath.Join(outside, "evildir"),
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	out := t.TempDir()
	var st siteStats
	note := func(string) {}
	if _, err := writeModelFiles(out, models, "ok", false, "", note, &st); err != nil {
		t.Fatalf("a model with a link inside the folder: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "models", "ok", "tokenizer.json")); err != nil || string(b) != `{"model": {}}` {
		t.Errorf("ok/tokenizer.json copied as %q, %v", b, err)
	}
	for _, tt := range []struct{ model, want string }{
		{"evil", "config.json"},
		{"evildir", "evildir"},
		{"absdir", "absdir"},
	} {
		_, err := writeModelFiles(out, models, tt.model, false, "", note, &st)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "leads outside") {
			t.Errorf("model %s: %v; want an error naming %s and saying it leads outside", tt.model, err, tt.want)
		}
	}
	filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "SECRET") {
				t.Errorf("%s holds a file from outside the models folder", p)
			}
		}
		return nil
	})
}
