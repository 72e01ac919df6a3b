package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/dataset/download"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/report"
)

// TestReproduceOnDemo runs the protocol on the demo twice over (two
// datasets, so the average tables exist) with the fake models and checks
// the document: the study's table shapes, the findings, and that the
// findings' numbers are those of results.json.
func TestReproduceOnDemo(t *testing.T) {
	withFakeModels(t)
	dir := t.TempDir()
	doc := filepath.Join(dir, "docs", "reproduction.md")
	code, stdout, errOut := runCLI(t, "", "reproduce", "-data", "demo,demo", "-models", "fake,fakebm25", "-seeds", "5",
		"-resamples", "200", "-cache", filepath.Join(dir, "cache"), "-out", filepath.Join(dir, "out"), "-doc", doc, "-machine", "test machine", "-quiet")
	if code != 0 {
		t.Fatalf("reproduce exited %d: %s", code, errOut)
	}
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	res := readResults(t, filepath.Join(dir, "out"))
	if fmt.Sprint(res.Config.Rates) != "[0 0.05 0.1 0.2]" || len(res.Config.Seeds) != 5 || res.Config.Perturbation != "idshift" || res.Config.ProtectSpecial {
		t.Errorf("protocol not applied: rates %v seeds %v mode %s protect %v", res.Config.Rates, res.Config.Seeds, res.Config.Perturbation, res.Config.ProtectSpecial)
	}
	for _, want := range []string{
		"Table 3: Average drop over 2 datasets", "Table 2: Average over 2 datasets", "Tables 5-7: demo ", "Tables 5-7: demo-2 ",
		"Table 1: decoded examples", "Machine: test machine", "BERT, DPR, Contriever, SimCSE and ANCE",
		"(a) Ranking by clean effectiveness", "(b) Ranking by change at 20%", "(c) Drop grows with rate", "(d) All models are affected",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("reproduction.md lacks %q", want)
		}
	}
	// The findings printed are those of the document, recomputed from
	// results.json.
	for _, f := range report.Findings(res) {
		if !strings.Contains(text, f) || !strings.Contains(stdout, f) {
			t.Errorf("finding %q is not in the document and the output", f)
		}
	}
	// The Table 3 rows are the 5% and 20% rates only.
	t3 := text[strings.Index(text, "Table 3:"):strings.Index(text, "Table 2:")]
	if strings.Contains(t3, "| fake | 10% |") || !strings.Contains(t3, "| fake | 5% |") || !strings.Contains(t3, "| fake | 20% |") {
		t.Errorf("Table 3 rows are not 5%% and 20%%:\n%s", t3)
	}
}

