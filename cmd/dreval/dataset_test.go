package main

import (
	"archive/zip"
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

// cranfieldArchive zips the shared Cranfield collection in BEIR's archive
// layout (cranfield/corpus.jsonl, ...).
func cranfieldArchive(t *testing.T) []byte {
	src := sharedtest.Path(t, "data/cranfield")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"} {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create("cranfield/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDatasetGet(t *testing.T) {
	archive := cranfieldArchive(t)
	corrupt := bytes.Clone(archive)
	corrupt[len(corrupt)/3] ^= 1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cranfield.zip":
			w.Write(archive)
		case "/bad/cranfield.zip":
			w.Write(corrupt)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	sum := md5.Sum(archive)
	md5hex := hex.EncodeToString(sum[:])
	dataDir := t.TempDir()

	code, out, errOut := runCLI(t, "", "dataset", "get", "cranfield", "-data-dir", dataDir, "-base-url", srv.URL, "-md5", md5hex)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "dataset\tcranfield\ndir\t" + filepath.Join(dataDir, "cranfield") + "\ndocs\t1400\nqueries\t225\nqrels\ttest\t225 queries\t1837 judgments\n"
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if !strings.Contains(errOut, "download cranfield ") || !strings.Contains(errOut, "unpack cranfield [") {
		t.Errorf("stderr has no progress:\n%s", errOut)
	}

	// Again: the folder is kept, the counts printed.
	code, out2, errOut := runCLI(t, "", "dataset", "get", "-data-dir", dataDir, "-base-url", srv.URL, "-md5", md5hex, "cranfield")
	if code != 0 || out2 != want || !strings.Contains(errOut, "exists already") {
		t.Errorf("second get: exit %d, stdout %q, stderr %q", code, out2, errOut)
	}

	// A corrupted archive fails the md5 check and leaves nothing behind.
	other := t.TempDir()
	code, _, errOut = runCLI(t, "", "dataset", "get", "cranfield", "-data-dir", other, "-base-url", srv.URL+"/bad", "-md5", md5hex)
	if code != 1 || !strings.Contains(errOut, "md5 ") || !strings.Contains(errOut, "want "+md5hex) {
		t.Errorf("corrupt archive: exit %d, stderr %q", code, errOut)
	}
	if es, _ := os.ReadDir(other); len(es) != 0 {
		t.Errorf("corrupt archive left %d entries in the data dir", len(es))
	}

	// Without -md5 the published table applies, which has no cranfield.
	code, _, errOut = runCLI(t, "", "dataset", "get", "cranfield", "-data-dir", t.TempDir(), "-base-url", srv.URL)
	if code != 1 || !strings.Contains(errOut, `no published md5 for dataset "cranfield"`) {
		t.Errorf("unlisted dataset: exit %d, stderr %q", code, errOut)
	}
}

func TestDatasetUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"dataset"}, "missing subcommand"},
		{[]string{"dataset", "fetch"}, `unknown subcommand "fetch"`},
		{[]string{"dataset", "get"}, "want one dataset NAME, got 0 arguments; known: arguana,"},
		{[]string{"dataset", "get", "a", "b"}, "want one dataset NAME, got 2"},
		{[]string{"dataset", "get", "scifact", "-md5", "xyz"}, `-md5 "xyz" is not 32 hexadecimal digits`},
		{[]string{"dataset", "get", "-nope"}, "flag provided but not defined"},
		{[]string{"dataset", "info"}, "want one collection"},
	}
	for _, tt := range tests {
		code, _, errOut := runCLI(t, "", tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
	for _, args := range [][]string{{"dataset", "get", "-h"}, {"dataset", "info", "-h"}} {
		if code, _, errOut := runCLI(t, "", args...); code != 0 || !strings.Contains(errOut, "usage: dreval "+args[0]+" "+args[1]) {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
	}
}

func TestDatasetInfo(t *testing.T) {
	code, out, errOut := runCLI(t, "", "dataset", "info", "demo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"collection\tdemo\n", "docs\t1084\n", "queries\t212\n", "unjudged queries\t0\n", "grade 0\t", "grade 2\t"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if errOut != "" {
		t.Errorf("warnings for the demo: %s", errOut)
	}
	code, out, errOut = runCLI(t, "", "dataset", "info", sharedtest.Path(t, "data/cacm"))
	if code != 0 || !strings.Contains(out, "docs\t3204\n") || strings.Contains(errOut, "absent from the corpus") || !strings.Contains(errOut, "12 of 64 queries have no judgments") {
		t.Errorf("cacm: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "", "dataset", "info", "demo", "-split", "train")
	if code != 1 || !strings.Contains(errOut, `no split "train"`) {
		t.Errorf("demo train: exit %d, %s", code, errOut)
	}
}
