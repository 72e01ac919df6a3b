package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/results"
)

// copyWithoutQrels copies the named files of the collection folder src
// into a new folder of the same name, leaving its qrels behind: a
// DPR-style question set.
func copyWithoutQrels(t *testing.T, src string, names ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestEvalDPRWithoutQrels runs eval -task dpr with bm25 on HotpotQA's 100
// dev questions twice, with the qrels and with them removed. Every
// question is judged, so both runs search the same questions: the answer
// accuracy, clean and perturbed, must not depend on the qrels. Without
// them results.json says so, the st and trec scores are absent, and no
// qrels file is written.
func TestEvalDPRWithoutQrels(t *testing.T) {
	src := sharedtest.Path(t, "data/hotpotqa-dev-100")
	models := filepath.Dir(sharedtest.ModelDir(t, "minilm"))
	noQrels := copyWithoutQrels(t, src, "corpus.jsonl", "queries.jsonl", "answers.jsonl", "yesno_query_ids.txt")

	eval := func(data string) (string, string, string) {
		out := t.TempDir()
		code, stdout, errOut := runCLI(t, "", "eval", "-data", data, "-task", "dpr", "-models", "bm25", "-models-dir", models,
			"-rates", "0,0.1", "-seeds", "2", "-resamples", "200", "-no-cache", "-quiet", "-out", out)
		if code != 0 {
			t.Fatalf("eval -data %s exited %d: %s", data, code, errOut)
		}
		return out, stdout, errOut
	}
	withOut, _, _ := eval(src)
	out, stdout, errOut := eval(noQrels)

	for _, want := range []string{"has no relevance judgments (no qrels/test.tsv): only the answer accuracy is measured", "12 of 100 questions have answers that are not passage spans"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(stdout, "answer-span accuracy (100 questions") || strings.Contains(stdout, "NDCG@10") {
		t.Errorf("stdout: want the answer table and no st table:\n%s", stdout)
	}
	with, without := readResults(t, withOut), readResults(t, out)
	dw, dn := with.Datasets[0], without.Datasets[0]
	if dw.QrelsAbsent || !dn.QrelsAbsent || dn.Answers == nil || dn.Answers.Questions != 100 || dw.Answers.Questions != 100 {
		t.Fatalf("qrels absent %v / %v; answer summaries %+v / %+v", dw.QrelsAbsent, dn.QrelsAbsent, dw.Answers, dn.Answers)
	}
	mw, mn := dw.Models[0], dn.Models[0]
	if len(mn.Perturbed) != 2 || len(mw.Perturbed) != 2 {
		t.Fatalf("%d and %d perturbed runs, want 2", len(mw.Perturbed), len(mn.Perturbed))
	}
	if mw.Clean.Means[st]["ndcg@10"] == 0 || mn.Clean.Means[st] != nil || mn.Clean.Means[trec] != nil || mn.Rates[0].Drop[st] != nil {
		t.Errorf("st: with qrels %v, without %v (drop %v): want values only with qrels", mw.Clean.Means[st], mn.Clean.Means[st], mn.Rates[0].Drop[st])
	}
	runsW := append([]*results.RunResult{mw.Clean}, mw.Perturbed...)
	runsN := append([]*results.RunResult{mn.Clean}, mn.Perturbed...)
	for i, rw := range runsW {
		rn := runsN[i]
		aw, an := rw.Answers["string"], rn.Answers["string"]
		if rw.Name != rn.Name || !reflect.DeepEqual(aw.Accuracy, an.Accuracy) || !reflect.DeepEqual(aw.Hits, an.Hits) || !reflect.DeepEqual(aw.FirstHit, an.FirstHit) {
			t.Errorf("%s: Top-1/5/20/100 %v with qrels, %v (%s) without", rw.Name, aw.Accuracy, an.Accuracy, rn.Name)
		}
	}
	if a := mn.Clean.Answers["string"].Accuracy; len(a) != 4 || a[3] == 0 {
		t.Errorf("clean answer accuracy %v, want four non-trivial values", a)
	}
	if !reflect.DeepEqual(mw.Rates[0].AnswerDrop, mn.Rates[0].AnswerDrop) {
		t.Errorf("answer drops differ: %+v with qrels, %+v without", mw.Rates[0].AnswerDrop, mn.Rates[0].AnswerDrop)
	}
	if _, err := os.Stat(filepath.Join(out, "qrels")); !os.IsNotExist(err) {
		t.Errorf("a qrels folder was written for a dataset without qrels (%v)", err)
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"qrels_absent": true`) {
		t.Errorf("results.json does not say the qrels were absent")
	}
	md, err := os.ReadFile(filepath.Join(out, "tables.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"answer-span accuracy", "| Top-1 | Top-5 | Top-20 | Top-100 |", "change of the answer accuracy"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("tables.md lacks %q", want)
		}
	}
	for _, bad := range []string{"NDCG@10", "n/a", "ndcg_cut"} {
		if strings.Contains(string(md), bad) {
			t.Errorf("tables.md shows %q for a dataset without qrels", bad)
		}
	}

	code, info, _ := runCLI(t, "", "dataset", "info", noQrels)
	if code != 0 || !strings.Contains(info, "qrels\tnone (answers only)\n") || !strings.Contains(info, "queries with answers\t100\n") || strings.Contains(info, "judged queries") {
		t.Errorf("dataset info: exit %d\n%s", code, info)
	}
}

// TestEvalIRWithoutQrels checks that -task ir on a folder without qrels
// is a usage error naming the folder and the missing file, and that a
// folder with neither qrels nor answers fails at loading as before.
func TestEvalIRWithoutQrels(t *testing.T) {
	dir := copyWithoutQrels(t, qaTiny, "corpus.jsonl", "queries.jsonl", "answers.jsonl")
	withFakeModelsFor(t, dir)
	code, _, errOut := runCLI(t, "", "eval", "-data", dir, "-task", "ir", "-models", "fake", "-rates", "0", "-no-cache", "-quiet", "-out", t.TempDir())
	if code != 2 || !strings.Contains(errOut, dir) || !strings.Contains(errOut, "no qrels/test.tsv") || !strings.Contains(errOut, "task dpr") {
		t.Errorf("eval -task ir without qrels: exit %d, want 2 and a message naming %s, qrels/test.tsv and task dpr:\n%s", code, dir, errOut)
	}
	bare := copyWithoutQrels(t, qaTiny, "corpus.jsonl", "queries.jsonl")
	code, _, errOut = runCLI(t, "", "eval", "-data", bare, "-task", "dpr", "-models", "fake", "-rates", "0", "-no-cache", "-quiet", "-out", t.TempDir())
	if code != 1 || !strings.Contains(errOut, `no qrels for split "test" (qrels/test.tsv) and no answers.jsonl`) {
		t.Errorf("eval without qrels and answers: exit %d:\n%s", code, errOut)
	}
}
