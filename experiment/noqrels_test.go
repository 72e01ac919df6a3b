package experiment_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/answer"
	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/results"
)

// writeDPRFolder writes a small DPR-style collection without qrels: twelve
// passages, eight questions with answers and two queries without, and
// returns its folder.
func writeDPRFolder(t *testing.T) string {
	t.Helper()
	topics := []struct{ title, text, question, answer string }{
		{"France", "Paris is the capital of France", "what is the capital of France", "Paris"},
		{"Italy", "Rome is the capital of Italy", "what is the capital of Italy", "Rome"},
		{"Spain", "Madrid is the capital of Spain", "what is the capital of Spain", "Madrid"},
		{"Jupiter", "Jupiter is the largest planet", "which planet is the largest", "Jupiter"},
		{"Everest", "Everest is the highest mountain on Earth", "which mountain is the highest on Earth", "Everest"},
		{"Nile", "the Nile is a long river in Africa", "which long river flows in Africa", "Nile"},
		{"Oxygen", "oxygen has atomic number eight", "which element has atomic number eight", "oxygen"},
		{"Pacific", "the Pacific is the largest ocean", "which ocean is the largest", "Pacific"},
		{"Tea", "tea is a drink made from leaves", "", ""},
		{"Chess", "chess is a board game for two players", "", ""},
		{"Violin", "the violin is a string instrument", "", ""},
		{"Salt", "salt is sodium chloride", "", ""},
	}
	var corpus, queries, answers strings.Builder
	for i, tp := range topics {
		fmt.Fprintf(&corpus, `{"_id":"p%d","title":%q,"text":%q}`+"\n", i, tp.title, tp.text)
		if tp.question != "" {
			fmt.Fprintf(&queries, `{"_id":"q%d","text":%q}`+"\n", i, tp.question)
			fmt.Fprintf(&answers, `{"query-id":"q%d","answers":[%q]}`+"\n", i, tp.answer)
		}
	}
	// Two queries without answers: counted and warned about, not searched.
	queries.WriteString(`{"_id":"x1","text":"what is a violin"}` + "\n" + `{"_id":"x2","text":"how is tea made"}` + "\n")
	dir := filepath.Join(t.TempDir(), "dpr-tiny")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"corpus.jsonl": corpus.String(), "queries.jsonl": queries.String(), "answers.jsonl": answers.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// noQrelsConfig returns an experiment over the folder dir with the fake
// dense and lexical models.
func noQrelsConfig(t *testing.T, dir string) (experiment.Config, *dataset.Collection) {
	t.Helper()
	c, err := dataset.Load(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := fakeConfig(c)
	cfg.Collections = nil
	cfg.Data = []string{dir}
	cfg.Models = []string{"fake", "fakebm25"}
	cfg.Task = experiment.TaskDPR
	cfg.PassageText = true
	cfg.AnswerKs = []int{1, 2, 5}
	cfg.Rates = []float64{0, 0.3}
	cfg.Seeds = 2
	cfg.K = 10
	return cfg, c
}

// TestRunWithoutQrels runs task dpr on a DPR-style folder without qrels:
// every question with answers is searched, the answer accuracy of every
// run is what package answer computes on the run, its paired comparisons
// are made, and nothing of st, trec or their comparisons is reported.
func TestRunWithoutQrels(t *testing.T) {
	dir := writeDPRFolder(t)
	cfg, c := noQrelsConfig(t, dir)
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds := res.Datasets[0]
	if !ds.QrelsAbsent || ds.Qrels != nil || ds.Judged != 0 || ds.Unjudged != 0 || ds.Unanswered != 2 || ds.Queries != 10 {
		t.Errorf("qrels absent %v, qrels %v, judged %d, unjudged %d, unanswered %d, queries %d; want true, nil, 0, 0, 2, 10",
			ds.QrelsAbsent, ds.Qrels, ds.Judged, ds.Unjudged, ds.Unanswered, ds.Queries)
	}
	if ds.Answers == nil || ds.Answers.Questions != 8 || len(ds.Answers.WithoutAnswers) != 0 {
		t.Fatalf("answer summary %+v, want 8 questions", ds.Answers)
	}
	warnings := strings.Join(res.Warnings, "\n")
	for _, want := range []string{"has no relevance judgments (no qrels/test.tsv): only the answer accuracy is measured", "2 of 10 queries have no answers and are excluded"} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings lack %q:\n%s", want, warnings)
		}
	}
	if len(res.Average) != 0 {
		t.Errorf("average drops %v from a dataset without qrels", res.Average)
	}

	var questions []answer.Question
	for _, q := range c.Queries {
		if a, ok := c.Answers[q.ID]; ok {
			questions = append(questions, answer.Question{ID: q.ID, Answers: a})
		}
	}
	passages, err := answer.NewPassages(c.Corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ds.Models {
		runs := append([]*results.RunResult{m.Clean}, m.Perturbed...)
		if len(runs) != 3 {
			t.Fatalf("%s: %d runs, want 3", m.Model, len(runs))
		}
		for _, rr := range runs {
			if len(rr.Run) != 8 || rr.Run["x1"] != nil || rr.Run["x2"] != nil {
				t.Errorf("%s: %d queries searched (x1 %v, x2 %v), want the 8 questions", rr.Name, len(rr.Run), rr.Run["x1"] != nil, rr.Run["x2"] != nil)
			}
			if rr.Means != nil || rr.PerQuery != nil || rr.VsClean != nil || rr.Queries != nil {
				t.Errorf("%s: means %v queries %v per-query %v vs-clean %v: scores without qrels", rr.Name, rr.Means, rr.Queries, rr.PerQuery, rr.VsClean)
			}
			want, err := answer.TopK(rr.Run, questions, passages, answer.Options{Ks: []int{1, 2, 5}, Mode: answer.String})
			if err != nil {
				t.Fatal(err)
			}
			got := rr.Answers["string"]
			if got == nil || !reflect.DeepEqual(got.Accuracy, want.Accuracy) || !reflect.DeepEqual(got.Hits, want.Hits) ||
				!reflect.DeepEqual(got.FirstHit, want.FirstHit) || got.Questions != 8 {
				t.Errorf("%s: answer accuracy %+v, package answer on the run gives %v hits %v", rr.Name, got, want.Accuracy, want.Hits)
			}
		}
		if m.Clean.Answers["string"].Accuracy[2] == 0 {
			t.Errorf("%s: clean top-5 accuracy 0: the collection does not exercise the measure", m.Model)
		}
		if len(m.Rates) != 1 {
			t.Fatalf("%s: %d rate summaries", m.Model, len(m.Rates))
		}
		rs := m.Rates[0]
		if rs.Stats != nil || rs.Drop != nil {
			t.Errorf("%s: rate summary has st/trec values without qrels: %+v", m.Model, rs)
		}
		if rs.ChangedFraction.N != 2 || rs.ChangedFraction.Mean <= 0 {
			t.Errorf("%s: changed fraction %+v", m.Model, rs.ChangedFraction)
		}
		drops := rs.AnswerDrop["string"]
		if len(rs.Answers["string"]) != 3 || len(drops) != 3 {
			t.Fatalf("%s: answer summary %v drops %v", m.Model, rs.Answers, drops)
		}
		for j := range drops {
			mean := (m.Perturbed[0].Answers["string"].Accuracy[j] + m.Perturbed[1].Answers["string"].Accuracy[j]) / 2
			diff := mean - m.Clean.Answers["string"].Accuracy[j]
			if d := float64(drops[j].MeanDiff) - diff; d > 1e-12 || d < -1e-12 || drops[j].N != 8 {
				t.Errorf("%s k index %d: paired difference %v over %d questions, want %v over 8", m.Model, j, drops[j].MeanDiff, drops[j].N, diff)
			}
		}
	}

	// The JSON says the qrels were absent and holds no st or trec values.
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Datasets []map[string]any `json:"datasets"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if raw.Datasets[0]["qrels_absent"] != true {
		t.Errorf("results JSON: qrels_absent = %v", raw.Datasets[0]["qrels_absent"])
	}
	dsJSON, err := json.Marshal(raw.Datasets)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(dsJSON), `"ndcg@10"`) || strings.Contains(string(dsJSON), `"map"`) || strings.Contains(string(dsJSON), "NaN") {
		t.Errorf("results JSON holds st values or NaN for a dataset without qrels")
	}
}

// TestRunWithoutQrelsErrors checks the tasks that cannot run on a folder
// without qrels: ir names the folder and the missing file; a collection
// without qrels whose questions have no answers has nothing to measure.
func TestRunWithoutQrelsErrors(t *testing.T) {
	dir := writeDPRFolder(t)
	cfg, _ := noQrelsConfig(t, dir)
	cfg.Task = experiment.TaskIR
	cfg.AnswerKs = nil
	_, err := experiment.Run(context.Background(), cfg, nil)
	if err == nil || !errors.Is(err, experiment.ErrNoQrels) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "no qrels/test.tsv") {
		t.Errorf("task ir: got %v, want ErrNoQrels naming %s and qrels/test.tsv", err, dir)
	}

	cfg, c := noQrelsConfig(t, dir)
	cfg.Data = nil
	none := *c
	none.Answers = map[string][]string{"elsewhere": {"x"}}
	cfg.Collections = []*dataset.Collection{&none}
	_, err = experiment.Run(context.Background(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "none of its 10 queries has answers") {
		t.Errorf("no question with answers: got %v", err)
	}

	// Task dureader without qrels: the answer accuracy only, no dureader
	// convention (it needs judgments).
	cfg, _ = noQrelsConfig(t, dir)
	cfg.Task = experiment.TaskDuReader
	cfg.Models = []string{"fakebm25"}
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Datasets[0].Models[0]
	if m.Clean.Means != nil || m.Rates[0].Stats != nil || m.Rates[0].Drop != nil || m.Clean.Answers["substring"] == nil {
		t.Errorf("dureader without qrels: means %v / %v, answers %v", m.Clean.Means, m.Rates[0].Stats, m.Clean.Answers)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "st, trec and dureader scores need judgments") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestAverageSkipsDatasetsWithoutQrels runs two datasets, one without
// qrels: the average over datasets needs st values on at least two.
func TestAverageSkipsDatasetsWithoutQrels(t *testing.T) {
	dir := writeDPRFolder(t)
	cfg, c := noQrelsConfig(t, dir)
	d := demo(t)
	d.Answers = map[string][]string{}
	for _, q := range d.Queries {
		d.Answers[q.ID] = []string{experimenttest.Words(q.Text)[0]}
	}
	cfg.Collections = []*dataset.Collection{d}
	cfg.Registry, _ = experimenttest.Registry(experimenttest.NewTokenizer(collectionTexts(c, d)...))
	cfg.Models = []string{"fakebm25"}
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Datasets) != 2 || !res.Datasets[0].QrelsAbsent || res.Datasets[1].QrelsAbsent {
		t.Fatalf("datasets %d, qrels absent %v %v", len(res.Datasets), res.Datasets[0].QrelsAbsent, res.Datasets[1].QrelsAbsent)
	}
	if res.Average != nil {
		t.Errorf("average over one dataset with qrels: %v", res.Average)
	}
	if res.Datasets[1].Models[0].Clean.Means[st] == nil {
		t.Errorf("the dataset with qrels lost its st values")
	}
}

// collectionTexts returns every text of the collections, for a tokenizer
// over all of them.
func collectionTexts(cs ...*dataset.Collection) []string {
	var out []string
	for _, c := range cs {
		for _, d := range c.Corpus {
			out = append(out, d.Title, d.Text)
		}
		for _, q := range c.Queries {
			out = append(out, q.Text)
		}
	}
	return out
}
