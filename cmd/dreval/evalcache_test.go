package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFaultEvalDamagedCache damages the corpus cache entry an eval
// stored, in its vectors (a byte flipped at several offsets) and in each
// field of its metadata, and runs eval again: it either fails naming the
// entry, printing no numbers, or prints exactly the numbers of an
// undamaged run with a warning; never numbers from the damaged entry.
func TestFaultEvalDamagedCache(t *testing.T) {
	withFakeModels(t)
	cache := t.TempDir()
	args := func() []string {
		return []string{"eval", "-models", "fake", "-rates", "0,0.2", "-seeds", "1", "-resamples", "10",
			"-cache", cache, "-quiet", "-out", t.TempDir()}
	}
	code, want, errOut := runCLI(t, "", args()...)
	if code != 0 {
		t.Fatalf("first eval exited %d: %s", code, errOut)
	}
	entries, _ := filepath.Glob(filepath.Join(cache, "*.npy"))
	if len(entries) != 1 {
		t.Fatalf("the cache holds %q, want one entry", entries)
	}
	npy := entries[0]
	meta := strings.TrimSuffix(npy, ".npy") + ".json"
	goodNPY, err := os.ReadFile(npy)
	if err != nil {
		t.Fatal(err)
	}
	goodMeta, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	// The same numbers from the cache: the reference is stable.
	if code, out, errOut := runCLI(t, "", args()...); code != 0 || out != want {
		t.Fatalf("eval from the intact cache exited %d, stdout differs %v: %s", code, out != want, errOut)
	}
	flip := func(off func(n int) int) func() {
		return func() {
			b := append([]byte(nil), goodNPY...)
			b[off(len(b))] ^= 0x01
			if err := os.WriteFile(npy, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	edit := func(field string, value any) func() {
		return func() {
			var obj map[string]any
			if err := json.Unmarshal(goodMeta, &obj); err != nil {
				t.Fatal(err)
			}
			if _, ok := obj[field]; !ok {
				t.Fatalf("%s has no field %q", meta, field)
			}
			obj[field] = value
			b, _ := json.Marshal(obj)
			if err := os.WriteFile(meta, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tt := range []struct {
		name   string
		damage func()
	}{
		{"vectors first byte", flip(func(int) int { return 128 })},
		{"vectors byte 1000", flip(func(int) int { return 1000 })},
		{"vectors middle", flip(func(n int) int { return 128 + (n-128)/2 })},
		{"vectors last byte", flip(func(n int) int { return n - 1 })},
		{"model", edit("model", "other")},
		{"model_fingerprint", edit("model_fingerprint", "other")},
		{"tokenizer_fingerprint", edit("tokenizer_fingerprint", "other")},
		{"corpus_sha256", edit("corpus_sha256", "other")},
		{"rows", edit("rows", 3)},
		{"dim", edit("dim", 7)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(npy, goodNPY, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(meta, goodMeta, 0o644); err != nil {
				t.Fatal(err)
			}
			tt.damage()
			code, out, errOut := runCLI(t, "", args()...)
			switch {
			case code != 0:
				if out != "" {
					t.Errorf("failed (%d) but printed numbers:\n%s", code, out)
				}
				if !strings.Contains(errOut, filepath.Base(strings.TrimSuffix(npy, ".npy"))) || !strings.Contains(errOut, "delete") {
					t.Errorf("the error does not name the entry and how to rebuild it: %s", errOut)
				}
			case out != want:
				t.Errorf("printed numbers from the damaged entry:\n%s\nwant\n%s", out, want)
			case !strings.Contains(errOut, "warning"):
				t.Errorf("used the damaged entry without a word (stderr %q)", errOut)
			}
		})
	}
}
