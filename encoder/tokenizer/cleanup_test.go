package tokenizer

import (
	"strings"
	"testing"
)

// cleanupEveryRule is cleanup as the reference writes it: every rule in
// order.
func cleanupEveryRule(s string) string {
	for _, r := range cleanupRules {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}

// cleanupCases are strings where one rule can make or break another's
// pattern.
var cleanupCases = []string{
	"", " ", "what is it ?", " ?", "a  .", "x ' m", "x  ' m", " ' 's", "i do not know .", " do not ' ",
	"it ' s", " n't", "  n't", " ' ' '", "a , b . c ! d ?", " 're ' ve", "don ' t", " ' ", "  ' re",
	"no rule here", " . ? ! ,", " 'm 's 've 're", "##", " d", " do no t",
}

func TestCleanup(t *testing.T) {
	for _, s := range cleanupCases {
		if got, want := cleanup(s), cleanupEveryRule(s); got != want {
			t.Errorf("cleanup(%q) = %q, the rules in order give %q", s, got, want)
		}
	}
}

// FuzzCleanup checks cleanup against every rule applied in order, on
// strings made mostly of the rules' bytes.
func FuzzCleanup(f *testing.F) {
	for _, s := range cleanupCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := cleanup(s), cleanupEveryRule(s); got != want {
			t.Fatalf("cleanup(%q) = %q, the rules in order give %q", s, got, want)
		}
	})
}
