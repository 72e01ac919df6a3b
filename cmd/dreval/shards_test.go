package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/retrieval"
)

// encodeShards runs "dreval encode -shard I/n" for every I into dir and
// returns the shards' .npy and .ids paths.
func encodeShards(t *testing.T, dir, in string, n int, extra ...string) (npys, ids []string) {
	t.Helper()
	for i := 0; i < n; i++ {
		out := filepath.Join(dir, "shard-"+strconv.Itoa(i)+".npy")
		args := append([]string{"encode", "-q", "-in", in, "-out", out, "-shard", strconv.Itoa(i) + "/" + strconv.Itoa(n)}, extra...)
		if code, _, errOut := runCLI(t, "", args...); code != 0 {
			t.Fatalf("encode shard %d: exit %d: %s", i, code, errOut)
		}
		npys = append(npys, out)
		ids = append(ids, strings.TrimSuffix(out, ".npy")+".ids")
	}
	return npys, ids
}

// TestShardRoundTrip is the must-show: "dreval encode -shard I/3"
// for I = 0..2 and a sharded "dreval search" give byte for byte the run of
// the unsharded encode and search, with ids and with row numbers, for
// the static model on Cranfield's 1,400 documents and for MiniLM (pure Go
// and, where it runs, ONNX Runtime) on 24 of them; the shards' rows are
// the whole matrix's.
func TestShardRoundTrip(t *testing.T) {
	models := filepath.Dir(sharedtest.ModelDir(t, "static"))
	corpus := sharedtest.Path(t, "data/cranfield/corpus.jsonl")
	queries := sharedtest.Path(t, "data/cranfield/queries.jsonl")
	raw, err := os.ReadFile(corpus)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	small := filepath.Join(t.TempDir(), "small.jsonl")
	if err := os.WriteFile(small, []byte(strings.Join(lines[:24], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, model, in string
		extra           []string
	}{
		{"static", "static", corpus, nil},
		{"minilm go", "minilm", small, []string{"-engine", "go"}},
	}
	if !testing.Short() {
		cases = append(cases, struct {
			name, model, in string
			extra           []string
		}{"minilm auto", "minilm", small, []string{"-engine", "auto"}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.model == "minilm" {
				sharedtest.ModelDir(t, "minilm")
			}
			dir := t.TempDir()
			p := func(n string) string { return filepath.Join(dir, n) }
			common := append([]string{"-models", models, "-model", tc.model}, tc.extra...)
			run := func(args ...string) {
				t.Helper()
				if code, _, errOut := runCLI(t, "", append(args, common...)...); code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errOut)
				}
			}
			run("encode", "-q", "-in", tc.in, "-out", p("whole.npy"), "-ids", p("whole.ids"))
			run("encode", "-q", "-side", "query", "-in", queries, "-out", p("q.npy"), "-ids", p("q.ids"))
			npys, ids := encodeShards(t, dir, tc.in, 3, common...)

			whole, err := retrieval.ReadNPYFile(p("whole.npy"))
			if err != nil {
				t.Fatal(err)
			}
			var rows []float32
			for _, f := range npys {
				m, err := retrieval.ReadNPYFile(f)
				if err != nil {
					t.Fatal(err)
				}
				rows = append(rows, m.Data...)
			}
			if len(rows) != len(whole.Data) || !bytes.Equal(f32bytes(rows), f32bytes(whole.Data)) {
				t.Errorf("the shards' rows differ from the unsharded matrix's")
			}
			var idsText []byte
			for _, f := range ids {
				b, _ := os.ReadFile(f)
				idsText = append(idsText, b...)
			}
			if w, _ := os.ReadFile(p("whole.ids")); !bytes.Equal(idsText, w) {
				t.Errorf("the shards' ids differ from the unsharded ids")
			}
			for _, withIDs := range []bool{true, false} {
				args := []string{"search", "-queries", p("q.npy"), "-query-ids", p("q.ids"), "-k", "100"}
				one := append(append([]string(nil), args...), "-corpus", p("whole.npy"), "-out", p("one.trec"))
				many := append(append([]string(nil), args...), "-corpus", strings.Join(npys, ","), "-out", p("many.trec"))
				if withIDs {
					one = append(one, "-corpus-ids", p("whole.ids"))
					many = append(many, "-corpus-ids", strings.Join(ids, ","))
				}
				for _, a := range [][]string{one, many} {
					if code, _, errOut := runCLI(t, "", a...); code != 0 {
						t.Fatalf("%v: exit %d: %s", a, code, errOut)
					}
				}
				a, _ := os.ReadFile(p("one.trec"))
				b, _ := os.ReadFile(p("many.trec"))
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("ids %v: the sharded run (%d bytes) differs from the unsharded one (%d bytes)", withIDs, len(b), len(a))
				}
			}
		})
	}
}

