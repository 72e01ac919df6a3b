package dataset

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dreval/dreval/internal/sharedtest"
)

func TestLoadBEIRMini(t *testing.T) {
	c, err := LoadBEIR("testdata/mini", "test")
	if err != nil {
		t.Fatal(err)
	}
	wantDocs := []Doc{{"d1", "First", "alpha beta"}, {"d2", "", "gamma"}, {"d3", "", ""}}
	if !reflect.DeepEqual(c.Corpus, wantDocs) {
		t.Errorf("corpus %q", c.Corpus)
	}
	if c.Name != "mini" || len(c.Queries) != 3 {
		t.Errorf("name %q, %d queries", c.Name, len(c.Queries))
	}
	wantQrels := Qrels{"q1": {"d1": 2, "d2": 0}, "q2": {"d2": 1, "gone": 1}, "q9": {"d1": 1}}
	if !reflect.DeepEqual(c.Qrels, wantQrels) {
		t.Errorf("qrels %v", c.Qrels)
	}
	s := c.Stats()
	want := Stats{Docs: 3, Queries: 3, EmptyDocs: 1, JudgedQueries: 2, UnjudgedQueries: 1, AnsweredQueries: 2, Judgments: 5,
		Grades: map[int]int{0: 1, 1: 3, 2: 1}, QrelsQueries: 3, QrelsUnknownQueries: 1,
		AbsentDocs: 1, AbsentDocJudgments: 1}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("stats\n got %+v\nwant %+v", s, want)
	}
	wantWarn := []string{
		"1 docs have neither title nor text",
		"qrels name 1 docs absent from the corpus (1 judgments)",
		"qrels judge 1 queries absent from the queries file",
		"1 of 3 queries have no judgments",
	}
	if !reflect.DeepEqual(c.Warnings, wantWarn) {
		t.Errorf("warnings %q", c.Warnings)
	}
	if got := c.JudgedQueries(); len(got) != 2 || got[0].ID != "q1" || got[1].ID != "q2" {
		t.Errorf("judged queries %v", got)
	}
	if !reflect.DeepEqual(c.Answers, map[string][]string{"q1": {"alpha"}, "q2": {}}) ||
		!reflect.DeepEqual(c.ExtractiveAnswers, map[string][]string{"q1": {"alpha beta"}}) {
		t.Errorf("answers %q / %q", c.Answers, c.ExtractiveAnswers)
	}

	dev, err := Load("testdata/mini", "dev")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dev.Qrels, Qrels{"q1": {"d1": 1}}) {
		t.Errorf("dev qrels %v", dev.Qrels)
	}
	if got := Splits("testdata/mini"); !reflect.DeepEqual(got, []string{"dev", "test"}) {
		t.Errorf("splits %q", got)
	}
}

// TestLoadBEIRQrelsForms loads the same judgments written in each form
// metrics.ReadQrels reads: BEIR with its header and a byte order mark,
// BEIR without the header, and TREC's four columns.
func TestLoadBEIRQrelsForms(t *testing.T) {
	corpus := `{"_id":"d1","text":"x"}` + "\n" + `{"_id":"d2","text":"y"}` + "\n"
	queries := `{"_id":"q1","text":"y"}` + "\n"
	want := Qrels{"q1": {"d1": 2, "d2": 0}}
	for name, qrels := range map[string]string{
		"beir, BOM and header": "\ufeffquery-id\tcorpus-id\tscore\r\nq1\td1\t2\r\nq1\td2\t0\r\n",
		"beir without header":  "q1\td1\t2\nq1\td2\t0\n",
		"trec":                 "q1 0 d1 2\nq1 0 d2 0\n",
	} {
		c, err := LoadBEIR(writeDir(t, map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries, "qrels/test.tsv": qrels}), "test")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(c.Qrels, want) {
			t.Errorf("%s: qrels %v, want %v", name, c.Qrels, want)
		}
	}
}

