package answer

import (
	"strings"
	"testing"
)

// TestMissingQueryID: an answers.jsonl line without "query-id" is
// reported as such, on the first line as on later ones, never as a DPR
// question file missing "question".
func TestMissingQueryID(t *testing.T) {
	for _, tt := range []struct{ name, in, field, want string }{
		{"first line", `{"answers": ["x"]}` + "\n", "", `f:1: missing "query-id"`},
		{"first line, extractive", `{"fake_answers": ["x"], "answers": []}` + "\n", "fake_answers", `f:1: missing "query-id"`},
		{"second line", `{"query-id": "a", "answers": ["x"]}` + "\n" + `{"answers": ["y"]}` + "\n", "", `f:2: missing "query-id"`},
		{"neither form", `{"id": "a"}` + "\n", "", `f:1: neither "query-id"`},
	} {
		_, err := ReadQuestions(strings.NewReader(tt.in), "f", tt.field)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), `missing "question"`) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	// A DPR question file missing its question still says so.
	if _, err := ReadQuestions(strings.NewReader(`{"answer": ["x"]}`+"\n"), "f", ""); err == nil || !strings.Contains(err.Error(), `missing "question"`) {
		t.Errorf("a DPR line without its question: %v", err)
	}
}
