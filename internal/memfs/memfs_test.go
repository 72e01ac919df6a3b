package memfs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

func TestFS(t *testing.T) {
	var m FS
	for name, data := range map[string]string{
		"models/minilm/config.json":           "{}",
		"models/minilm/1_Pooling/config.json": `{"pooling_mode_mean_tokens": true}`,
		"upload/demo/corpus.jsonl":            "{}\n",
	} {
		if err := m.Put(name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := fstest.TestFS(&m, "models/minilm/config.json", "models/minilm/1_Pooling/config.json", "upload/demo/corpus.jsonl"); err != nil {
		t.Fatal(err)
	}
	f, err := m.Open("models/minilm/config.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.(io.ReaderAt); !ok {
		t.Error("an open file cannot be read at offsets")
	}
	m.RemoveAll("models/minilm")
	if _, err := m.Stat("models/minilm/config.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after RemoveAll: %v", err)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != "{}" {
		t.Errorf("a file opened before its removal reads %q, %v", b, err)
	}
	if _, err := m.Stat("models"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an emptied directory still exists: %v", err)
	}
	if got := m.Size("."); got != 3 {
		t.Errorf("size %d, want 3", got)
	}
}

func TestPutRefusesBadPaths(t *testing.T) {
	var m FS
	if err := m.Put("a/b", []byte("x")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", ".", "/abs", "../up", "a/../b", "a", "a/b/c"} {
		if err := m.Put(name, nil); err == nil {
			t.Errorf("Put(%q) succeeded", name)
		}
	}
}

// TestSHA256: a digest given with PutWithSHA256 is the file's until the
// file is replaced or removed.
func TestSHA256(t *testing.T) {
	var f FS
	if err := f.PutWithSHA256("m/w.bin", []byte("abc"), "d1"); err != nil {
		t.Fatal(err)
	}
	if s, ok := f.SHA256("m/w.bin"); !ok || s != "d1" {
		t.Fatalf("SHA256 = %q, %v; want d1", s, ok)
	}
	if _, ok := f.SHA256("m/other"); ok {
		t.Error("a file never put has a digest")
	}
	if err := f.Put("m/w.bin", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.SHA256("m/w.bin"); ok {
		t.Error("a file replaced by Put keeps the old digest")
	}
	if err := f.PutWithSHA256("m/w.bin", []byte("abc"), "d2"); err != nil {
		t.Fatal(err)
	}
	f.RemoveAll("m")
	if _, ok := f.SHA256("m/w.bin"); ok {
		t.Error("a removed file keeps its digest")
	}
	if err := f.PutWithSHA256("../x", nil, "d"); err == nil {
		t.Error("PutWithSHA256 took a bad path")
	}
}

// lazyLoader counts its calls and answers each with the next of its
// answers (the last one repeated).
type lazyLoader struct {
	mu      sync.Mutex
	calls   int
	answers []lazyAnswer
}

type lazyAnswer struct {
	data string
	sum  string
	err  error
}

func (l *lazyLoader) load() ([]byte, string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.answers[min(l.calls, len(l.answers)-1)]
	l.calls++
	return []byte(a.data), a.sum, a.err
}

func (l *lazyLoader) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls
}

func hexSHA256(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestPutLazy(t *testing.T) {
	const weights = "the weights' bytes"
	sum := hexSHA256(weights)
	for _, tc := range []struct {
		name    string
		answers []lazyAnswer
		errs    int // reads that fail before one succeeds
		want    string
	}{
		{"the loader gives the SHA-256", []lazyAnswer{{data: weights, sum: sum}}, 0, ""},
		{"the file system hashes", []lazyAnswer{{data: weights}}, 0, ""},
		{"a failed download is tried again", []lazyAnswer{{err: errors.New("network down")}, {data: weights, sum: sum}}, 1, "network down"},
		{"other bytes are refused", []lazyAnswer{{data: "tampered weights!!"}, {data: weights}}, 1, "are not the file announced (18 bytes, SHA-256 " + sum + ")"},
		{"a short download is refused", []lazyAnswer{{data: weights[:4], sum: hexSHA256(weights[:4])}, {data: weights, sum: sum}}, 1, "(4 bytes, SHA-256"},
		{"a wrong SHA-256 from the loader is refused", []lazyAnswer{{data: weights, sum: hexSHA256("x")}, {data: weights, sum: sum}}, 1, "not the file announced"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m FS
			l := &lazyLoader{answers: tc.answers}
			if err := m.Put("models/minilm/config.json", []byte("{}")); err != nil {
				t.Fatal(err)
			}
			if err := m.PutLazy("models/minilm/model.safetensors", int64(len(weights)), sum, l.load); err != nil {
				t.Fatal(err)
			}
			// Answered without the contents.
			if got, ok := m.SHA256("models/minilm/model.safetensors"); !ok || got != sum {
				t.Errorf("SHA256 = %q, %v; want %q", got, ok, sum)
			}
			if fi, err := m.Stat("models/minilm/model.safetensors"); err != nil || fi.Size() != int64(len(weights)) || fi.IsDir() {
				t.Errorf("Stat = %v, %v; want a file of %d bytes", fi, err, len(weights))
			}
			entries, err := m.ReadDir("models/minilm")
			if err != nil || len(entries) != 2 || entries[1].Name() != "model.safetensors" {
				t.Fatalf("ReadDir = %v, %v", entries, err)
			}
			if fi, _ := entries[1].Info(); fi.Size() != int64(len(weights)) {
				t.Errorf("ReadDir's entry has %d bytes, want %d", fi.Size(), len(weights))
			}
			if n := m.Size("models"); n != int64(len(weights))+2 {
				t.Errorf("Size = %d, want %d", n, len(weights)+2)
			}
			if l.count() != 0 {
				t.Fatalf("the file was loaded %d times before any read", l.count())
			}
			for i := 0; i < tc.errs; i++ {
				_, err := m.ReadFile("models/minilm/model.safetensors")
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "models/minilm/model.safetensors") {
					t.Fatalf("read %d: error %v, want one naming the file and saying %q", i+1, err, tc.want)
				}
			}
			f, err := m.Open("models/minilm/model.safetensors")
			if err != nil {
				t.Fatal(err)
			}
			if b, err := io.ReadAll(f); err != nil || string(b) != weights {
				t.Errorf("read %q, %v; want %q", b, err, weights)
			}
			if b, err := m.ReadFile("models/minilm/model.safetensors"); err != nil || string(b) != weights {
				t.Errorf("ReadFile after the load: %q, %v", b, err)
			}
			if got, want := l.count(), tc.errs+1; got != want {
				t.Errorf("loaded %d times, want %d (once a read, until one succeeds)", got, want)
			}
			if got, ok := m.SHA256("models/minilm/model.safetensors"); !ok || got != sum {
				t.Errorf("SHA256 after the load = %q, %v", got, ok)
			}
		})
	}
}

func TestPutLazyOnce(t *testing.T) {
	const data = "weights"
	var m FS
	l := &lazyLoader{answers: []lazyAnswer{{data: data}}}
	if err := m.PutLazy("w/model.safetensors", int64(len(data)), hexSHA256(data), l.load); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if b, err := m.ReadFile("w/model.safetensors"); err != nil || string(b) != data {
				t.Errorf("ReadFile = %q, %v", b, err)
			}
		})
	}
	wg.Wait()
	if l.count() != 1 {
		t.Errorf("8 concurrent reads loaded the file %d times, want once", l.count())
	}
	if err := fstest.TestFS(&m, "w/model.safetensors"); err != nil {
		t.Error(err)
	}
}

