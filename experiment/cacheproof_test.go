package experiment_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/retrieval"
)

// testMatrix returns a rows x dim matrix of distinct finite values.
func testMatrix(rows, dim int) *retrieval.Matrix {
	m := retrieval.NewMatrix(rows, dim)
	for i := range m.Data {
		m.Data[i] = float32(i%97)/97 - 0.5
	}
	return m
}

// putEntry stores a 4 x 8 entry under key "k" in a new DirCache.
func putEntry(t *testing.T) (experiment.DirCache, experiment.CacheMeta) {
	t.Helper()
	c := experiment.DirCache{Dir: t.TempDir()}
	meta := experiment.CacheMeta{Model: "m", ModelFingerprint: "model-fp", TokenizerFingerprint: "tok-fp",
		CorpusSHA256: "corpus-sha", Rows: 4, Dim: 8}
	if err := c.Put("k", testMatrix(4, 8), meta); err != nil {
		t.Fatal(err)
	}
	return c, meta
}

// TestDirCacheFlippedBytes: a byte of the .npy changed anywhere (header
// or vectors) makes Get fail naming the file and saying how to rebuild,
// never return the damaged vectors.
func TestDirCacheFlippedBytes(t *testing.T) {
	for _, tt := range []struct {
		name string
		off  func(size int) int
	}{
		{"header dict", func(int) int { return 20 }},
		{"first value", func(int) int { return 128 }},
		{"middle value", func(size int) int { return 128 + (size-128)/2 }},
		{"last byte", func(size int) int { return size - 1 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := putEntry(t)
			npy := filepath.Join(c.Dir, "k.npy")
			b, err := os.ReadFile(npy)
			if err != nil {
				t.Fatal(err)
			}
			b[tt.off(len(b))] ^= 0x01 // a low mantissa bit: still a finite float
			if err := os.WriteFile(npy, b, 0o644); err != nil {
				t.Fatal(err)
			}
			m, _, _, ok, err := c.Get("k")
			if err == nil || ok || m != nil {
				t.Fatalf("damaged vectors: ok %v err %v; want an error", ok, err)
			}
			for _, want := range []string{npy, "delete"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// TestDirCacheEditedMeta: every field of the metadata that decides reuse,
// edited, makes Get fail naming the .json.
func TestDirCacheEditedMeta(t *testing.T) {
	for _, tt := range []struct {
		field string
		value any
	}{
		{"model", "other"},
		{"model_fingerprint", "other-fp"},
		{"tokenizer_fingerprint", "other-tok"},
		{"corpus_sha256", "other-corpus"},
		{"rows", 3},
		{"dim", 7},
	} {
		t.Run(tt.field, func(t *testing.T) {
			c, _ := putEntry(t)
			path := filepath.Join(c.Dir, "k.json")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var obj map[string]any
			if err := json.Unmarshal(b, &obj); err != nil {
				t.Fatal(err)
			}
			if _, ok := obj[tt.field]; !ok {
				t.Fatalf("%s has no field %q: %s", path, tt.field, b)
			}
			obj[tt.field] = tt.value
			if b, err = json.Marshal(obj); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, _, ok, err := c.Get("k")
			if err == nil || ok {
				t.Fatalf("edited %s: ok %v err %v; want an error", tt.field, ok, err)
			}
			for _, want := range []string{path, "delete"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// fakeCorpusModel returns the fake dense model of c's words.
func fakeCorpusModel(c *dataset.Collection) *experiment.Model {
	m, _ := experimenttest.Model("fake", experimenttest.ForCollection(c))
	return m
}

// TestCorpusVectorsChecksRequest: an entry found under the request's key
// whose metadata names another model, corpus or shape is refused, not
// used (a cache that maps keys wrongly, or an entry copied by hand).
func TestCorpusVectorsChecksRequest(t *testing.T) {
	c := demo(t)
	m := fakeCorpusModel(c)
	hash := experiment.CorpusHash(c.Corpus)
	good := experiment.CacheMeta{Model: "fake", ModelFingerprint: m.Document.Fingerprint,
		TokenizerFingerprint: m.Document.Tokenizer.Fingerprint(), CorpusSHA256: hash, Rows: len(c.Corpus), Dim: m.Document.Embedder.Dim()}
	for _, tt := range []struct {
		name string
		edit func(*experiment.CacheMeta)
		want string
	}{
		{"model fingerprint", func(x *experiment.CacheMeta) { x.ModelFingerprint = "another-model" }, "another-model"},
		{"corpus hash", func(x *experiment.CacheMeta) { x.CorpusSHA256 = "another-corpus" }, "another-corpus"},
		{"rows", func(x *experiment.CacheMeta) { x.Rows++ }, "rows"},
		{"dim", func(x *experiment.CacheMeta) { x.Dim++ }, "dim"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			meta := good
			tt.edit(&meta)
			cache := experiment.NewMemCache()
			key := experiment.CacheKey(m.Document.Fingerprint, hash)
			if err := cache.Put(key, retrieval.NewMatrix(len(c.Corpus), m.Document.Embedder.Dim()), meta); err != nil {
				t.Fatal(err)
			}
			_, src, err := experiment.CorpusVectors(context.Background(), m, c.Corpus, experiment.CorpusOptions{Cache: cache})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "delete") {
				t.Fatalf("state %q err %v; want an error containing %q and saying how to rebuild", src.State, err, tt.want)
			}
		})
	}
}

// TestDirCacheUnverifiedEntry: an entry written before entries carried
// checksums is a miss: re-encoded, rewritten with checksums, and said so.
func TestDirCacheUnverifiedEntry(t *testing.T) {
	c := demo(t)
	m := fakeCorpusModel(c)
	hash := experiment.CorpusHash(c.Corpus)
	dir := t.TempDir()
	cache := experiment.DirCache{Dir: dir}
	key := experiment.CacheKey(m.Document.Fingerprint, hash)
	// The layout of an earlier dreval: the vectors and the bare metadata.
	wrong := testMatrix(len(c.Corpus), m.Document.Embedder.Dim())
	if err := retrieval.WriteNPYFile(filepath.Join(dir, key+".npy"), wrong, retrieval.Float32); err != nil {
		t.Fatal(err)
	}
	old, _ := json.Marshal(experiment.CacheMeta{Model: "fake", ModelFingerprint: m.Document.Fingerprint,
		TokenizerFingerprint: m.Document.Tokenizer.Fingerprint(), CorpusSHA256: hash, Rows: wrong.Rows, Dim: wrong.Dim})
	if err := os.WriteFile(filepath.Join(dir, key+".json"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	mat, src, err := experiment.CorpusVectors(context.Background(), m, c.Corpus, experiment.CorpusOptions{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if src.State != experiment.CorpusStored || !strings.Contains(src.Warning, key+".json") {
		t.Fatalf("state %q warning %q; want the entry re-encoded and stored, with a warning naming it", src.State, src.Warning)
	}
	if mat.Data[0] == wrong.Data[0] && mat.Data[1] == wrong.Data[1] {
		t.Error("the unverified vectors were used")
	}
	_, src, err = experiment.CorpusVectors(context.Background(), m, c.Corpus, experiment.CorpusOptions{Cache: cache})
	if err != nil || src.State != experiment.CorpusHit || src.Warning != "" {
		t.Fatalf("second read: state %q warning %q err %v; want a clean hit of the rewritten entry", src.State, src.Warning, err)
	}
}

// TestDirCacheSweepsStaleTemporaries: temporary files a crashed writer
// left are removed by the next Put once they are old; a fresh one (a
// writer at work) is left alone.
func TestDirCacheSweepsStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	c := experiment.DirCache{Dir: dir}
	stale := []string{"k.npy.123.tmp", "k.json.456.tmp", "other.npy.789.tmp"}
	fresh := "k.npy.999.tmp"
	keep := "notes.txt"
	long := time.Now().Add(-time.Hour)
	for _, n := range append(stale, fresh, keep) {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if n != fresh {
			if err := os.Chtimes(filepath.Join(dir, n), long, long); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := c.Put("k", testMatrix(2, 3), experiment.CacheMeta{Rows: 2, Dim: 3}); err != nil {
		t.Fatal(err)
	}
	for _, n := range stale {
		if _, err := os.Stat(filepath.Join(dir, n)); !os.IsNotExist(err) {
			t.Errorf("stale temporary %s left (stat: %v)", n, err)
		}
	}
	for _, n := range []string{fresh, keep, "k.npy", "k.json"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s removed: %v", n, err)
		}
	}
}

// TestFaultCacheKill9 kills a process writing cache entries (kill -9, at
// a few moments of its writes) and reads the cache it left: the entry is
// whole or absent, never damaged, and the temporary file a killed write
// leaves is swept by a later Put once it is old.
func TestFaultCacheKill9(t *testing.T) {
	if dir := os.Getenv("DREVAL_TEST_CACHE_WRITER"); dir != "" {
		cacheWriter(dir)
		return
	}
	if testing.Short() {
		t.Skip("runs a subprocess")
	}
	dir := t.TempDir()
	want := testMatrix(20000, 384)
	for i, delay := range []time.Duration{0, 30 * time.Millisecond, 170 * time.Millisecond} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestFaultCacheKill9$")
		cmd.Env = append(os.Environ(), "DREVAL_TEST_CACHE_WRITER="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := make(chan error, 1)
		go func() {
			_, err := bufio.NewReader(out).ReadString('\n')
			ready <- err
		}()
		select {
		case err := <-ready:
			if err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("writer %d: %v", i, err)
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("writer %d did not start writing", i)
		}
		time.Sleep(delay)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		cmd.Wait()
		c := experiment.DirCache{Dir: dir}
		got, _, _, ok, err := c.Get("k")
		if err != nil {
			t.Fatalf("after kill %d: %v", i, err)
		}
		if ok && !slices.Equal(got.Data, want.Data) {
			t.Fatalf("after kill %d: the entry holds other vectors", i)
		}
	}
	// Whatever temporaries the kills left, aged, go with the next Put.
	old := time.Now().Add(-time.Hour)
	tmps, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
	for _, p := range tmps {
		os.Chtimes(p, old, old)
	}
	if err := (experiment.DirCache{Dir: dir}).Put("other", testMatrix(1, 2), experiment.CacheMeta{Rows: 1, Dim: 2}); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(left) > 0 {
		t.Errorf("temporaries left after the sweep: %q (of %d)", left, len(tmps))
	}
}

// cacheWriter is TestFaultCacheKill9's subprocess: it writes entry "k"
// of dir over and over, saying "ready" once the first is written, until
// it is killed (or for at most a minute).
func cacheWriter(dir string) {
	c := experiment.DirCache{Dir: dir}
	m := testMatrix(20000, 384)
	meta := experiment.CacheMeta{Model: "m", Rows: m.Rows, Dim: m.Dim}
	deadline := time.Now().Add(time.Minute)
	for first := true; time.Now().Before(deadline); first = false {
		if err := c.Put("k", m, meta); err != nil {
			os.Exit(3)
		}
		if first {
			os.Stdout.WriteString("ready\n")
		}
	}
	os.Exit(0)
}
