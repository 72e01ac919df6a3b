package answer

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/internal/sharedtest"
)

// TestPassageTextTokens checks that the MiniLM tokenizer reads the literal
// "[SEP]" of PassageText as its special token: [CLS] title [SEP] text [SEP].
func TestPassageTextTokens(t *testing.T) {
	tok, err := tokenizer.Load(filepath.Join(sharedtest.ModelDir(t, "minilm"), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	cls, _ := tok.ID("[CLS]")
	sep, _ := tok.ID("[SEP]")
	noSpecial := tokenizer.Options{}
	withSpecial := tokenizer.Options{AddSpecial: true}
	for _, c := range []struct{ title, text string }{
		{"Aaron", "Aaron is a prophet, high priest, and the brother of Moses."},
		{"", "no title"},
		{"Sněžka", "the highest mountain of Czechia"},
	} {
		got := tok.EncodeWith(PassageText(c.title, c.text), withSpecial).IDs
		want := []int32{cls}
		want = append(want, tok.EncodeWith(c.title, noSpecial).IDs...)
		want = append(want, sep)
		want = append(want, tok.EncodeWith(c.text, noSpecial).IDs...)
		want = append(want, sep)
		if !slices.Equal(got, want) {
			t.Errorf("%q %q:\n got %v %q\nwant %v", c.title, c.text, got, tok.Tokens(got), want)
		}
	}
}