func TestReproduceFlagErrors(t *testing.T) {
	withFakeModels(t)
	for _, args := range [][]string{{"-seeds", "0"}, {"-resamples", "0"}, {"extra"}} {
		code, _, _ := runCLI(t, "", append([]string{"reproduce", "-data", "demo", "-models", "fake", "-doc", "-"}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestReproduceCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "dreval reproduce"},
		{[]string{"-seeds", "5"}, "dreval reproduce -seeds 5"},
		{[]string{"-machine", "2 cores (x)"}, "dreval reproduce -machine '2 cores (x)'"},
		{[]string{"-machine", "it's"}, `dreval reproduce -machine 'it'\''s'`},
	} {
		if got := reproduceCommand(tc.args); got != tc.want {
			t.Errorf("reproduceCommand(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

// studyTexts are the documents of the tiny stand-ins for the study's
// collections: a collection of n documents holds the first n, and query
// i asks for document i.
var studyTexts = []string{
	"stock market shares fell sharply today",
	"bond yields rise when inflation grows",
	"the river flows past the old mill",
	"paris is the capital city of france",
	"how do i learn to play the guitar",
	"what is the best way to learn python",
	"the tallest mountain on earth is everest",
	"bees make honey from the nectar of flowers",
}

// studyCollection writes a tiny BEIR collection of n documents and n/2
// judged queries into dir.
func studyCollection(t *testing.T, dir string, n int) {
	t.Helper()
	var corpus, queries, qrels strings.Builder
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	for i, text := range studyTexts[:n] {
		fmt.Fprintf(&corpus, "{\"_id\": \"d%d\", \"title\": \"\", \"text\": %q}\n", i, text)
		if i%2 == 0 {
			words := strings.Fields(text)
			fmt.Fprintf(&queries, "{\"_id\": \"q%d\", \"text\": %q}\n", i, strings.Join(words[len(words)-3:], " "))
			fmt.Fprintf(&qrels, "q%d\td%d\t1\n", i, i)
		}
	}
	for name, body := range map[string]string{"corpus.jsonl": corpus.String(), "queries.jsonl": queries.String(), "qrels/test.tsv": qrels.String()} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// studyArchive zips the collection in dir as BEIR's archives are laid
// out: name/corpus.jsonl, name/queries.jsonl, name/qrels/test.tsv.
func studyArchive(t *testing.T, dir, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range []string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"} {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(name + "/" + f)
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

// TestReproduceWithNoFlags runs "dreval reproduce" with no flags at all
// in a working folder without ../shared, against a local stand-in for
// BEIR's host serving tiny synthetic fiqa, hotpotqa and quora archives:
// the first run announces their sizes, downloads them into the data
// folder and runs the protocol; the second, with the host gone, reuses
// them; a third, into an empty data folder with the host gone, says what
// failed and how to run without network. The models are the fake ones
// (bm25 among the defaults stands for the fake lexical model), so the
// test needs nothing installed.
func TestReproduceWithNoFlags(t *testing.T) {
	tmp := t.TempDir()
	sizes := map[string]int{"fiqa": 4, "hotpotqa": 6, "quora": 8}
	archives, sums := map[string][]byte{}, map[string]string{}
	for name, n := range sizes {
		dir := filepath.Join(tmp, "src", name)
		studyCollection(t, dir, n)
		archives[name] = studyArchive(t, dir, name)
		sum := md5.Sum(archives[name])
		sums[name] = hex.EncodeToString(sum[:])
	}
	var mu sync.Mutex
	requests := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/beir/"), ".zip")
		mu.Lock()
		requests[r.Method+" "+name]++
		mu.Unlock()
		b, ok := archives[name]
		switch {
		case !ok:
			http.NotFound(w, r)
		case name == "hotpotqa" && r.Method == http.MethodHead:
			// A host that announces no size: the published counts remain.
		default:
			http.ServeContent(w, r, name+".zip", time.Time{}, bytes.NewReader(b))
		}
	}))
	defer srv.Close()
	savedBEIR := reproduceBEIR
	reproduceBEIR = download.Options{BaseURL: srv.URL + "/beir", MD5: sums}
	t.Cleanup(func() { reproduceBEIR = savedBEIR })

	// The fake models over the collections' words; "bm25", one of the
	// defaults, opens the fake lexical model, and counts as installed
	// where the minilm tokenizer is.
	c, err := dataset.Load(filepath.Join(tmp, "src", "quora"), "test")
	if err != nil {
		t.Fatal(err)
	}
	tok := experimenttest.ForCollection(c)
	savedRegistry := evalRegistry
	evalRegistry = func() *experiment.Registry {
		r, _ := experimenttest.Registry(tok)
		r.Register("bm25", func(ctx context.Context, _ string, opts experiment.ModelOptions) (*experiment.Model, error) {
			return r.Open(ctx, "fakebm25", opts)
		})
		return r
	}
	t.Cleanup(func() { evalRegistry = savedRegistry })
	models := filepath.Join(tmp, "models")
	if err := os.MkdirAll(filepath.Join(models, "minilm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(models, "minilm", "tokenizer.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DREVAL_MODELS", models)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	t.Setenv("HOME", tmp)

	work := filepath.Join(tmp, "clone", "dreval")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	if _, err := os.Stat("../shared"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("../shared exists beside the test's working folder: %v", err)
	}

	data, empty := filepath.Join(tmp, "data"), filepath.Join(tmp, "empty")
	steps := []struct {
		name     string
		dataDir  string
		hostGone bool
		wantCode int
		want     []string // in stderr
		notWant  []string // in stderr
	}{
		{"first run downloads", data, false, 0, []string{
			"reproduce: downloading into " + data + " what it does not hold yet, from " + srv.URL + "/beir (md5-checked):",
			fmt.Sprintf("fiqa.zip       %d bytes; BEIR's README: 57K documents, 648 queries", len(archives["fiqa"])),
			"hotpotqa.zip   size unknown (the server announces none); BEIR's README: 5.23M documents, 7,405 queries",
			fmt.Sprintf("quora.zip      %d bytes; BEIR's README: 523K documents, 10,000 queries", len(archives["quora"])),
			"total          at least " + reproduceBytes(int64(len(archives["fiqa"])+len(archives["quora"]))) + " to download",
			"-data demo runs offline",
			"download fiqa ", "unpack hotpotqa ", "download quora ",
			"note: model minilm is not installed",
		}, nil},
		{"second run reuses them offline", data, true, 0, nil, []string{"downloading", "download fiqa"}},
		{"no network, nothing downloaded", empty, true, 1, []string{
			"size unknown; BEIR's README: 57K documents, 648 queries",
			"(asking the size failed: ",
			"dreval reproduce: fetching BEIR dataset fiqa into " + empty + " failed: ",
			srv.URL + "/beir/fiqa.zip",
			"to run without network, use -data demo (the built-in demo collection) or -data DIR[,DIR...]",
		}, nil},
	}
	for _, st := range steps {
		if st.hostGone {
			srv.Close()
		}
		t.Setenv("DREVAL_DATA", st.dataDir)
		os.RemoveAll("out")
		os.RemoveAll("docs")
		code, _, errOut := runCLI(t, "", "reproduce")
		if code != st.wantCode {
			t.Fatalf("%s: exit %d, want %d: %s", st.name, code, st.wantCode, errOut)
		}
		for _, w := range st.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", st.name, w, errOut)
			}
		}
		for _, w := range st.notWant {
			if strings.Contains(errOut, w) {
				t.Errorf("%s: stderr holds %q:\n%s", st.name, w, errOut)
			}
		}
		if code != 0 {
			if es, err := os.ReadDir(st.dataDir); err == nil && len(es) != 0 {
				t.Errorf("%s: the failed download left %d entries in %s", st.name, len(es), st.dataDir)
			}
			continue
		}
		res := readResults(t, filepath.Join("out", "reproduce"))
		var got []string
		for _, ds := range res.Datasets {
			got = append(got, fmt.Sprintf("%s:%d", ds.Name, len(ds.Models)))
		}
		if fmt.Sprint(got) != "[fiqa:1 hotpotqa:1 quora:1]" {
			t.Errorf("%s: results.json holds datasets:models %v, want fiqa, hotpotqa and quora with bm25", st.name, got)
		}
		if _, err := os.Stat(filepath.Join("docs", "reproduction.md")); err != nil {
			t.Errorf("%s: %v", st.name, err)
		}
	}
	for name := range sizes {
		if n := requests["GET "+name]; n != 1 {
			t.Errorf("%s.zip was downloaded %d times, want once", name, n)
		}
	}
}

func TestReproduceSizes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"},
		{1023, "1023 bytes"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{17 << 20, "17.0 MiB"},
		{3 << 30, "3.0 GiB"},
		{5 << 40, "5.0 TiB"},
		{5 << 50, "5120.0 TiB"},
	}
	for _, tt := range tests {
		if got := reproduceBytes(tt.n); got != tt.want {
			t.Errorf("reproduceBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	for n, want := range map[int]string{0: "0", 648: "648", 7405: "7,405", 10000: "10,000", 1234567: "1,234,567", -7405: "-7,405", -100: "-100"} {
		if got := reproduceThousands(n); got != want {
			t.Errorf("reproduceThousands(%d) = %q, want %q", n, got, want)
		}
	}
}