func TestPutLazyReplacedAndRemoved(t *testing.T) {
	var m FS
	l := &lazyLoader{answers: []lazyAnswer{{data: "lazy"}}}
	put := func() {
		if err := m.PutLazy("a/b", 4, hexSHA256("lazy"), l.load); err != nil {
			t.Fatal(err)
		}
	}
	put()
	if err := m.Put("a/b", []byte("put")); err != nil {
		t.Fatal(err)
	}
	if b, err := m.ReadFile("a/b"); err != nil || string(b) != "put" {
		t.Errorf("after Put over a lazy file: %q, %v", b, err)
	}
	if _, ok := m.SHA256("a/b"); ok {
		t.Error("Put over a lazy file kept its SHA-256")
	}
	put()
	m.RemoveAll("a")
	if _, err := m.Stat("a/b"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after RemoveAll: %v", err)
	}
	if err := m.Put("a/b/c", nil); err != nil {
		t.Fatal(err)
	}
	if err := m.PutLazy("a/b", 4, hexSHA256("lazy"), l.load); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("PutLazy over a directory: %v", err)
	}
	if err := m.PutLazy("a/b/c/d", 4, hexSHA256("lazy"), l.load); err == nil || !strings.Contains(err.Error(), "a/b/c is a file") {
		t.Errorf("PutLazy below a file: %v", err)
	}
	put2 := m.PutLazy("x", 4, "abc", l.load)
	if put2 == nil || !strings.Contains(put2.Error(), "hex SHA-256") {
		t.Errorf("PutLazy with a short SHA-256: %v", put2)
	}
	if l.count() != 0 {
		t.Errorf("loaded %d times, never read", l.count())
	}
}
