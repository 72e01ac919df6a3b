package dataset

import (
	"strings"
	"testing"
)

// TestDemo checks the demo collection's promises: size, topics, graded
// judgments with near-misses, the paper's example queries, and that every
// judgment names an existing query and document.
func TestDemo(t *testing.T) {
	c, err := Load("demo", "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %q", c.Warnings)
	}
	s := c.Stats()
	if s.Docs < 120 || s.Queries < 40 {
		t.Errorf("%d docs, %d queries; want at least 120 and 40", s.Docs, s.Queries)
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
		if n := len(strings.Fields(d.Text)); n < 40 || n > 120 {
			t.Errorf("doc %s has %d words, want 40..120", d.ID, n)
		}
	}
	if len(topics) < 8 {
		t.Errorf("%d topics, want at least 8: %v", len(topics), topics)
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
	if nearMisses < len(c.Queries)*3/4 {
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

// TestDemoNearMissesShareWords checks that each grade-0 passage shares at
// least one content word with its query (otherwise it is no near-miss).
func TestDemoNearMissesShareWords(t *testing.T) {
	c, err := Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, d := range c.Corpus {
		text[d.ID] = strings.ToLower(d.Title + " " + d.Text)
	}
	stop := map[string]bool{"what": true, "does": true, "difference": true, "between": true, "how": true, "to": true, "is": true, "a": true, "an": true, "the": true, "and": true, "of": true, "in": true, "for": true, "do": true, "are": true, "my": true, "i": true, "should": true, "why": true, "can": true, "on": true, "when": true, "be": true, "it": true, "you": true, "so": true, "but": true, "not": true, "used": true, "mean": true, "make": true, "work": true, "long": true, "take": true, "still": true, "more": true, "best": true, "made": true}
	for _, q := range c.Queries {
		for did, g := range c.Qrels[q.ID] {
			if g != 0 {
				continue
			}
			shared := false
			for _, w := range strings.Fields(strings.ToLower(q.Text)) {
				if !stop[w] && len(w) > 2 && strings.Contains(text[did], strings.TrimRight(w, "s")) {
					shared = true
				}
			}
			if !shared {
				t.Errorf("query %s %q: near-miss %s shares no content word", q.ID, q.Text, did)
			}
		}
	}
}
