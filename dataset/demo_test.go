package dataset

import (
	"strings"
	"testing"
	"unicode"
)

// TestDemo checks the demo collection's promises as the loader sees them:
// size, topics, graded judgments with near-misses, the paper's example
// queries, and that every judgment names an existing query and document.
// (dataset/demo/gen's tests check the same of the generator's output and
// that the committed files are what it writes.)
func TestDemo(t *testing.T) {
	c, err := Load("demo", "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %q", c.Warnings)
	}
	s := c.Stats()
	if s.Docs != 1084 || s.Queries != 212 {
		t.Errorf("%d docs, %d queries; want 1084 and 212 (as Demo's doc says)", s.Docs, s.Queries)
	}
	if s.UnjudgedQueries != 0 || s.AbsentDocs != 0 || s.QrelsUnknownQueries != 0 || s.EmptyDocs != 0 {
		t.Errorf("stats %+v", s)
	}
	topics := map[string]int{}
	for _, d := range c.Corpus {
		topic, _, ok := strings.Cut(d.ID, "-")
		if !ok {
			t.Errorf("doc id %q is not <topic>-<nn>", d.ID)
		}
		topics[topic]++
		if d.Title == "" {
			t.Errorf("doc %s has no title", d.ID)
		}
		if n := len(strings.Fields(d.Text)); n < 40 || n > 90 {
			t.Errorf("doc %s has %d words, want 40..90", d.ID, n)
		}
	}
	if len(topics) != 22 {
		t.Errorf("%d topics, want 22 (as Demo's doc says): %v", len(topics), topics)
	}
	for g := 0; g <= 2; g++ {
		if s.Grades[g] == 0 {
			t.Errorf("no judgment of grade %d", g)
		}
	}
	if len(s.Grades) != 3 {
		t.Errorf("grades %v, want only 0, 1, 2", s.Grades)
	}
	nearMisses := 0
	for _, q := range c.Queries {
		best, zero := 0, false
		for _, g := range c.Qrels[q.ID] {
			best = max(best, g)
			zero = zero || g == 0
		}
		if best != 2 {
			t.Errorf("query %s %q has no passage that answers it", q.ID, q.Text)
		}
		if zero {
			nearMisses++
		}
	}
	if nearMisses < len(c.Queries)*9/10 {
		t.Errorf("only %d of %d queries have a judged near-miss", nearMisses, len(c.Queries))
	}
	answered := func(text, wantDoc string) {
		t.Helper()
		for _, q := range c.Queries {
			if q.Text == text {
				if c.Qrels[q.ID][wantDoc] != 2 {
					t.Errorf("%q: %s is not judged 2 (%v)", text, wantDoc, c.Qrels[q.ID])
				}
				return
			}
		}
		t.Errorf("no query %q", text)
	}
	answered("difference between a mcdouble and a double cheeseburger", "food-01")
	answered("what is theraderm used for", "skin-01")
	if _, err := Demo("train"); err == nil {
		t.Error("Demo(train) succeeded")
	}
}

// TestDemoNearMissesAreNearDuplicates checks that each passage judged 0
// reads like a passage the query finds relevant: it shares a run of at
// least eight consecutive words (its template) with a passage of the same
// query judged 1 or 2, so it is a hard negative, not an unrelated passage.
func TestDemoNearMissesAreNearDuplicates(t *testing.T) {
	c, err := Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	words := map[string][]string{}
	for _, d := range c.Corpus {
		words[d.ID] = strings.FieldsFunc(strings.ToLower(d.Title+" "+d.Text), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
		})
	}
	for _, q := range c.Queries {
		for miss, g := range c.Qrels[q.ID] {
			if g != 0 {
				continue
			}
			best := 0
			for rel, h := range c.Qrels[q.ID] {
				if h > 0 {
					best = max(best, longestCommonRun(words[miss], words[rel]))
				}
			}
			if best < 8 {
				t.Errorf("query %s %q: near-miss %s shares at most %d consecutive words with a relevant passage, want 8", q.ID, q.Text, miss, best)
			}
		}
	}
}

// longestCommonRun returns the length of the longest run of words that a
// and b both contain.
func longestCommonRun(a, b []string) int {
	best := 0
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			cur[j+1] = 0
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
				best = max(best, cur[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return best
}

func TestLongestCommonRun(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "a b", 0},
		{"a b c d", "x b c y", 2},
		{"a b c d", "a b c d", 4},
		{"a a a", "a a", 2},
		{"p q r s t", "s t p q r", 3},
	}
	for _, tt := range tests {
		if got := longestCommonRun(strings.Fields(tt.a), strings.Fields(tt.b)); got != tt.want {
			t.Errorf("longestCommonRun(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
