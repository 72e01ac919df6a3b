package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/results"
)

// withFakeModelsFor makes eval and reproduce open the fake models of
// experimenttest over the words of the collection in dir.
func withFakeModelsFor(t *testing.T, dir string) {
	t.Helper()
	c, err := dataset.Load(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	tok := experimenttest.ForCollection(c)
	saved := evalRegistry
	evalRegistry = func() *experiment.Registry {
		r, _ := experimenttest.Registry(tok)
		return r
	}
	t.Cleanup(func() { evalRegistry = saved })
}

const qaTiny = "testdata/qa-tiny"

// TestEvalTaskDPR runs eval -task dpr on a tiny collection with answers
// (one of them yes/no) and checks every run's answer accuracy against
// "dreval answers" on the written run file, the yes/no question's
// accounting, and the passage-text switch.
func TestEvalTaskDPR(t *testing.T) {
	withFakeModelsFor(t, qaTiny)
	out := t.TempDir()
	code, stdout, errOut := runCLI(t, "", "eval", "-data", qaTiny, "-task", "dpr", "-models", "fake,fakebm25",
		"-rates", "0,0.5", "-seeds", "2", "-k", "8", "-answer-k", "1,2,5", "-resamples", "200", "-no-cache", "-quiet", "-out", out)
	if code != 0 {
		t.Fatalf("eval exited %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "1 of 6 questions have answers that are not passage spans") {
		t.Errorf("the yes/no question is not reported on stderr:\n%s", errOut)
	}
	if !strings.Contains(stdout, "answer-span accuracy") || !strings.Contains(stdout, "1 of them have answers the collection declares not passage spans") {
		t.Errorf("the answer table or its yes/no note is missing:\n%s", stdout)
	}
	res := readResults(t, out)
	if res.Task != "dpr" || !res.Config.PassageText || !reflect.DeepEqual(res.AnswerModes, []string{"string"}) {
		t.Errorf("task %q passage text %v modes %v, want dpr, true, [string]", res.Task, res.Config.PassageText, res.AnswerModes)
	}
	ds := res.Datasets[0]
	if ds.Answers == nil || ds.Answers.Questions != 6 || !reflect.DeepEqual(ds.Answers.Unanswerable, []string{"q5"}) {
		t.Fatalf("answer summary %+v, want 6 questions with q5 unanswerable", ds.Answers)
	}
	runs := 0
	for _, m := range ds.Models {
		if len(m.Rates) != 1 || len(m.Rates[0].Answers["string"]) != 3 || len(m.Rates[0].AnswerDrop["string"]) != 3 {
			t.Errorf("%s: rate summary lacks the answer accuracy: %+v", m.Model, m.Rates)
		}
		for _, rr := range append([]*results.RunResult{m.Clean}, m.Perturbed...) {
			runs++
			a := rr.Answers["string"]
			if a == nil {
				t.Fatalf("%s: no answer accuracy", rr.Name)
			}
			if a.Questions != 6 || a.Unanswerable != 1 || a.FirstHit["q5"] != 0 {
				t.Errorf("%s: %d questions, %d unanswerable, q5 first hit %d; want 6, 1, 0", rr.Name, a.Questions, a.Unanswerable, a.FirstHit["q5"])
			}
			code, js, errOut := runCLI(t, "", "answers", "-answers", filepath.Join(qaTiny, "answers.jsonl"),
				"-passages", filepath.Join(qaTiny, "corpus.jsonl"), "-run", filepath.Join(out, filepath.FromSlash(report.RunFile(res, ds, rr))),
				"-k", "1,2,5", "-format", "json")
			if code != 0 {
				t.Fatalf("answers on %s exited %d: %s", rr.Name, code, errOut)
			}
			var got struct {
				TopK struct {
					Values []float64 `json:"values"`
				} `json:"top_k"`
				PerQuery map[string]int `json:"per_query"`
			}
			if err := json.Unmarshal([]byte(js), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.PerQuery, a.FirstHit) {
				t.Errorf("%s: first hits %v in results.json, %v from dreval answers", rr.Name, a.FirstHit, got.PerQuery)
			}
		}
	}
	if runs != 6 {
		t.Errorf("checked %d runs, want 6", runs)
	}
	b, err := os.ReadFile(filepath.Join(out, "tables.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"answer-span accuracy", "change of the answer accuracy", "Top-5"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("tables.md lacks %q", want)
		}
	}
}

// TestEvalPassageTextChangesCache checks that the DPR passage text is
// part of the corpus cache key: the same model on the same corpus stores
// a second entry when the encoded text changes.
func TestEvalPassageTextChangesCache(t *testing.T) {
	withFakeModelsFor(t, qaTiny)
	cache := t.TempDir()
	for _, pt := range []string{"off", "on", "off"} {
		code, _, errOut := runCLI(t, "", "eval", "-data", qaTiny, "-task", "dpr", "-passage-text", pt, "-models", "fake",
			"-rates", "0", "-resamples", "50", "-cache", cache, "-quiet", "-out", t.TempDir())
		if code != 0 {
			t.Fatalf("eval exited %d: %s", code, errOut)
		}
	}
	entries, err := filepath.Glob(filepath.Join(cache, "*"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, e := range entries {
		keys[strings.SplitN(filepath.Base(e), ".", 2)[0]] = true
	}
	if len(keys) != 2 {
		t.Errorf("cache holds %d keys %v, want 2 (one per document text)", len(keys), entries)
	}
}

// TestEvalTaskDuReaderMatchesMetrics checks that the dureader scores of
// every run equal "dreval metrics -convention dureader" on the written
// run files, mean and per query.
func TestEvalTaskDuReaderMatchesMetrics(t *testing.T) {
	withFakeModels(t)
	out := t.TempDir()
	code, _, errOut := runCLI(t, "", "eval", "-data", "demo", "-task", "dureader", "-models", "fake,fakebm25",
		"-rates", "0,0.3", "-seeds", "2", "-resamples", "100", "-no-cache", "-quiet", "-out", out)
	if code != 0 {
		t.Fatalf("eval exited %d: %s", code, errOut)
	}
	res := readResults(t, out)
	if want := []string{"MRR@10", "recall@1", "recall@50"}; !reflect.DeepEqual(res.Measures(dureader), want) {
		t.Fatalf("dureader measures %v", res.Measures(dureader))
	}
	ds := res.Datasets[0]
	runs := 0
	for _, m := range ds.Models {
		for _, rr := range append([]*results.RunResult{m.Clean}, m.Perturbed...) {
			runs++
			code, js, errOut := runCLI(t, "", "metrics", "-q", "-format", "json", "-convention", "dureader",
				"-m", strings.Join(res.Measures(dureader), ","), "-qrels", filepath.Join(out, "qrels", ds.Name+".qrels"),
				"-run", filepath.Join(out, filepath.FromSlash(report.RunFile(res, ds, rr))))
			if code != 0 {
				t.Fatalf("metrics on %s exited %d: %s", rr.Name, code, errOut)
			}
			var got struct {
				All      map[string]float64            `json:"all"`
				PerQuery map[string]map[string]float64 `json:"per_query"`
			}
			if err := json.Unmarshal([]byte(js), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.All, rr.Means[dureader]) {
				t.Errorf("%s: dureader %v in results.json, %v from dreval metrics", rr.Name, rr.Means[dureader], got.All)
			}
			for qid, want := range got.PerQuery {
				if !reflect.DeepEqual(rr.PerQuery[qid][dureader], want) {
					t.Errorf("%s query %s: %v in results.json, %v from dreval metrics", rr.Name, qid, rr.PerQuery[qid][dureader], want)
				}
			}
		}
	}
	if runs != 6 {
		t.Errorf("checked %d runs, want 6", runs)
	}
}

func TestEvalTaskFlagErrors(t *testing.T) {
	withFakeModels(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-task", "qa"}, "-task"},
		{[]string{"-match", "string"}, "-match is for"},
		{[]string{"-task", "dpr", "-match", "fuzzy"}, "-match"},
		{[]string{"-task", "dpr", "-match", "string,string"}, "twice"},
		{[]string{"-task", "dpr", "-answer-k", "0"}, "-answer-k"},
		{[]string{"-task", "dpr", "-passage-text", "yes"}, "-passage-text"},
	} {
		args := append([]string{"eval", "-data", "demo", "-models", "fake", "-no-cache", "-quiet", "-out", t.TempDir()}, tc.args...)
		code, _, errOut := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// The demo has no answers: task dpr is an error naming them.
	code, _, errOut := runCLI(t, "", "eval", "-data", "demo", "-task", "dpr", "-models", "fake", "-no-cache", "-quiet", "-out", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "no answers") {
		t.Errorf("dpr without answers: exit %d, %q", code, errOut)
	}
}