// writeDir writes files (name -> content) under a new temporary directory.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadBEIRErrors(t *testing.T) {
	corpus := `{"_id":"d1","text":"x"}` + "\n"
	queries := `{"_id":"q1","text":"y"}` + "\n"
	qrels := "query-id\tcorpus-id\tscore\nq1\td1\t1\n"
	tests := []struct {
		name  string
		files map[string]string
		split string
		want  string
	}{
		{"duplicate doc", map[string]string{"corpus.jsonl": corpus + `{"_id":"d2","text":"x"}` + "\n" + corpus, "queries.jsonl": queries, "qrels/test.tsv": qrels},
			"test", `corpus.jsonl:3: duplicate doc id "d1" (first on line 1)`},
		{"duplicate query", map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries + queries, "qrels/test.tsv": qrels},
			"test", `queries.jsonl:2: duplicate query id "q1" (first on line 1)`},
		{"empty corpus", map[string]string{"corpus.jsonl": "\n", "queries.jsonl": queries, "qrels/test.tsv": qrels},
			"test", "corpus.jsonl: the corpus is empty"},
		{"no corpus", map[string]string{"queries.jsonl": queries, "qrels/test.tsv": qrels},
			"test", "corpus.jsonl: "},
		{"no queries", map[string]string{"corpus.jsonl": corpus, "queries.jsonl": "", "qrels/test.tsv": qrels},
			"test", "queries.jsonl: no queries"},
		{"missing split", map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries, "qrels/test.tsv": qrels},
			"dev", `no qrels for split "dev" (qrels/dev.tsv); splits here: test`},
		{"bad split", map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries, "qrels/test.tsv": qrels},
			"../test", `invalid split "../test"`},
		{"bad qrels", map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries, "qrels/test.tsv": "q1\td1\tyes\n"},
			"test", `test.tsv:1: relevance "yes": expected an integer`},
		{"bad answers", map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries, "qrels/test.tsv": qrels, "answers.jsonl": "{}"},
			"test", `answers.jsonl:1: missing "query-id"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeDir(t, tt.files)
			_, err := LoadBEIR(dir, tt.split)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := LoadBEIR(writeDir(t, map[string]string{"queries.jsonl": queries, "qrels/test.tsv": qrels}), "test"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing corpus: %v does not wrap fs.ErrNotExist", err)
	}
}

// TestLoadWithoutQrels loads DPR-style folders: answers.jsonl and no
// qrels. The absence of judgments is explicit (NoQrels, Qrels nil), not
// an empty set of judgments; without answers, or with a split missing
// beside the qrels of others, loading fails.
func TestLoadWithoutQrels(t *testing.T) {
	corpus := `{"_id":"d1","text":"Paris is in France"}` + "\n" + `{"_id":"d2","text":"Rome"}` + "\n"
	queries := `{"_id":"q1","text":"capital of France"}` + "\n" + `{"_id":"q2","text":"capital of Italy"}` + "\n" + `{"_id":"q3","text":"no answer here"}` + "\n"
	answers := `{"query-id":"q1","answers":["Paris"]}` + "\n" + `{"query-id":"q2","answers":["Rome"]}` + "\n"
	for _, load := range []struct {
		name string
		f    func(dir, split string) (*Collection, error)
		docs int
	}{{"LoadBEIR", LoadBEIR, 2}, {"Load", Load, 2}, {"LoadTopics", LoadTopics, 0}} {
		dir := writeDir(t, map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries, "answers.jsonl": answers})
		c, err := load.f(dir, "test")
		if err != nil {
			t.Fatalf("%s: %v", load.name, err)
		}
		if !c.NoQrels || c.Qrels != nil || len(c.JudgedQueries()) != 0 {
			t.Errorf("%s: NoQrels %v, qrels %v, %d judged queries; want true, nil, 0", load.name, c.NoQrels, c.Qrels, len(c.JudgedQueries()))
		}
		if len(c.Corpus) != load.docs || len(c.Queries) != 3 || !reflect.DeepEqual(c.Answers, map[string][]string{"q1": {"Paris"}, "q2": {"Rome"}}) {
			t.Errorf("%s: %d docs, %d queries, answers %q", load.name, len(c.Corpus), len(c.Queries), c.Answers)
		}
		s := c.Stats()
		if s.AnsweredQueries != 2 || s.JudgedQueries != 0 || s.Judgments != 0 {
			t.Errorf("%s: stats %+v", load.name, s)
		}
		wantWarn := []string{
			`no qrels for split "test" (qrels/test.tsv): no relevance judgments, only the answers of answers.jsonl`,
			"1 of 3 queries have no answers",
		}
		if !reflect.DeepEqual(c.Warnings, wantWarn) {
			t.Errorf("%s: warnings %q, want %q", load.name, c.Warnings, wantWarn)
		}
	}

	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"neither qrels nor answers", map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries},
			`no qrels for split "test" (qrels/test.tsv) and no answers.jsonl: nothing to evaluate against`},
		{"empty answers", map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries, "answers.jsonl": "\n"},
			`no qrels for split "test" (qrels/test.tsv) and answers.jsonl is empty`},
		{"other split", map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries, "answers.jsonl": answers, "qrels/dev.tsv": "q1\td1\t1\n"},
			`no qrels for split "test" (qrels/test.tsv); splits here: dev`},
		{"bad answers", map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries, "answers.jsonl": `{"query-id":"q1"}`},
			`answers.jsonl:1: missing "answers"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadBEIR(writeDir(t, tt.files), "test")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v (collection %v), want an error containing %q", err, c != nil, tt.want)
			}
		})
	}
}

