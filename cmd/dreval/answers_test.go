package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/retrieval"
)

// writeAnswersFile writes content to dir/name and returns the path.
func writeAnswersFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func answersFixture(t *testing.T) (ans, psg, run string) {
	dir := t.TempDir()
	ans = writeAnswersFile(t, dir, "answers.jsonl", `{"query-id": "q1", "answers": ["Italy"]}
{"query-id": "q2", "answers": ["Paris"]}
{"query-id": "q3", "answers": ["yes"]}
{"query-id": "q4", "answers": ["France"]}
`)
	psg = writeAnswersFile(t, dir, "passages.tsv", "id\ttext\ttitle\np1\tParis is the capital of France.\tParis\np2\tRome is in Italy, yes.\tRome\n")
	run = writeAnswersFile(t, dir, "run.trec", "q1 Q0 p1 1 2.0 t\nq1 Q0 p2 2 1.0 t\nq2 Q0 p1 1 1.0 t\nq3 Q0 p2 1 1.0 t\nzz Q0 p1 1 1.0 t\n")
	return ans, psg, run
}

func TestAnswersCommand(t *testing.T) {
	ans, psg, run := answersFixture(t)
	code, out, errOut := runCLI(t, "", "answers", "-answers", ans, "-passages", psg, "-run", run, "-k", "1,2", "-yesno", "miss")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"questions: 4, all in the denominator",
		"absent from the run:           1 (count as misses)",
		"unanswerable by span:          1 (count as misses): 1 yes/no answer",
		"top-1     0.2500  (1/4)",
		"top-2     0.5000  (2/4)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "1 of 4 questions are absent from the run") || !strings.Contains(errOut, "1 run queries are not questions") {
		t.Errorf("stderr: %s", errOut)
	}

	// -yesno match: "yes" is matched as a string, in p2.
	code, out, errOut = runCLI(t, "", "answers", "-answers", ans, "-passages", psg, "-run", run, "-yesno", "match", "-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		TopK         map[string]float64 `json:"top_k"`
		PerQuery     map[string]int     `json:"per_query"`
		Unanswerable struct {
			Count         int  `json:"count"`
			InDenominator bool `json:"in_denominator"`
		} `json:"unanswerable_by_span"`
		Missing []string `json:"missing_from_run"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.TopK["1"] != 0.5 || got.TopK["100"] != 0.75 || got.PerQuery["q1"] != 2 || got.PerQuery["q3"] != 1 || got.PerQuery["q4"] != 0 ||
		got.Unanswerable.Count != 0 || !got.Unanswerable.InDenominator || len(got.Missing) != 1 {
		t.Errorf("json: %+v\n%s", got, out)
	}
	topk := out[strings.Index(out, `"top_k"`):]
	topk = strings.Join(strings.Fields(topk[:strings.Index(topk, "}")+1]), "")
	if topk != `"top_k":{"1":0.5,"5":0.75,"20":0.75,"100":0.75}` {
		t.Errorf("top_k not in k order:\n%s", out)
	}
}

func TestAnswersCommandErrors(t *testing.T) {
	ans, psg, run := answersFixture(t)
	dir := t.TempDir()
	badRun := writeAnswersFile(t, dir, "bad.trec", "q1 Q0 p9 1 1 t\n")
	curated := writeAnswersFile(t, dir, "curated.jsonl", `{"question": "q", "answer": ["(a)\\1"]}`+"\n")
	ids := writeAnswersFile(t, dir, "ids.txt", "q1\nnope\n")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-passages", psg, "-run", run}, 2, "-answers is required"},
		{[]string{"-answers", ans, "-passages", psg, "-run", run, "-match", "fuzzy"}, 2, "unknown match mode"},
		{[]string{"-answers", ans, "-passages", psg, "-run", run, "-k", "0"}, 2, "-k"},
		{[]string{"-answers", ans, "-passages", psg, "-run", badRun}, 1, `passage "p9"`},
		{[]string{"-answers", curated, "-passages", psg, "-run", run, "-match", "regex"}, 1, `question "0": answer pattern`},
		{[]string{"-answers", ans, "-passages", psg, "-run", run, "-unanswerable", ids}, 1, `question "nope" is not in`},
	}
	for _, tc := range tests {
		code, _, errOut := runCLI(t, "", append([]string{"answers"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

func TestPassagesCommand(t *testing.T) {
	dir := t.TempDir()
	in := writeAnswersFile(t, dir, "corpus.jsonl", `{"_id": "d1", "title": "T", "text": "a b c d e"}
{"_id": "d2", "title": "Empty", "text": ""}
`)
	out := filepath.Join(dir, "p.tsv")
	code, _, errOut := runCLI(t, "", "passages", "-in", in, "-words", "2", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "id\ttext\ttitle\nd1-0\ta b\tT\nd1-1\tc d\tT\nd1-2\te\tT\nd2-0\t\tEmpty\n"
	if string(data) != want {
		t.Errorf("got\n%q\nwant\n%q", data, want)
	}
	if !strings.Contains(errOut, "2 documents -> 4 passages") || !strings.Contains(errOut, "1 documents without words") {
		t.Errorf("stderr: %s", errOut)
	}
	code, stdout, _ := runCLI(t, "", "passages", "-in", out, "-words", "100", "-ids", "seq", "-out", "-")
	if code != 0 || !strings.HasPrefix(stdout, "id\ttext\ttitle\n1\ta b\tT\n2\tc d\tT\n") {
		t.Errorf("re-split of the tsv: %d %q", code, stdout)
	}
	dup := writeAnswersFile(t, dir, "c.tsv", "a\tx\tT\na\ty\tT\n")
	if code, _, errOut := runCLI(t, "", "passages", "-in", dup, "-out", "-"); code != 1 || !strings.Contains(errOut, `passage id "a-0" appears twice`) {
		t.Errorf("colliding ids: %d %s", code, errOut)
	}
}

// TestAnswersHotpot runs dreval answers on hotpotqa-dev-100 with a BM25
// run: the 12 yes/no questions are reported as unanswerable by span and
// stay in the denominator, whether found by their answers or listed in
// yesno_query_ids.txt.
func TestAnswersHotpot(t *testing.T) {
	dir := sharedtest.Path(t, "data/hotpotqa-dev-100")
	c, err := dataset.LoadBEIR(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	idx := retrieval.NewBM25(retrieval.WordAnalyzer)
	ids := make([]string, len(c.Corpus))
	for i, d := range c.Corpus {
		idx.Add(d.Title + " " + d.Text)
		ids[i] = d.ID
	}
	texts := make([]string, len(c.Queries))
	for i, q := range c.Queries {
		texts[i] = q.Text
	}
	hits, err := idx.Search(texts, retrieval.Options{K: 100, DocIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, q := range c.Queries {
		for r, h := range hits[i] {
			fmt.Fprintf(&b, "%s Q0 %s %d %g bm25\n", q.ID, ids[h.Doc], r+1, h.Score)
		}
	}
	run := writeAnswersFile(t, t.TempDir(), "run.trec", b.String())
	base := []string{"answers", "-answers", filepath.Join(dir, "answers.jsonl"), "-passages", filepath.Join(dir, "corpus.jsonl"), "-run", run}
	for _, extra := range [][]string{{"-yesno", "miss"}, {"-unanswerable", filepath.Join(dir, "yesno_query_ids.txt")}} {
		code, out, errOut := runCLI(t, "", append(base, extra...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, "questions: 100, all in the denominator") || !strings.Contains(out, "unanswerable by span:          12 (count as misses)") {
			t.Errorf("%v:\n%s", extra, out)
		}
		t.Logf("dreval answers %v:\n%s", extra, out)
	}
}

// TestAnswersDPRQuestions reads a DPR question file, whose question ids
// are line positions, and CuratedTREC-style patterns in regex mode.
func TestAnswersDPRQuestions(t *testing.T) {
	_, psg, _ := answersFixture(t)
	dir := t.TempDir()
	qs := writeAnswersFile(t, dir, "nq.test.txt", "capital of france\t['Paris']\ncapital of italy\t['Rome', \"Roma\"]\n")
	curated := writeAnswersFile(t, dir, "curated.txt", `{"question": "a", "answer": ["Par[io]s"]}`+"\n"+`{"question": "b", "answer": ["Ital(y|ia)\\s*,\\s+yes"]}`+"\n")
	run := writeAnswersFile(t, dir, "run.trec", "0 Q0 p2 1 2 t\n0 Q0 p1 2 1 t\n1 Q0 p2 1 1 t\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-answers", qs}, "top-1     0.5000  (1/2)\ntop-5     1.0000  (2/2)"},
		{[]string{"-answers", curated, "-match", "regex"}, "top-1     0.5000  (1/2)\ntop-5     1.0000  (2/2)"},
	} {
		code, out, errOut := runCLI(t, "", append([]string{"answers", "-passages", psg, "-run", run}, c.args...)...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d\n%s%s", c.args, code, out, errOut)
		}
	}
}