func f32bytes(v []float32) []byte {
	var b bytes.Buffer
	m := &retrieval.Matrix{Rows: 1, Dim: len(v), Data: v}
	if err := retrieval.WriteNPY(&b, m, retrieval.Float32); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// TestSearchShardTies checks that ties across shards break as in one
// corpus (by id, descending), with row numbers for ids.
func TestSearchShardTies(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	// 12 documents that all score 1: rank order is by id as a string.
	whole := retrieval.NewMatrix(12, 2)
	for i := 0; i < 12; i++ {
		whole.Data[2*i] = 1
	}
	q := &retrieval.Matrix{Rows: 1, Dim: 2, Data: []float32{1, 0}}
	write := func(name string, m *retrieval.Matrix) {
		if err := retrieval.WriteNPYFile(p(name), m, retrieval.Float32); err != nil {
			t.Fatal(err)
		}
	}
	write("whole.npy", whole)
	write("q.npy", q)
	write("a.npy", &retrieval.Matrix{Rows: 5, Dim: 2, Data: whole.Data[:10]})
	write("b.npy", &retrieval.Matrix{Rows: 7, Dim: 2, Data: whole.Data[10:]})
	for _, corpus := range []string{p("whole.npy"), p("a.npy") + "," + p("b.npy")} {
		code, out, errOut := runCLI(t, "", "search", "-corpus", corpus, "-queries", p("q.npy"), "-k", "5", "-score", "dot", "-out", "-")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		want := "0 Q0 9 1 1 dreval\n0 Q0 8 2 1 dreval\n0 Q0 7 3 1 dreval\n0 Q0 6 4 1 dreval\n0 Q0 5 5 1 dreval\n"
		if out != want {
			t.Errorf("-corpus %s: run\n%s\nwant\n%s", corpus, out, want)
		}
	}
}

func TestSearchShardErrors(t *testing.T) {
	dir := searchFixture(t)
	p := func(n string) string { return filepath.Join(dir, n) }
	other := &retrieval.Matrix{Rows: 1, Dim: 3, Data: []float32{1, 2, 3}}
	if err := retrieval.WriteNPYFile(p("dim3.npy"), other, retrieval.Float32); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p("d4.txt"), []byte("x\ny\nD2\nz\n"), 0o644)
	c := p("corpus.npy")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"ids count", []string{"-corpus", c + "," + c, "-corpus-ids", p("docs.txt")}, 2, "one ids file per shard"},
		{"id in two shards", []string{"-corpus", c + "," + c, "-corpus-ids", p("docs.txt") + "," + p("d4.txt")}, 1, `d4.txt:3: id "D2" is also on line 3 of ` + p("docs.txt")},
		{"dimension", []string{"-corpus", c + "," + p("dim3.npy")}, 1, "dim3.npy has 3-dimensional vectors"},
		{"empty name", []string{"-corpus", c + ","}, 2, "empty file name"},
		{"missing shard", []string{"-corpus", c + "," + p("nope.npy")}, 1, "nope.npy"},
	} {
		args := append([]string{"search", "-queries", p("queries.npy"), "-out", p("x.trec")}, tc.args...)
		code, _, errOut := runCLI(t, "", args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d (want %d), stderr %q does not say %q", tc.name, code, tc.code, errOut, tc.want)
		}
	}
}