func TestLoadNotADirectory(t *testing.T) {
	if _, err := Load("testdata/topics.tsv", "test"); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("got %v", err)
	}
	if _, err := Load("no/such/dir", "test"); err == nil || !strings.Contains(err.Error(), `not a built-in collection`) {
		t.Errorf("got %v", err)
	}
}

// TestSharedCollections loads every BEIR-layout collection in the shared
// data and checks the counts published in its README.
func TestSharedCollections(t *testing.T) {
	tests := []struct {
		dir, split       string
		docs, queries    int
		judged, qrels    int
		answers          int
		extractive       int
		absentDocs       int
		emptyDocs        int
		grades           map[int]int
		firstDoc, lastQ  string
		firstDocTitlePre string
	}{
		{dir: "cranfield", split: "test", docs: 1400, queries: 225, judged: 225, qrels: 1837,
			grades: map[int]int{-1: 225, 1: 128, 2: 387, 3: 734, 4: 363}, firstDoc: "1", lastQ: "225",
			emptyDocs: 2}, // docs 471 and 995 are empty in the source

		{dir: "vaswani-npl", split: "test", docs: 11429, queries: 93, judged: 93, qrels: 2083,
			grades: map[int]int{1: 2083}, firstDoc: "1", lastQ: "93"},
		{dir: "cacm", split: "test", docs: 3204, queries: 64, judged: 52, qrels: 796,
			grades: map[int]int{1: 796}, firstDoc: "CACM-0001", lastQ: "64", firstDocTitlePre: "Preliminary Report",
			// The qrels pad document ids like the corpus ("CACM-0115"):
			// every judgment names a document of the corpus.
			absentDocs: 0},
		{dir: "squad-v1.1-dev", split: "test", docs: 2067, queries: 10570, judged: 10570, qrels: 10570, answers: 10570,
			grades: map[int]int{1: 10570}, firstDoc: "a00p000", firstDocTitlePre: "Super Bowl 50"},
		{dir: "hotpotqa-dev-100", split: "test", docs: 991, queries: 100, judged: 100, qrels: 200, answers: 100,
			grades: map[int]int{1: 200}, firstDoc: "hp-p0000", lastQ: "hotpot-dev-0099"},
		{dir: "dureader-demo-zh", split: "test", docs: 10485, queries: 200, judged: 99, qrels: 99, answers: 200, extractive: 200,
			grades: map[int]int{1: 99}},
		{dir: "dureader-demo-zh", split: "train", docs: 10485, queries: 200, judged: 95, qrels: 95, answers: 200, extractive: 200,
			grades: map[int]int{1: 95}},
	}
	for _, tt := range tests {
		t.Run(tt.dir+"/"+tt.split, func(t *testing.T) {
			dir := sharedtest.Path(t, "data/"+tt.dir)
			c, err := Load(dir, tt.split)
			if err != nil {
				t.Fatal(err)
			}
			s := c.Stats()
			if s.Docs != tt.docs || s.Queries != tt.queries || s.JudgedQueries != tt.judged || s.Judgments != tt.qrels {
				t.Errorf("docs %d queries %d judged %d qrels %d; want %d %d %d %d",
					s.Docs, s.Queries, s.JudgedQueries, s.Judgments, tt.docs, tt.queries, tt.judged, tt.qrels)
			}
			if s.UnjudgedQueries != tt.queries-tt.judged {
				t.Errorf("unjudged %d, want %d", s.UnjudgedQueries, tt.queries-tt.judged)
			}
			if s.AbsentDocs != tt.absentDocs || s.QrelsUnknownQueries != 0 {
				t.Errorf("absent docs %d, unknown qrels queries %d; warnings %q", s.AbsentDocs, s.QrelsUnknownQueries, c.Warnings)
			}
			if !reflect.DeepEqual(s.Grades, tt.grades) {
				t.Errorf("grades %v, want %v", s.Grades, tt.grades)
			}
			if len(c.Answers) != tt.answers || len(c.ExtractiveAnswers) != tt.extractive {
				t.Errorf("%d answers, %d extractive; want %d, %d", len(c.Answers), len(c.ExtractiveAnswers), tt.answers, tt.extractive)
			}
			if tt.firstDoc != "" && c.Corpus[0].ID != tt.firstDoc {
				t.Errorf("first doc %q, want %q", c.Corpus[0].ID, tt.firstDoc)
			}
			if tt.lastQ != "" && c.Queries[len(c.Queries)-1].ID != tt.lastQ {
				t.Errorf("last query %q, want %q", c.Queries[len(c.Queries)-1].ID, tt.lastQ)
			}
			if !strings.HasPrefix(c.Corpus[0].Title, tt.firstDocTitlePre) {
				t.Errorf("first title %q", c.Corpus[0].Title)
			}
			if s.EmptyDocs != tt.emptyDocs {
				t.Errorf("%d empty docs, want %d", s.EmptyDocs, tt.emptyDocs)
			}
		})
	}
}

