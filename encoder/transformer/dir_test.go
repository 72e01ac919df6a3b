package transformer

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/modelfiles"
)

// mapFS copies the files of the directory dir into an in-memory file
// system under prefix.
func mapFS(t *testing.T, dir, prefix string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[prefix+"/"+filepath.ToSlash(rel)] = &fstest.MapFile{Data: b}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLoadFromMemory loads a model from files held in memory, as the
// browser app does, and checks it embeds as the same model read from
// disk; errors name the files by their path in the file system.
func TestLoadFromMemory(t *testing.T) {
	dir := tinyModelDir(t)
	disk, err := Load(modelfiles.OSDir(dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := mapFS(t, dir, "models/tiny")
	all["models/tiny/README.md"] = &fstest.MapFile{Data: []byte("not read")}
	// Only the files modelfiles.ToLoad picks are copied, as the browser
	// app fetches a served model.
	files, err := modelfiles.ModelFiles(modelfiles.FSDir(all, "models/tiny"))
	if err != nil {
		t.Fatal(err)
	}
	mem := fstest.MapFS{}
	for _, f := range modelfiles.ToLoad(files) {
		mem["models/tiny/"+f] = all["models/tiny/"+f]
	}
	if len(mem) != 4 {
		t.Errorf("%d files to load, want 4 (config, tokenizer, weights, pooling)", len(mem))
	}
	inMem, err := Load(modelfiles.FSDir(mem, "models/tiny"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := disk.Tokenize([]string{"a short text", "another one, longer than the first"})
	a, err := disk.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	b, err := inMem.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("the model read from memory embeds differently from the one read from disk")
	}
	delete(mem, "models/tiny/tokenizer.json")
	_, err = Load(modelfiles.FSDir(mem, "models/tiny"), Options{})
	if err == nil || !strings.Contains(err.Error(), "models/tiny: no tokenizer.json, vocab.json+merges.txt, SentencePiece .model or vocab.txt") {
		t.Errorf("missing tokenizer: %v, want an error naming models/tiny and the tokenizer files looked for", err)
	}
	delete(mem, "models/tiny/config.json")
	if _, err = Load(modelfiles.FSDir(mem, "models/tiny"), Options{}); err == nil || !strings.Contains(err.Error(), "models/tiny/config.json") {
		t.Errorf("missing config: %v, want an error naming models/tiny/config.json", err)
	}
}

func TestModelFiles(t *testing.T) {
	mem := fstest.MapFS{
		"m/config.json":               {},
		"m/tokenizer.json":            {},
		"m/model.safetensors":         {},
		"m/model.onnx":                {},
		"m/1_Pooling/config.json":     {},
		"m/sentence_bert_config.json": {},
		"m/README.md":                 {},
		"m/pytorch_model.bin":         {},
		"m/onnx/model_quantized.onnx": {},
	}
	got, err := modelfiles.ModelFiles(modelfiles.FSDir(mem, "m"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1_Pooling/config.json", "config.json", "model.onnx", "model.safetensors", "pytorch_model.bin", "sentence_bert_config.json", "tokenizer.json"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("modelfiles.ModelFiles = %v, want %v", got, want)
	}
	// Load reads the safetensors weights, not the graph beside them.
	if got, want := modelfiles.ToLoad(got), []string{"1_Pooling/config.json", "config.json", "model.safetensors", "sentence_bert_config.json", "tokenizer.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("modelfiles.ToLoad = %v, want %v", got, want)
	}
	if got := modelfiles.ToLoad([]string{"tokenizer.json", "model.onnx"}); !reflect.DeepEqual(got, []string{"model.onnx", "tokenizer.json"}) {
		t.Errorf("modelfiles.ToLoad of a bare graph = %v", got)
	}
}

// tinyModelDir writes tinyBERT as a model directory with safetensors
// weights and a pooling configuration.
func tinyModelDir(t *testing.T) string {
	t.Helper()
	set, _, cfgJSON, tokJSON := tinyBERT(t)
	var w bytes.Buffer
	if err := safetensors.Write(&w, set, safetensors.F32, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"config.json": cfgJSON, "tokenizer.json": tokJSON, "model.safetensors": w.Bytes()})
	if err := os.MkdirAll(filepath.Join(dir, "1_Pooling"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string][]byte{"1_Pooling/config.json": []byte(`{"pooling_mode_cls_token": true}`)})
	return dir
}

// knownFS is a file system that knows one file's digest without reading
// it, as the browser app's in-memory files do.
type knownFS struct {
	fstest.MapFS
	sums map[string]string
}

func (k knownFS) SHA256(name string) (string, bool) { s, ok := k.sums[name]; return s, ok }

// TestDirSHA256: a file's digest is the one its file system knows, else
// its contents' (hashed); a missing file's error names it as the
// directory does.
func TestDirSHA256(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "w.bin"), []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" // SHA-256("abc")
	known := knownFS{fstest.MapFS{"m/w.bin": {Data: []byte("abc")}, "m/x.bin": {Data: []byte("abc")}}, map[string]string{"m/w.bin": "feed"}}
	for _, tc := range []struct {
		name string
		d    modelfiles.Dir
		file string
		want string
	}{
		{"on disk, hashed", modelfiles.OSDir(dir), "w.bin", abc},
		{"known to the file system", modelfiles.FSDir(known, "m"), "w.bin", "feed"},
		{"not known, hashed", modelfiles.FSDir(known, "m"), "x.bin", abc},
	} {
		if got, err := tc.d.SHA256(tc.file); err != nil || got != tc.want {
			t.Errorf("%s: SHA256 = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	_, err := modelfiles.OSDir(dir).SHA256("missing.bin")
	if want := filepath.Join(dir, "missing.bin"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("missing file: %v, want an error naming %s", err, want)
	}
}
