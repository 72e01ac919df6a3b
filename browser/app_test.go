package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/retrieval"
)

// lesson is the opening lesson's run, shorter: the static model on the
// demo, two seeds.
func lesson(rates []float64, show float64) *RunRequest {
	return &RunRequest{Request: RunSettings{Model: "static", Data: "demo", Split: "test", Mode: string(perturb.IDShift),
		Rates: rates, Seeds: 2, FirstSeed: 1, Show: show, Engine: "go", Lesson: true}}
}

// numbers returns what a model's results say, less what depends on where
// and how fast it ran: its runs' means and comparisons, each rate's
// statistics and paired tests.
func numbers(t *testing.T, m *results.ModelResult) string {
	t.Helper()
	type run struct {
		Name    string
		Means   results.Values
		VsClean results.Comparisons
	}
	type rate struct {
		Rate  float64
		Stats results.Stats
		Drop  results.Comparisons
	}
	var out struct {
		Runs  []run
		Rates []rate
	}
	for _, r := range m.Runs() {
		out.Runs = append(out.Runs, run{r.Name, r.Means, r.VsClean})
	}
	for _, r := range m.Rates {
		out.Rates = append(out.Rates, rate{r.Rate, r.Stats, r.Drop})
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRunMatchesExperiment runs the lesson in the app (its model's files
// fetched from the site, its paired tests deferred, then filled by the
// export) and natively, as "dreval eval -engine go" runs it: the numbers
// are the same, and the reply carries the views, the rates run, what was
// encoded and the progress on the way.
func TestRunMatchesExperiment(t *testing.T) {
	a, s := newApp(t, 0)
	progress, r := ask(a, lesson([]float64{0, 0.1, 0.2}, 0.1))
	run, ok := r.(*RunReply)
	if !ok {
		t.Fatalf("reply %#v", r)
	}
	if run.Skipped != "" || !strings.Contains(run.Table, "<table") || !strings.Contains(run.Chart, "<svg") || run.Inspector == "" {
		t.Errorf("the reply's views: skipped %q, table %d bytes, chart %d, inspector %d", run.Skipped, len(run.Table), len(run.Chart), len(run.Inspector))
	}
	if !slices.Equal(run.Rates, []float64{0.1, 0.2}) {
		t.Errorf("rates %v, want the perturbed ones", run.Rates)
	}
	if len(run.Encoding) != 1 || run.Encoding[0].Model != "static" || run.Encoding[0].Texts == 0 || !strings.HasPrefix(run.Encoding[0].Engine, "static, 1 worker") {
		t.Errorf("encoding %+v", run.Encoding)
	}
	if !slices.ContainsFunc(run.Notes, func(n string) bool { return strings.Contains(n, "No precomputed demo vectors of static here") }) {
		t.Errorf("notes %q do not say the site has no precomputed vectors", run.Notes)
	}
	var view, counted bool
	for _, p := range progress {
		view = view || p.View && p.Table == run.Table && p.Chart == run.Chart
		counted = counted || p.Total > 0
	}
	if !view || !counted {
		t.Errorf("progress: the table and chart early %v, counting events %v (%d messages)", view, counted, len(progress))
	}
	for _, f := range []string{"models/index.json", "models/static/model.safetensors", "data/demo/static.json"} {
		if !s.wasAsked(f) {
			t.Errorf("the app did not fetch %s", f)
		}
	}

	ex := answer[*ExportReply](t, a, &ExportRequest{})
	var got results.Results
	if err := json.Unmarshal([]byte(ex.JSON), &got); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "static")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, b := range staticModel(t) {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := lesson([]float64{0, 0.1, 0.2}, 0.1).Request.config(experiment.DefaultRegistry(), nil, dataSource{names: []string{"demo"}},
		experiment.ModelOptions{Engine: experiment.EngineGo, ModelsDir: filepath.Dir(dir)})
	want, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := got.Datasets[0].Models[0]; len(m.Perturbed) != 4 || len(m.Clean.Means) == 0 || len(m.Rates) != 2 || len(m.Rates[0].Drop) == 0 {
		t.Fatalf("the export holds %d perturbed runs, %d clean means, %d rates: want 4, some, 2 with their tests", len(m.Perturbed), len(m.Clean.Means), len(m.Rates))
	}
	if g, w := numbers(t, got.Datasets[0].Models[0]), numbers(t, want.Datasets[0].Models[0]); g != w {
		t.Errorf("the app's numbers differ from experiment.Run's:\n%s\n%s", g, w)
	}
	if len(ex.RunsZip) == 0 || !bytes.HasPrefix(ex.AllZip, []byte("PK")) || !strings.Contains(ex.CSV, "static") {
		t.Errorf("export: runs zip %d bytes, all zip %d, csv %q", len(ex.RunsZip), len(ex.AllZip), ex.CSV[:min(len(ex.CSV), 80)])
	}
}

// TestSlider runs the page's slider: a sweep, a move to a rate it ran (a
// view, no run), a move to a new rate (a run with the corpus kept), and
// back; each answer shows the rate asked for, and the chart keeps every
// rate run.
func TestSlider(t *testing.T) {
	a, _ := newApp(t, 0)
	if msg := failure(t, a, &ViewRequest{Show: 0.1}); !strings.Contains(msg, "no results yet") {
		t.Errorf("a view before any run: %q", msg)
	}
	if msg := failure(t, a, &ExportRequest{}); !strings.Contains(msg, "no results yet") {
		t.Errorf("an export before any run: %q", msg)
	}
	sweep := answer[*RunReply](t, a, lesson([]float64{0, 0.05, 0.1, 0.2}, 0.1))
	steps := []struct {
		req   Message
		rate  string // the rate the table shows
		rates []float64
	}{
		{&ViewRequest{Show: 0.05}, "5%", []float64{0.05, 0.1, 0.2}},
		{&ViewRequest{Show: 0.2, TREC: true}, "20%", []float64{0.05, 0.1, 0.2}},
		{lesson([]float64{0, 0.3}, 0.3), "30%", []float64{0.3}},
		{&ViewRequest{Show: 0.3}, "30%", []float64{0.3}},
	}
	last := sweep.Chart
	for i, st := range steps {
		var v Views
		switch r := st.req.(type) {
		case *ViewRequest:
			v = answer[*ViewReply](t, a, r).Views
		default:
			run := answer[*RunReply](t, a, r)
			v = run.Views
			if run.Encoding[0].Texts >= sweep.Encoding[0].Texts {
				t.Errorf("step %d: the new rate's run encoded %d texts, the sweep %d: the corpus was not kept", i, run.Encoding[0].Texts, sweep.Encoding[0].Texts)
			}
		}
		if !slices.Equal(v.Rates, st.rates) {
			t.Errorf("step %d: rates %v, want %v", i, v.Rates, st.rates)
		}
		if !strings.Contains(v.Table, st.rate) {
			t.Errorf("step %d: the table does not show rate %s", i, st.rate)
		}
		if i == 2 && (v.Chart == last || strings.Count(v.Chart, "<circle") <= strings.Count(last, "<circle")) {
			t.Errorf("step %d: the chart did not gain the new rate's point", i)
		}
		last = v.Chart
	}
	if tr := answer[*ViewReply](t, a, &ViewRequest{Show: 0.3, TREC: true}); tr.Table == last {
		t.Error("the TREC conventions' table is the paper's")
	}
}

// TestLessonSkipped: the opening lesson of a model the site does not
// serve is skipped, saying why; a run of it is not.
func TestLessonSkipped(t *testing.T) {
	a := New(Ports{Files: &site{fsys: siteFS(t)}})
	q := lesson([]float64{0, 0.1}, 0.1)
	q.Request.Model = "minilm" // the site serves its tokenizer alone
	if r := answer[*RunReply](t, a, q); r.Skipped != "minilm: this server serves its files partly" {
		t.Errorf("skipped %q", r.Skipped)
	}
	q.Request.Lesson = false
	if msg := failure(t, a, q); msg == "" {
		t.Error("no error")
	}
	none := New(Ports{Files: &site{fsys: fstest.MapFS{}}})
	if r := answer[*RunReply](t, none, lesson([]float64{0, 0.1}, 0.1)); !strings.Contains(r.Skipped, "this site lists no models") {
		t.Errorf("a site without models: skipped %q", r.Skipped)
	}
	av := answer[*ModelsReply](t, a, &ModelsRequest{})
	if want := map[string]string{"static": "", "bm25": "", "minilm": "this server serves its files partly"}; !reflect.DeepEqual(av.Unavailable, want) {
		t.Errorf("models: %v, want %v", av.Unavailable, want)
	}
}

// TestUploads: a BEIR folder and a model the user chose are picked and
// stored as Go decides; a bad folder, a path out of it and a broken
// model fail, naming what is wrong; an upload's model runs on the
// uploaded data, and is forgotten.
func TestUploads(t *testing.T) {
	a, _ := newApp(t, 0)
	pick := answer[*PickReply](t, a, &PickRequest{Kind: "data", Folder: true, Files: []string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "notes.txt"}})
	if _, ok := pick.Send["notes.txt"]; ok || pick.Send["qrels/test.tsv"] == "" {
		t.Errorf("picked %v", pick.Send)
	}
	if msg := failure(t, a, &PickRequest{Kind: "music"}); !strings.Contains(msg, `unknown kind "music"`) {
		t.Errorf("pick of an unknown kind: %q", msg)
	}
	for _, bad := range []struct {
		req  *FilesRequest
		want string
	}{
		{&FilesRequest{Root: "elsewhere/x"}, "neither an uploaded model's directory nor an uploaded folder's"},
		{&FilesRequest{Root: "upload/x", Files: []File{{Path: "../escape", Data: []byte("x")}}}, `"../escape" is not a path inside the folder`},
		{&FilesRequest{Root: "upload/x", Files: []File{{Path: "..", Data: []byte("x")}}}, `".." is not a path inside the folder`},
	} {
		if msg := failure(t, a, bad.req); !strings.Contains(msg, bad.want) {
			t.Errorf("%+v: %q, want %q", bad.req, msg, bad.want)
		}
	}

	// A collection of the demo's first documents and queries.
	var corpus, queries, qrels strings.Builder
	for i := range 30 {
		corpus.WriteString(`{"_id": "d` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `", "title": "", "text": "the static model reads words like network and energy and model ` + strings.Repeat("x ", i) + `"}` + "\n")
	}
	queries.WriteString(`{"_id": "q1", "text": "energy network"}` + "\n" + `{"_id": "q2", "text": "model words"}` + "\n")
	qrels.WriteString("query-id\tcorpus-id\tscore\nq1\tdaa\t1\nq2\tdba\t1\n")
	answer[*FilesReply](t, a, &FilesRequest{Root: "upload/mini", Files: []File{
		{Path: "corpus.jsonl", Data: []byte(corpus.String())}, {Path: "queries.jsonl", Data: []byte(queries.String())}, {Path: "qrels/test.tsv", Data: []byte(qrels.String())}}})

	// A model upload: the static model's files, then a broken one.
	var files []File
	for f, b := range staticModel(t) {
		files = append(files, File{Path: f, Data: b})
	}
	answer[*FilesReply](t, a, &FilesRequest{Root: "models/upload-1-mine", Files: files})
	m := answer[*ModelReply](t, a, &ModelRequest{Model: "upload-1-mine", Engine: "go"})
	if m.Kind != "dense" || m.Dim != 16 || m.Engine != "static" || m.Weights != "model.safetensors" {
		t.Errorf("the upload described as %+v", m)
	}
	q := &RunRequest{Request: RunSettings{Model: "upload-1-mine", Data: "upload/mini", Mode: "idshift", Rates: []float64{0, 0.2}, Seeds: 1, FirstSeed: 1, Show: 0.2, Engine: "go"}}
	if run := answer[*RunReply](t, a, q); !strings.Contains(run.Table, "upload-1-mine") {
		t.Errorf("the run of the upload on the uploaded folder shows no row of it")
	}
	answer[*ForgetReply](t, a, &ForgetRequest{Model: "upload-1-mine"})

	broken := slices.Clone(files)
	for i := range broken {
		if broken[i].Path == "config.json" {
			broken[i].Data = []byte("{not json")
		}
	}
	answer[*FilesReply](t, a, &FilesRequest{Root: "models/upload-2-broken", Files: broken, Forget: "models/upload-1-mine"})
	if msg := failure(t, a, &ModelRequest{Model: "upload-2-broken", Engine: "go"}); !strings.Contains(msg, "config.json") {
		t.Errorf("a broken config.json: %q does not name the file", msg)
	}
	if msg := failure(t, a, &ModelRequest{Model: "upload-1-mine", Engine: "go"}); !strings.Contains(msg, "unknown model") {
		t.Errorf("a forgotten upload: %q", msg)
	}
	if msg := failure(t, a, &RunRequest{Request: RunSettings{Model: "static", Data: "upload/none", Rates: []float64{0, 0.1}, Seeds: 1, Engine: "go"}}); msg == "" {
		t.Error("a run on a folder never uploaded")
	}
	if msg := failure(t, a, &RunRequest{Request: RunSettings{Model: "static", Data: "demo", Engine: "cuda"}}); !strings.Contains(msg, `engine "cuda"`) {
		t.Errorf("an unknown engine: %q", msg)
	}
}

// TestTamperedWeights: weights whose bytes are not those the site's
// index lists are refused, naming the file.
func TestTamperedWeights(t *testing.T) {
	fsys := siteFS(t)
	w := fsys["models/static/model.safetensors"]
	tampered := slices.Clone(w.Data)
	tampered[len(tampered)-1] ^= 1
	fsys["models/static/model.safetensors"] = &fstest.MapFile{Data: tampered}
	a := New(Ports{Files: &site{fsys: fsys}})
	if msg := failure(t, a, lesson([]float64{0, 0.1}, 0.1)); !strings.Contains(msg, "models/static/model.safetensors has SHA-256") {
		t.Errorf("tampered weights: %q", msg)
	}
}

// TestVectors searches uploaded embeddings and scores the run: the
// numbers are "dreval search" then "dreval metrics"'s, the run is
// retrieval.WriteRun's; a missing matrix or bad ids are refused.
func TestVectors(t *testing.T) {
	a, _ := newApp(t, 0)
	corpus := &retrieval.Matrix{Rows: 3, Dim: 2, Data: []float32{1, 0, 0, 1, 0.6, 0.8}}
	queries := &retrieval.Matrix{Rows: 2, Dim: 2, Data: []float32{1, 0.1, 0.1, 1}}
	npy := func(m *retrieval.Matrix) []byte {
		var b bytes.Buffer
		if err := retrieval.WriteNPY(&b, m, "<f4"); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	req := &VectorsRequest{
		Corpus: &BinaryFile{Name: "c.npy", Data: npy(corpus)}, Queries: &BinaryFile{Name: "q.npy", Data: npy(queries)},
		CorpusIDs: &TextFile{Name: "c.ids", Text: "d1\nd2\nd3\n"},
		Qrels:     TextFile{Name: "q.trec", Text: "0 0 d1 1\n1 0 d2 1\n"},
	}
	r := answer[*MetricsReply](t, a, req)
	if r.Docs != 3 || r.Queries != 2 || r.Dim != 2 {
		t.Errorf("sizes %d docs, %d queries, %d dims", r.Docs, r.Queries, r.Dim)
	}
	if !strings.HasPrefix(r.Run, "0 Q0 d1 1 ") || !strings.Contains(r.Run, "\n1 Q0 d2 1 ") {
		t.Errorf("run:\n%s", r.Run)
	}
	if !strings.Contains(r.Text, "map") || !strings.Contains(r.Text, "1.0000") || r.HTML == "" || r.CSV == "" {
		t.Errorf("metrics:\n%s", r.Text)
	}
	req.Scoring = &Scoring{Measures: []string{"P.1"}}
	if r := answer[*MetricsReply](t, a, req); !strings.Contains(r.Text, "P_1") || strings.Contains(r.Text, "map") {
		t.Errorf("the measures asked for (P.1):\n%s", r.Text)
	}
	for _, bad := range []struct {
		edit func(*VectorsRequest)
		want string
	}{
		{func(q *VectorsRequest) { q.Corpus = nil }, "missing embeddings file"},
		{func(q *VectorsRequest) { q.CorpusIDs = &TextFile{Name: "c.ids", Text: "d1\nd2\n"} }, "c.ids"},
		{func(q *VectorsRequest) { q.Queries = &BinaryFile{Name: "q.npy", Data: []byte("not npy")} }, "q.npy"},
	} {
		q := *req
		bad.edit(&q)
		if msg := failure(t, a, &q); !strings.Contains(msg, bad.want) {
			t.Errorf("%q, want it to name %q", msg, bad.want)
		}
	}
}

// TestMetricsQrelsForms runs the page's qrels + run mode on the same
// judgments as TREC qrels and as BEIR qrels with a byte order mark and
// header, or without the header: the numbers shown and offered as CSV are
// the same; a malformed file is refused with its name and line.
func TestMetricsQrelsForms(t *testing.T) {
	const run = "q1 Q0 d3 1 0.9 r\nq1 Q0 d1 2 0.8 r\nq1 Q0 d2 3 0.7 r\nq2 Q0 d1 1 0.9 r\nq2 Q0 d2 2 0.5 r\n"
	a, _ := newApp(t, 0)
	ask := func(name, qrels string) *MetricsReply {
		t.Helper()
		return answer[*MetricsReply](t, a, &MetricsRequest{Qrels: TextFile{Name: name, Text: qrels}, Run: TextFile{Name: "r.run", Text: run}})
	}
	want := ask("q.trec", "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d2 1\nq3 0 d9 1\n")
	if !strings.Contains(want.Text, "map") {
		t.Fatalf("the TREC form's text lacks map:\n%s", want.Text)
	}
	for name, qrels := range map[string]string{
		"bom-header.tsv": "\ufeffquery-id\tcorpus-id\tscore\r\nq1\td1\t2\r\nq1\td2\t0\r\nq1\td3\t1\r\nq2\td2\t1\r\nq3\td9\t1\r\n",
		"no-header.tsv":  "q1\td1\t2\nq1\td2\t0\nq1\td3\t1\nq2\td2\t1\nq3\td9\t1\n",
	} {
		got := ask(name, qrels)
		if got.Text != want.Text || got.CSV != want.CSV {
			t.Errorf("%s: text\n%s\ncsv\n%s\nwant (TREC form)\n%s\n%s", name, got.Text, got.CSV, want.Text, want.CSV)
		}
	}
	msg := failure(t, a, &MetricsRequest{Qrels: TextFile{Name: "bad.tsv", Text: "q1\td1\tyes\n"}, Run: TextFile{Name: "r.run", Text: run}})
	if !strings.HasPrefix(msg, `bad.tsv:1: relevance "yes"`) {
		t.Errorf("bad qrels: %v", msg)
	}
}
