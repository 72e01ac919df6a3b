package memfs

import (
	"errors"
	"io"
	"io/fs"
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
