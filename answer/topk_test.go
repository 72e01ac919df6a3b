package answer

import (
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/metrics"
)

func testPassages(t *testing.T) *Passages {
	t.Helper()
	p, err := NewPassages([]dataset.Doc{
		{ID: "p1", Title: "Paris", Text: "Paris is the capital of France."},
		{ID: "p2", Title: "Berlin", Text: "Berlin is the capital of Germany."},
		{ID: "p3", Title: "Rome", Text: "Rome is the capital of Italy."},
		{ID: "p4", Title: "Madrid", Text: "Madrid is in Spain; Paris is not."},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTopK(t *testing.T) {
	run := metrics.Run{
		// Ranked by score; file order does not matter.
		"q1": {{DocID: "p2", Score: 3}, {DocID: "p1", Score: 1}, {DocID: "p3", Score: 2}},
		// p4 and p1 tie: the trec rule puts the larger id, p4, first.
		"q2": {{DocID: "p1", Score: 5}, {DocID: "p4", Score: 5}},
		"q3": {{DocID: "p3", Score: 1}},
		"q5": {{DocID: "p2", Score: 9}, {DocID: "p3", Score: 8}},
		"x":  {{DocID: "p1", Score: 1}},
	}
	qs := []Question{
		{ID: "q1", Answers: []string{"Italy"}},   // rank 2 (p3 at score 2)
		{ID: "q2", Answers: []string{"Paris"}},   // rank 1 (p4 mentions Paris)
		{ID: "q3", Answers: []string{"Germany"}}, // retrieved, no hit
		{ID: "q4", Answers: []string{"France"}},  // absent from the run
		{ID: "q5", Answers: []string{"yes"}},     // declared unanswerable
		{ID: "q6", Answers: []string{" "}},       // no usable answer
		{ID: "q7", Answers: []string{"Lisbon"}},  // no passage has it
	}
	res, err := TopK(run, qs, testPassages(t), Options{Ks: []int{2, 1, 2}, Unanswerable: map[string]string{"q5": "yes/no"}, CheckCollection: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Ks, []int{1, 2}) || !slices.Equal(res.Hits, []int{1, 2}) {
		t.Errorf("ks %v hits %v, want [1 2] [1 2]", res.Ks, res.Hits)
	}
	if res.Questions != 7 || res.Accuracy[0] != 1.0/7 || res.Accuracy[1] != 2.0/7 {
		t.Errorf("questions %d accuracy %v", res.Questions, res.Accuracy)
	}
	wantFirst := map[string]int{"q1": 2, "q2": 1, "q3": 0, "q4": 0, "q5": 0, "q6": 0, "q7": 0}
	for q, r := range wantFirst {
		if res.FirstHit[q] != r {
			t.Errorf("first hit of %s = %d, want %d", q, res.FirstHit[q], r)
		}
	}
	for _, c := range []struct {
		name      string
		got, want []string
	}{
		{"missing", res.MissingFromRun, []string{"q4", "q6", "q7"}},
		{"unanswerable", res.Unanswerable, []string{"q5"}},
		{"empty", res.EmptyAnswers, []string{"q6"}},
		{"no passage", res.NoPassage, []string{"q7"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if res.IgnoredRunQueries != 1 || res.Depth != 3 {
		t.Errorf("ignored %d depth %d", res.IgnoredRunQueries, res.Depth)
	}
}

func TestTopKErrors(t *testing.T) {
	p := testPassages(t)
	tests := []struct {
		name string
		run  metrics.Run
		qs   []Question
		opt  Options
		want string
	}{
		{"unknown passage", metrics.Run{"q": {{DocID: "p9", Score: 1}}}, []Question{{"q", []string{"a"}}}, Options{}, `passage "p9"`},
		{"duplicate question", metrics.Run{}, []Question{{"q", nil}, {"q", nil}}, Options{}, `"q" appears twice`},
		{"bad k", metrics.Run{}, nil, Options{Ks: []int{0}}, "k = 0"},
		{"bad patterns", metrics.Run{}, []Question{{"a", []string{`(x)\1`}}, {"b", []string{"ok"}}, {"c", []string{`a{2,1}`}}}, Options{Mode: Regex}, "2 answer patterns"},
	}
	for _, tc := range tests {
		_, err := TopK(tc.run, tc.qs, p, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := NewPassages([]dataset.Doc{{ID: "a"}, {ID: "a"}}); err == nil {
		t.Error("duplicate passage ids accepted")
	}
}

// TestNoPassageModes checks the collection check in every mode, including
// that a match cannot span two passages.
func TestNoPassageModes(t *testing.T) {
	p, err := NewPassages([]dataset.Doc{{ID: "1", Text: "alpha beta"}, {ID: "2", Text: "gamma delta"}})
	if err != nil {
		t.Fatal(err)
	}
	qs := []Question{{"span", []string{"beta gamma"}}, {"in", []string{"gamma"}}, {"sub", []string{"lphab"}}}
	want := map[Mode][]string{String: {"span", "sub"}, Substring: {"span"}, Regex: {"span", "sub"}}
	for mode, w := range want {
		res, err := TopK(metrics.Run{}, qs, p, Options{Mode: mode, CheckCollection: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.NoPassage, w) {
			t.Errorf("%s: no passage = %v, want %v", mode, res.NoPassage, w)
		}
		if len(res.MissingFromRun) != 3 || res.Accuracy[0] != 0 {
			t.Errorf("%s: missing %v accuracy %v", mode, res.MissingFromRun, res.Accuracy)
		}
	}
}

func TestDefaultKsIsACopy(t *testing.T) {
	DefaultKs()[0] = 7
	if k := DefaultKs(); !slices.Equal(k, []int{1, 5, 20, 100}) {
		t.Errorf("DefaultKs %v", k)
	}
}