// TestSharedAnswers spot-checks answers against the files' first lines.
func TestSharedAnswers(t *testing.T) {
	c, err := LoadBEIR(sharedtest.Path(t, "data/squad-v1.1-dev"), "test")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Santa Clara, California", "Levi's Stadium", "Levi's Stadium in the San Francisco Bay Area at Santa Clara, California."}
	if got := c.Answers["56be4db0acb8001400a502ee"]; !reflect.DeepEqual(got, want) {
		t.Errorf("squad answers %q", got)
	}
	h, err := LoadBEIR(sharedtest.Path(t, "data/hotpotqa-dev-100"), "test")
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Answers["hotpot-dev-0001"]; !reflect.DeepEqual(got, []string{"Chief of Protocol"}) {
		t.Errorf("hotpot answers %q", got)
	}
	// yesno_query_ids.txt: the 12 yes/no questions, answered yes or no.
	if len(h.NotSpans) != 12 || !h.NotSpans["hotpot-dev-0000"] {
		t.Errorf("hotpot NotSpans %v, want the 12 ids of yesno_query_ids.txt", h.NotSpans)
	}
	for id := range h.NotSpans {
		if a := strings.ToLower(strings.Join(h.Answers[id], "")); a != "yes" && a != "no" {
			t.Errorf("%s is listed as yes/no but answers %q", id, h.Answers[id])
		}
	}
	if c.NotSpans != nil {
		t.Errorf("squad has no %s, yet NotSpans = %v", NotSpansFile, c.NotSpans)
	}
	d, err := LoadBEIR(sharedtest.Path(t, "data/dureader-demo-zh"), "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.ExtractiveAnswers["91159"]) != 1 || !strings.HasPrefix(d.ExtractiveAnswers["91159"][0], "1将手机微信打开") {
		t.Errorf("dureader extractive answers %q", d.ExtractiveAnswers["91159"])
	}
}