func TestEncodeShardFlags(t *testing.T) {
	models := filepath.Dir(sharedtest.ModelDir(t, "static"))
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	os.WriteFile(p("noid.jsonl"), []byte(`{"_id":"a","text":"x"}`+"\n"+`{"text":"y"}`+"\n"), 0o644)
	os.WriteFile(p("dup.jsonl"), []byte(`{"_id":"a","text":"x"}`+"\n"+`{"_id":"a","text":"y"}`+"\n"), 0o644)
	os.WriteFile(p("lines.txt"), []byte("one\ntwo\nthree\nfour\nfive\n"), 0o644)
	base := []string{"encode", "-q", "-models", models, "-model", "static"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad shard", []string{"-in", p("lines.txt"), "-out", p("x.npy"), "-shard", "3/3"}, 2, "0 <= I < N"},
		{"shard from stdin", []string{"-in", "-", "-out", p("x.npy"), "-shard", "0/2"}, 2, "give a file"},
		{"ids elsewhere", []string{"-in", p("lines.txt"), "-out", p("x.npy"), "-ids", filepath.Join(t.TempDir(), "x.ids")}, 2, "in -out's folder"},
		{"not .npy", []string{"-in", p("lines.txt"), "-out", p("x.bin"), "-shard", "0/2"}, 2, "want a .npy file"},
		{"no _id", []string{"-in", p("noid.jsonl"), "-out", p("x.npy"), "-shard", "0/1"}, 1, `noid.jsonl:2: the record has no "_id"`},
		{"duplicate id", []string{"-in", p("dup.jsonl"), "-out", p("x.npy"), "-ids", p("x.ids")}, 1, `repeats line 1`},
	} {
		code, _, errOut := runCLI(t, "", append(base, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d (want %d), stderr %q does not say %q", tc.name, code, tc.code, errOut, tc.want)
		}
	}
	// Plain lines: the ids are the row numbers of the whole input.
	code, _, errOut := runCLI(t, "", append(base, "-in", p("lines.txt"), "-out", p("s1.npy"), "-shard", "1/2")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(p("s1.ids")); string(b) != "2\n3\n4\n" {
		t.Errorf("shard 1/2 of 5 lines has ids %q, want rows 2, 3 and 4", b)
	}
	meta, _ := os.ReadFile(p("s1.json"))
	for _, w := range []string{`"shard": 1`, `"shards": 2`, `"first_row": 2`, `"rows": 3`, `"total_rows": 5`, `"embeddings": "s1.npy"`, `"ids": "s1.ids"`} {
		if !strings.Contains(string(meta), w) {
			t.Errorf("s1.json lacks %s:\n%s", w, meta)
		}
	}
}

// TestEvalCorpusEmbeddings checks that "dreval eval -corpus-embeddings
// DIR" with the shards of "dreval encode -shard I/3" writes the runs of
// an eval that encodes the corpus itself, and that it refuses shards that
// do not fit: a missing shard, another corpus, another model.
func TestEvalCorpusEmbeddings(t *testing.T) {
	models := filepath.Dir(sharedtest.ModelDir(t, "static"))
	data := sharedtest.Path(t, "data/cranfield")
	dir := t.TempDir()
	shards := filepath.Join(dir, "shards")
	os.Mkdir(shards, 0o755)
	encodeShards(t, shards, filepath.Join(data, "corpus.jsonl"), 3, "-models", models, "-model", "static")
	eval := func(out string, extra ...string) (int, string) {
		args := append([]string{"eval", "-quiet", "-data", data, "-models-dir", models, "-models", "static", "-rates", "0,0.2", "-seeds", "1", "-no-cache", "-resamples", "100", "-out", out}, extra...)
		code, _, errOut := runCLI(t, "", args...)
		return code, errOut
	}
	if code, errOut := eval(filepath.Join(dir, "plain")); code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errOut)
	}
	if code, errOut := eval(filepath.Join(dir, "sharded"), "-corpus-embeddings", shards); code != 0 {
		t.Fatalf("eval -corpus-embeddings: exit %d: %s", code, errOut)
	}
	for _, run := range []string{"static__clean.trec", "static__rate0.2__seed1.trec"} {
		a, err := os.ReadFile(filepath.Join(dir, "plain", "runs", run))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "sharded", "runs", run))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs with -corpus-embeddings", run)
		}
	}
	res, _ := os.ReadFile(filepath.Join(dir, "sharded", "results.json"))
	if !strings.Contains(string(res), `"corpus_cache": "precomputed"`) {
		t.Errorf("results.json does not say the corpus vectors were precomputed")
	}

	// Broken shard folders.
	broken := func(name string, edit func(d string)) string {
		d := filepath.Join(dir, name)
		os.Mkdir(d, 0o755)
		entries, _ := os.ReadDir(shards)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(shards, e.Name()))
			os.WriteFile(filepath.Join(d, e.Name()), b, 0o644)
		}
		edit(d)
		return d
	}
	missing := broken("missing", func(d string) { os.Remove(filepath.Join(d, "shard-1.json")) })
	swapped := broken("swapped", func(d string) {
		b, _ := os.ReadFile(filepath.Join(d, "shard-2.ids"))
		lines := strings.Split(string(b), "\n")
		lines[0], lines[1] = lines[1], lines[0]
		os.WriteFile(filepath.Join(d, "shard-2.ids"), []byte(strings.Join(lines, "\n")), 0o644)
	})
	other := broken("other", func(d string) {
		for i := 0; i < 3; i++ {
			f := filepath.Join(d, "shard-"+strconv.Itoa(i)+".json")
			b, _ := os.ReadFile(f)
			os.WriteFile(f, bytes.Replace(b, []byte(`"model_fingerprint": "static-`), []byte(`"model_fingerprint": "other-`), 1), 0o644)
		}
	})
	tampered := broken("tampered", func(d string) {
		f := filepath.Join(d, "shard-0.json")
		b, _ := os.ReadFile(f)
		os.WriteFile(f, bytes.Replace(b, []byte(`"tokenizer_fingerprint": "`), []byte(`"tokenizer_fingerprint": "0`), 1), 0o644)
	})
	for _, tc := range []struct{ dir, want string }{
		{missing, "lacks shards 1 of 3 of model static"},
		{swapped, "shard-2.ids:1: id"},
		{other, "holds no shards of model static's document tower"},
		{tampered, "shard-0.json"},
		{filepath.Join(dir, "plain"), "holds no embedding shards"},
	} {
		code, errOut := eval(filepath.Join(dir, "x"), "-corpus-embeddings", tc.dir)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stderr %q does not say %q", filepath.Base(tc.dir), code, errOut, tc.want)
		}
	}
}
