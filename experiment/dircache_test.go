package experiment_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/retrieval"
)

func TestDirCacheRoundTrip(t *testing.T) {
	c := experiment.DirCache{Dir: filepath.Join(t.TempDir(), "emb")}
	if _, _, _, ok, err := c.Get("k"); ok || err != nil {
		t.Fatalf("empty cache: ok %v err %v", ok, err)
	}
	m := &retrieval.Matrix{Rows: 2, Dim: 3, Data: []float32{1, 2, 3, 4, 5, float32(math.Pi)}}
	meta := experiment.CacheMeta{Model: "m", TokenizerFingerprint: "tok", Rows: 2, Dim: 3}
	if err := c.Put("k", m, meta); err != nil {
		t.Fatal(err)
	}
	got, gotMeta, where, ok, err := c.Get("k")
	if err != nil || !ok {
		t.Fatalf("ok %v err %v", ok, err)
	}
	if gotMeta != meta || where != filepath.Join(c.Dir, "k.npy") {
		t.Errorf("meta %+v where %q", gotMeta, where)
	}
	for i, v := range m.Data {
		if got.Data[i] != v {
			t.Fatalf("value %d: %v, want %v", i, got.Data[i], v)
		}
	}
	// Leftover temporary files would mean a non-atomic write.
	entries, _ := os.ReadDir(c.Dir)
	if len(entries) != 2 {
		t.Errorf("cache directory holds %d files, want k.npy and k.json", len(entries))
	}
}

func TestDirCacheBadEntries(t *testing.T) {
	dir := t.TempDir()
	c := experiment.DirCache{Dir: dir}
	m := retrieval.NewMatrix(1, 2)
	if err := c.Put("bad", m, experiment.CacheMeta{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, err := c.Get("bad"); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("corrupt metadata: got %v, want an error naming bad.json", err)
	}
	if err := c.Put("trunc", m, experiment.CacheMeta{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trunc.npy"), []byte("\x93NUMPY"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, err := c.Get("trunc"); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("truncated vectors: got %v, want an error saying to delete the file", err)
	}
	// Vectors without metadata are not an entry.
	if err := os.Remove(filepath.Join(dir, "bad.json")); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok, err := c.Get("bad"); ok || err != nil {
		t.Errorf("vectors without metadata: ok %v err %v, want absent", ok, err)
	}
}

func TestCacheKeyIsAFileName(t *testing.T) {
	k := experiment.CacheKey("../evil/model fp", "abc")
	if strings.ContainsAny(k, `/\ `) {
		t.Errorf("key %q is not a plain file name", k)
	}
}

// FuzzDirCacheMeta feeds arbitrary metadata files to DirCache.Get: it
// returns an entry or an error, never panics.
func FuzzDirCacheMeta(f *testing.F) {
	f.Add([]byte(`{"model":"m","rows":1,"dim":2}`))
	f.Add([]byte(`{"rows":-1}`))
	f.Add([]byte(`null`))
	f.Add([]byte(``))
	dir := f.TempDir()
	c := experiment.DirCache{Dir: dir}
	if err := c.Put("k", retrieval.NewMatrix(1, 2), experiment.CacheMeta{}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, meta []byte) {
		if err := os.WriteFile(filepath.Join(dir, "k.json"), meta, 0o644); err != nil {
			t.Fatal(err)
		}
		m, _, _, ok, err := c.Get("k")
		if ok && (err != nil || m == nil) {
			t.Fatalf("ok with err %v or nil matrix", err)
		}
	})
}

func FuzzFloatJSON(f *testing.F) {
	for _, s := range []string{"null", "0.5", "-1e308", "1e999", `"x"`, ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var x experiment.Float
		if err := x.UnmarshalJSON(b); err != nil {
			return
		}
		out, err := x.MarshalJSON()
		if err != nil {
			t.Fatalf("%q read as %v does not encode: %v", b, float64(x), err)
		}
		var y experiment.Float
		if err := y.UnmarshalJSON(out); err != nil {
			t.Fatal(err)
		}
		if !(float64(x) == float64(y) || math.IsNaN(float64(y))) {
			t.Errorf("%q -> %v -> %s -> %v", b, float64(x), out, float64(y))
		}
	})
}
