package download

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/internal/sharedtest"
)

type zipEntry struct {
	name string
	body []byte
	mode fs.FileMode // 0 means a regular file
}

func buildZip(t testing.TB, entries []zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// cranfieldZip builds a BEIR-style archive (cranfield/corpus.jsonl, ...)
// from the shared Cranfield collection.
func cranfieldZip(t testing.TB) []byte {
	src := sharedtest.Path(t, "data/cranfield")
	var entries []zipEntry
	for _, name := range []string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"} {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, zipEntry{name: "cranfield/" + name, body: b})
	}
	return buildZip(t, append([]zipEntry{{name: "cranfield/", mode: fs.ModeDir | 0o755}}, entries...))
}

func md5hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

// serve serves archives (path -> bytes) on a local test server.
func serve(t *testing.T, archives map[string][]byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := archives[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestGetCranfield(t *testing.T) {
	archive := cranfieldZip(t)
	srv := serve(t, map[string][]byte{"/beir/cranfield.zip": archive})
	dataDir := t.TempDir()
	stages := map[string]int{}
	var lastDownload int64
	opt := Options{
		BaseURL: srv.URL + "/beir/",
		MD5:     map[string]string{"cranfield": strings.ToUpper(md5hex(archive))},
		Progress: func(stage string, done, total int64) {
			stages[stage]++
			if stage == "download" {
				lastDownload = done
			}
		},
	}
	dir, err := Get(context.Background(), "cranfield", dataDir, opt)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(dataDir, "cranfield") {
		t.Errorf("dir %s", dir)
	}
	if got := entries(t, dataDir); !reflect.DeepEqual(got, []string{"cranfield"}) {
		t.Errorf("data dir holds %q; temporary files were left behind", got)
	}
	if stages["download"] == 0 || stages["unpack"] != 3 || lastDownload != int64(len(archive)) {
		t.Errorf("progress calls %v, last download %d of %d", stages, lastDownload, len(archive))
	}
	s, err := dataset.Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := dataset.Summary{Docs: 1400, Queries: 225, Splits: []dataset.SplitSummary{{Name: "test", Queries: 225, Judgments: 1837}}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("summary %+v, want %+v", s, want)
	}
	c, err := dataset.LoadBEIR(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "cranfield" || len(c.Corpus) != 1400 {
		t.Errorf("loaded %q with %d docs", c.Name, len(c.Corpus))
	}

	// A second Get leaves the folder alone.
	again, err := Get(context.Background(), "cranfield", dataDir, opt)
	if !errors.Is(err, fs.ErrExist) || again != dir {
		t.Errorf("second Get: %q, %v", again, err)
	}
}

// TestGetFlatArchive accepts an archive with the files at its top level.
func TestGetFlatArchive(t *testing.T) {
	archive := buildZip(t, []zipEntry{
		{name: "corpus.jsonl", body: []byte(`{"_id":"d","text":"t"}` + "\n")},
		{name: "queries.jsonl", body: []byte(`{"_id":"q","text":"t"}` + "\n")},
		{name: "qrels/dev.tsv", body: []byte("q\td\t1\n")},
		{name: "__MACOSX/._corpus.jsonl", body: []byte("junk")},
	})
	srv := serve(t, map[string][]byte{"/flat.zip": archive})
	dataDir := t.TempDir()
	dir, err := Get(context.Background(), "flat", dataDir, Options{BaseURL: srv.URL, MD5: map[string]string{"flat": md5hex(archive)}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := dataset.Summarize(dir)
	want := dataset.Summary{Docs: 1, Queries: 1, Splits: []dataset.SplitSummary{{Name: "dev", Queries: 1, Judgments: 1}}}
	if err != nil || !reflect.DeepEqual(s, want) {
		t.Errorf("summary %+v, %v", s, err)
	}
	if got := entries(t, dataDir); !reflect.DeepEqual(got, []string{"flat"}) {
		t.Errorf("data dir holds %q", got)
	}
}

func TestGetFailuresLeaveNothing(t *testing.T) {
	good := buildZip(t, []zipEntry{
		{name: "x/corpus.jsonl", body: []byte(`{"_id":"d","text":"t"}` + "\n")},
		{name: "x/queries.jsonl", body: []byte(`{"_id":"q","text":"t"}` + "\n")},
		{name: "x/qrels/test.tsv", body: []byte("q\td\t1\n")},
	})
	corrupt := bytes.Clone(good)
	corrupt[len(corrupt)/2] ^= 0xff
	slip := buildZip(t, []zipEntry{
		{name: "x/corpus.jsonl", body: []byte(`{"_id":"d","text":"t"}` + "\n")},
		{name: "x/../../evil.txt", body: []byte("owned")},
	})
	abs := buildZip(t, []zipEntry{{name: "/etc/evil", body: []byte("owned")}})
	link := buildZip(t, []zipEntry{{name: "x/corpus.jsonl", body: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}})
	noLayout := buildZip(t, []zipEntry{{name: "readme.txt", body: []byte("hello")}})
	big := buildZip(t, []zipEntry{{name: "x/corpus.jsonl", body: bytes.Repeat([]byte("a"), 1<<20)}})
	notZip := []byte("this is not a zip archive")

	tests := []struct {
		name    string
		archive []byte
		sum     string // defaults to the archive's md5
		opt     Options
		want    string
	}{
		{"corrupt", corrupt, md5hex(good), Options{}, "md5 " + md5hex(corrupt) + ", want " + md5hex(good)},
		{"zip slip", slip, "", Options{}, `archive entry "x/../../evil.txt" would be written outside the target folder`},
		{"absolute path", abs, "", Options{}, `archive entry "/etc/evil" would be written outside`},
		{"symlink", link, "", Options{}, `archive entry "x/corpus.jsonl" is not a regular file`},
		{"no BEIR layout", noLayout, "", Options{}, "archive holds no BEIR dataset folder"},
		{"unpacked too big", big, "", Options{MaxUnpackedBytes: 1000}, "more than the limit of 1000"},
		{"download too big", big, "", Options{MaxArchiveBytes: 100}, "exceeds the limit of 100"},
		{"not a zip", notZip, "", Options{}, "reading the zip archive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, map[string][]byte{"/x.zip": tt.archive})
			dataDir := t.TempDir()
			sum := tt.sum
			if sum == "" {
				sum = md5hex(tt.archive)
			}
			opt := tt.opt
			opt.BaseURL = srv.URL
			opt.MD5 = map[string]string{"x": sum}
			_, err := Get(context.Background(), "x", dataDir, opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want it to contain %q", err, tt.want)
			}
			if got := entries(t, dataDir); len(got) != 0 {
				t.Errorf("data dir holds %q after a failed Get", got)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dataDir), "evil.txt")); err == nil {
				t.Error("zip slip wrote outside the data dir")
			}
		})
	}
}

func TestGetRequestErrors(t *testing.T) {
	srv := serve(t, nil)
	dataDir := t.TempDir()
	tests := []struct {
		name string
		opt  Options
		want string
	}{
		{"../x", Options{}, `invalid dataset name "../x"`},
		{"a/b", Options{}, `invalid dataset name "a/b"`},
		{"unknown", Options{}, `no published md5 for dataset "unknown"; known datasets: arguana, climate-fever,`},
		{"scifact", Options{BaseURL: srv.URL}, "scifact.zip: 404 Not Found"},
	}
	for _, tt := range tests {
		_, err := Get(context.Background(), tt.name, dataDir, tt.opt)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
	if got := entries(t, dataDir); len(got) != 0 {
		t.Errorf("data dir holds %q", got)
	}
}

func TestBEIRMD5(t *testing.T) {
	sums := BEIRMD5()
	for _, name := range []string{"scifact", "nfcorpus", "fiqa", "arguana", "trec-covid", "quora", "scidocs", "nq", "webis-touche2020", "hotpotqa", "climate-fever", "dbpedia-entity", "fever", "msmarco"} {
		s, ok := sums[name]
		if !ok {
			t.Errorf("no md5 for %s", name)
			continue
		}
		if b, err := hex.DecodeString(s); err != nil || len(b) != md5.Size {
			t.Errorf("%s: %q is not an md5 hex digest", name, s)
		}
	}
	sums["scifact"] = "changed"
	if BEIRMD5()["scifact"] == "changed" {
		t.Error("BEIRMD5 returns a shared map")
	}
}

func TestArchiveSize(t *testing.T) {
	var methods []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		methods = append(methods, r.Method)
		switch r.URL.Path {
		case "/len/fiqa.zip":
			w.Header().Set("Content-Length", "123456")
		case "/nolen/fiqa.zip":
			// 200 OK with no Content-Length.
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct {
		name, dataset, base string
		want                int64
		wantErr             string
	}{
		{"announced", "fiqa", srv.URL + "/len/", 123456, ""},
		{"not announced", "fiqa", srv.URL + "/nolen", -1, ""},
		{"absent", "fiqa", srv.URL + "/none", 0, "HEAD " + srv.URL + "/none/fiqa.zip: 404 Not Found"},
		{"unreachable", "fiqa", closed.URL, 0, closed.URL + "/fiqa.zip"},
		{"invalid name", "../fiqa", srv.URL, 0, `invalid dataset name "../fiqa"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ArchiveSize(context.Background(), tt.dataset, Options{BaseURL: tt.base})
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("got %d, %v; want an error holding %q", got, err, tt.wantErr)
				}
			case err != nil || got != tt.want:
				t.Errorf("got %d, %v; want %d", got, err, tt.want)
			}
		})
	}
	for _, m := range methods {
		if m != http.MethodHead {
			t.Errorf("ArchiveSize sent a %s request", m)
		}
	}
}

func TestBEIRPublished(t *testing.T) {
	sizes, sums := BEIRPublished(), BEIRMD5()
	if len(sizes) != len(sums) {
		t.Errorf("BEIRPublished has %d datasets, BEIRMD5 %d", len(sizes), len(sums))
	}
	for name := range sums {
		p, ok := sizes[name]
		if !ok || p.Queries <= 0 || p.Corpus == "" {
			t.Errorf("%s: published sizes %+v", name, p)
		}
	}
}
