package answer

import (
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
)

func TestReadQuestions(t *testing.T) {
	tests := []struct {
		name, in, field string
		want            []Question
	}{
		{"answers.jsonl", "\ufeff{\"query-id\": \"a\", \"answers\": [\"x\", \"y\"]}\n\n{\"query-id\": \"b\", \"answers\": []}\n", "",
			[]Question{{"a", []string{"x", "y"}}, {"b", []string{}}}},
		{"fake_answers", `{"query-id": "a", "answers": ["h"], "fake_answers": ["e"], "split": "test"}`, "fake_answers",
			[]Question{{"a", []string{"e"}}}},
		{"dpr tsv", "who?\t['A', \"B's\"]\nwhat?\t[]\n", "", []Question{{"0", []string{"A", "B's"}}, {"1", []string{}}}},
		{"dpr json", `{"question": "q", "answer": ["a|b"]}`, "", []Question{{"0", []string{"a|b"}}}},
	}
	for _, tc := range tests {
		got, err := ReadQuestions(strings.NewReader(tc.in), "f", tc.field)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !slices.EqualFunc(got, tc.want, func(a, b Question) bool { return a.ID == b.ID && slices.Equal(a.Answers, b.Answers) }) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestReadQuestionsErrors(t *testing.T) {
	tests := []struct{ name, in, field, want string }{
		{"empty", "\n \n", "", "empty"},
		{"duplicate", "{\"query-id\":\"a\",\"answers\":[]}\n{\"query-id\":\"a\",\"answers\":[]}\n", "", `f:2: query-id "a" appears twice (first at line 1)`},
		{"missing field", `{"query-id":"a","answers":[]}`, "fake_answers", `f:1: query-id "a": missing "fake_answers"`},
		{"null answers", `{"query-id":"a","answers":null}`, "", `"answers" is null`},
		{"number in list", `{"query-id":"a","answers":[1]}`, "", "list holding something other than strings"},
		{"id not a string", `{"query-id":7,"answers":[]}`, "", `"query-id" is a number`},
		{"empty id", `{"query-id":"","answers":[]}`, "", `empty "query-id"`},
		{"bad json", "{\"query-id\":\"a\",\"answers\":[]}\n{oops\n", "", "f:2: not a JSON object"},
		{"field on dpr", "q\t['a']\n", "fake_answers", "DPR question file has no field"},
	}
	for _, tc := range tests {
		_, err := ReadQuestions(strings.NewReader(tc.in), "f", tc.field)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func FuzzReadQuestions(f *testing.F) {
	f.Add("{\"query-id\": \"a\", \"answers\": [\"x\"]}\n", "")
	f.Add("{\"query-id\": \"a\", \"answers\": [\"x\"], \"fake_answers\": []}\n", "fake_answers")
	f.Add("who?\t['A', \"B's\"]\n", "")
	f.Add(`{"question": "q", "answer": ["a|b"]}`, "")
	f.Add("\"quoted\"\"q\"\t[]\n", "")
	f.Fuzz(func(t *testing.T, in, field string) {
		qs, err := ReadQuestions(strings.NewReader(in), "fuzz", field)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, q := range qs {
			if q.ID == "" || seen[q.ID] {
				t.Fatalf("question id %q empty or repeated", q.ID)
			}
			seen[q.ID] = true
			if q.Answers == nil {
				t.Fatalf("question %q: nil answers", q.ID)
			}
		}
	})
}

func TestQuestionsFromAndFor(t *testing.T) {
	m := map[string][]string{"b": {"x"}, "a": {"y"}, "c": {}}
	got := QuestionsFrom(m)
	if len(got) != 3 || got[0].ID != "a" || got[1].ID != "b" || got[2].ID != "c" {
		t.Errorf("QuestionsFrom: %q", got)
	}
	qs, without := QuestionsFor([]dataset.Query{{ID: "c"}, {ID: "z"}, {ID: "a"}}, m)
	if len(qs) != 2 || qs[0].ID != "c" || qs[1].ID != "a" || !slices.Equal(without, []string{"z"}) {
		t.Errorf("QuestionsFor: %q %q", qs, without)
	}
}