// TestSharedBEIRTopics loads the queries and qrels of every BEIR topic set
// and checks them against stats.json.
func TestSharedBEIRTopics(t *testing.T) {
	root := sharedtest.Path(t, "data/beir-topics")
	data, err := os.ReadFile(filepath.Join(root, "stats.json"))
	if err != nil {
		t.Fatal(err)
	}
	var stats map[string]struct {
		T          int            `json:"topics"`
		Q          int            `json:"qrels"`
		QQ         int            `json:"qrels_queries"`
		GradeHist  map[string]int `json:"grade_hist"`
		UniqueDocs int            `json:"unique_docs_in_qrels"`
		Unjudged   int            `json:"topics_without_qrels"`
	}
	if err := json.Unmarshal(data, &stats); err != nil {
		t.Fatal(err)
	}
	if len(stats) != 9 {
		t.Errorf("stats.json has %d sets, the README names 9", len(stats))
	}
	for name, want := range stats {
		t.Run(name, func(t *testing.T) {
			c, err := LoadTopics(filepath.Join(root, name), "test")
			if err != nil {
				t.Fatal(err)
			}
			s := c.Stats()
			if s.Queries != want.T || s.Judgments != want.Q || s.QrelsQueries != want.QQ || s.UnjudgedQueries != want.Unjudged {
				t.Errorf("queries %d judgments %d qrels queries %d unjudged %d; stats.json says %d %d %d %d",
					s.Queries, s.Judgments, s.QrelsQueries, s.UnjudgedQueries, want.T, want.Q, want.QQ, want.Unjudged)
			}
			docs := map[string]bool{}
			for _, judged := range c.Qrels {
				for d := range judged {
					docs[d] = true
				}
			}
			if len(docs) != want.UniqueDocs {
				t.Errorf("%d distinct docs in qrels, stats.json says %d", len(docs), want.UniqueDocs)
			}
			grades := map[string]int{}
			for g, n := range s.Grades {
				grades[strconv.Itoa(g)] = n
			}
			if !reflect.DeepEqual(grades, want.GradeHist) {
				t.Errorf("grades %v, stats.json says %v", grades, want.GradeHist)
			}
			if c.Corpus != nil || s.AbsentDocs != 0 {
				t.Errorf("topics have a corpus?")
			}
		})
	}
}

func TestIsFile(t *testing.T) {
	for file, want := range map[string]bool{
		"corpus.jsonl": true, "queries.jsonl": true, "queries.test.jsonl": true, "qrels/test.tsv": true,
		"qrels/dev.tsv": true, "answers.jsonl": true, "yesno_query_ids.txt": true,
		"README.md": false, "qrels/.tsv": false, "qrels/a/b.tsv": false, "corpus.jsonl.gz": false, "sub/corpus.jsonl": false,
	} {
		if got := IsFile(file); got != want {
			t.Errorf("IsFile(%q) = %v, want %v", file, got, want)
		}
	}
}

// TestLoadFS loads a folder from memory as from disk; errors name the
// files by their path in the file system.
func TestLoadFS(t *testing.T) {
	dir := filepath.Join("testdata", "mini")
	disk, err := LoadBEIR(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	mem := fstest.MapFS{}
	for _, f := range []string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv"} {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		mem["upload/mini/"+f] = &fstest.MapFile{Data: b}
	}
	c, err := LoadFS(mem, "upload/mini", "test")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "mini" || !reflect.DeepEqual(c.Corpus, disk.Corpus) || !reflect.DeepEqual(c.Queries, disk.Queries) || !reflect.DeepEqual(c.Qrels, disk.Qrels) {
		t.Errorf("loaded from memory: %+v, from disk: %+v", c, disk)
	}
	delete(mem, "upload/mini/corpus.jsonl")
	if _, err := LoadFS(mem, "upload/mini", "test"); err == nil || !strings.Contains(err.Error(), "upload/mini") || !strings.Contains(err.Error(), "corpus.jsonl") {
		t.Errorf("missing corpus: %v", err)
	}
}

func TestPickFiles(t *testing.T) {
	got, err := PickFiles([]string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "README.md", "qrels/notes.txt"}, true)
	if want := map[string]string{"corpus.jsonl": "corpus.jsonl", "queries.jsonl": "queries.jsonl", "qrels/test.tsv": "qrels/test.tsv"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("folder: %v, %v; want %v", got, err, want)
	}
	got, err = PickFiles([]string{"corpus.jsonl", "test.tsv"}, false)
	if want := map[string]string{"corpus.jsonl": "corpus.jsonl", "test.tsv": "qrels/test.tsv"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("files one by one: %v, %v; want %v", got, err, want)
	}
	if _, err := PickFiles([]string{"README.md"}, true); err == nil {
		t.Error("a folder without collection files: no error")
	}
}
