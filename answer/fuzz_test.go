package answer

import (
	"strings"
	"testing"
)

// FuzzMatch checks that matching never panics, and the implication that
// holds by construction (see the package documentation): a String-mode
// match is a Substring-mode match, since the Substring form is the
// concatenation of the String tokens and a contiguous run of tokens
// concatenates to a substring of it.
func FuzzMatch(f *testing.F) {
	f.Add("Levi's Stadium", "at Levi's Stadium in")
	f.Add("北京", "我爱北京天安门")
	f.Add("\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c2 x")
	f.Add("R\u00f6ntgen", "Ro\u0308ntgen\u00ad")
	f.Add(`20\s?,?\s?(32|40)0`, "20 , 320")
	f.Add("a\xffb", "a\xff\xfeb")
	f.Fuzz(func(t *testing.T, ans, text string) {
		tok, err := HasAnswer([]string{ans}, text, String)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := HasAnswer([]string{ans}, text, Substring)
		if err != nil {
			t.Fatal(err)
		}
		if tok && !sub {
			t.Fatalf("String match of %q in %q without a Substring match", ans, text)
		}
		if strings.TrimSpace(ans) == "" && (tok || sub) {
			t.Fatalf("blank answer %q matched", ans)
		}
		if _, err := HasAnswer([]string{ans}, text, Regex); err != nil {
			if _, ok := err.(*PatternError); !ok {
				t.Fatalf("regex error %T: %v", err, err)
			}
		}
		// The passage forms TopK caches give the same answers.
		m, _ := NewMatcher("q", []string{ans}, String)
		if m.matchForm(tokenForm(text)) != tok {
			t.Fatal("matchForm differs from Match")
		}
	})
}
