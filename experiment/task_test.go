package experiment_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dreval/dreval/answer"
	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/results"
)

func TestJoinCJK(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"北 京 大 学", "北京大学"},
		{"2017 有 的 小", "2017 有的小"},
		{"hello world", "hello world"},
		{"北 京 and 上 海", "北京 and 上海"},
		{"", ""},
		{" 北 ", " 北 "},
	} {
		if got := experiment.JoinCJK(tc.in); got != tc.want {
			t.Errorf("JoinCJK(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEncodedCorpusHash(t *testing.T) {
	a := []dataset.Doc{{ID: "d1", Title: "T", Text: "x"}}
	b := []dataset.Doc{{ID: "d1", Title: "T x", Text: ""}}
	if experiment.EncodedCorpusHash(a, false) != experiment.CorpusHash(a) {
		t.Error("without passage text the key is not CorpusHash: existing cache entries would be lost")
	}
	if experiment.EncodedCorpusHash(a, true) == experiment.CorpusHash(a) {
		t.Error("passage text and plain text share a cache key")
	}
	// "T [SEP] x" differs from "T x [SEP] ".
	if experiment.EncodedCorpusHash(a, true) == experiment.EncodedCorpusHash(b, true) {
		t.Error("different passage texts share a cache key")
	}
}

func TestValidateTask(t *testing.T) {
	c := demo(t)
	for _, tc := range []struct {
		name string
		edit func(*experiment.Config)
		want string
	}{
		{"unknown task", func(c *experiment.Config) { c.Task = "qa" }, "task"},
		{"modes without answers", func(c *experiment.Config) { c.AnswerModes = []answer.Mode{answer.String} }, "answer modes"},
		{"mode twice", func(c *experiment.Config) {
			c.Task = experiment.TaskDPR
			c.AnswerModes = []answer.Mode{answer.String, answer.String}
		}, "twice"},
		{"bad k", func(c *experiment.Config) { c.Task = experiment.TaskDPR; c.AnswerKs = []int{0} }, "cut-off"},
		{"bad analyzer", func(c *experiment.Config) { c.ModelOptions.Analyzer = "trigram" }, "analyzer"},
	} {
		cfg, _ := fakeConfig(c)
		tc.edit(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error about %q", tc.name, err, tc.want)
		}
	}
}

// TestTaskDPRYesNoAndDrop checks the answer accuracy's accounting on the
// demo with answers added: a question the collection declares not a span
// (yesno_query_ids.txt) is a miss in every run and stays in the
// denominator, and each accuracy is the mean of the
// questions' hit@k, which the paired comparison is built on.
func TestTaskDPRYesNoAndDrop(t *testing.T) {
	c := demo(t)
	c.Answers = map[string][]string{}
	qs := c.JudgedQueries()
	for i, q := range qs {
		words := strings.Fields(q.Text)
		c.Answers[q.ID] = []string{words[len(words)-1]}
		if i == 0 {
			c.Answers[q.ID] = []string{"Yes"}
			c.NotSpans = map[string]bool{q.ID: true}
		}
	}
	cfg, _ := fakeConfig(c)
	cfg.Task = experiment.TaskDPR
	cfg.PassageText = true
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds := res.Datasets[0]
	if ds.Answers.Questions != len(qs) || len(ds.Answers.Unanswerable) != 1 || ds.Answers.Unanswerable[0] != qs[0].ID {
		t.Fatalf("answer summary %+v", ds.Answers)
	}
	m := ds.Models[0]
	for _, rr := range append([]*results.RunResult{m.Clean}, m.Perturbed...) {
		a := rr.Answers["string"]
		for j, k := range a.Ks {
			hits := 0
			for _, q := range qs {
				if r := a.FirstHit[q.ID]; r >= 1 && r <= k {
					hits++
				}
			}
			if a.FirstHit[qs[0].ID] != 0 || hits != a.Hits[j] || a.Accuracy[j] != float64(hits)/float64(len(qs)) {
				t.Errorf("%s top-%d: accuracy %v hits %d, recounted %d of %d", rr.Name, k, a.Accuracy[j], a.Hits[j], hits, len(qs))
			}
		}
	}
	for _, rs := range m.Rates {
		for j := range rs.Answers["string"] {
			d := rs.AnswerDrop["string"][j]
			var mean float64
			for _, rr := range m.Perturbed {
				if rr.Rate == rs.Rate {
					mean += rr.Answers["string"].Accuracy[j] / float64(len(rs.Seeds))
				}
			}
			if diff := float64(d.MeanDiff) - (mean - m.Clean.Answers["string"].Accuracy[j]); diff > 1e-12 || diff < -1e-12 || d.N != len(qs) {
				t.Errorf("rate %v k index %d: paired mean difference %v over %d questions, want %v over %d", rs.Rate, j, d.MeanDiff, d.N, mean-m.Clean.Answers["string"].Accuracy[j], len(qs))
			}
		}
	}
}

func TestParseOptions(t *testing.T) {
	tests := []struct {
		parse func(string) (string, error)
		in    string
		want  string // "" for an error
		err   string
	}{
		{func(s string) (string, error) { v, err := experiment.ParseTask(s); return string(v), err }, "dpr", "dpr", ""},
		{func(s string) (string, error) { v, err := experiment.ParseTask(s); return string(v), err }, "qa", "", `unknown task "qa": want ir, dpr, dureader`},
		{func(s string) (string, error) { v, err := experiment.ParseTask(s); return string(v), err }, "", "", `unknown task "": want ir, dpr, dureader`},
		{func(s string) (string, error) { v, err := experiment.ParseEngine(s); return string(v), err }, "ort", "ort", ""},
		{func(s string) (string, error) { v, err := experiment.ParseEngine(s); return string(v), err }, "GO", "", `unknown engine "GO": want auto, go, ort`},
		{func(s string) (string, error) { v, err := experiment.ParseAnalyzer(s); return string(v), err }, "bigram", "bigram", ""},
		{func(s string) (string, error) { v, err := experiment.ParseAnalyzer(s); return string(v), err }, "stems", "", `unknown analyzer "stems": want wordpiece, words, bigram`},
	}
	for _, tt := range tests {
		got, err := tt.parse(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: got %q, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: got %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestDefaultsAreCopies: changing what DefaultRates, Tasks, Engines and
// Analyzers return changes nothing for the next caller.
func TestDefaultsAreCopies(t *testing.T) {
	experiment.DefaultRates()[1] = 0.9
	experiment.Tasks()[0] = "x"
	experiment.Engines()[0] = "x"
	experiment.Analyzers()[0] = "x"
	if r := experiment.DefaultRates(); r[1] != 0.05 {
		t.Errorf("DefaultRates %v", r)
	}
	if experiment.Tasks()[0] != experiment.TaskIR || experiment.Engines()[0] != experiment.EngineAuto || experiment.Analyzers()[0] != experiment.AnalyzerWordPiece {
		t.Errorf("%v %v %v", experiment.Tasks(), experiment.Engines(), experiment.Analyzers())
	}
}
