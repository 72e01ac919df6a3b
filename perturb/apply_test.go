package perturb

import (
	"strings"
	"testing"
)

var queryWords = []string{"difference", "between", "a", "mcdouble", "and", "double", "cheeseburger",
	"what", "is", "theraderm", "used", "for", "mcdou", "##ble", "pay", "assembly"}

func newPerturber(t *testing.T, c Config) (*Perturber, *fakeTokenizer) {
	tok := newFakeTokenizer(queryWords...)
	p := &Perturber{Config: c, Vocab: tok, Encode: tok.EncodeIDs}
	if c.Mode == VocabSwap {
		bad, _, err := Poison(c, tok)
		if err != nil {
			t.Fatal(err)
		}
		p.PoisonedEncode = bad.EncodeIDs
	}
	return p, tok
}

func TestPerturberModes(t *testing.T) {
	const text = "difference between a mcdouble and a double cheeseburger"
	for _, m := range Modes() {
		c := Config{Mode: m, Rate: 0.5, Seed: 11}
		if m == VocabSwap {
			c.Rate = 1 // every content token maps elsewhere
		}
		p, tok := newPerturber(t, c)
		res, err := p.Apply("q1", text)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if res.Text != text || res.Mode != m || res.QueryID != "q1" {
			t.Errorf("%s: result header %+v", m, res)
		}
		if want := tok.EncodeIDs(text); !equalIDs(res.IDs, want) {
			t.Errorf("%s: IDs %v, want the clean encoding %v", m, res.IDs, want)
		}
		if res.Decoded != "[CLS] "+text+" [SEP]" {
			t.Errorf("%s: Decoded %q", m, res.Decoded)
		}
		if res.PerturbedDecoded != tok.Decode(res.PerturbedIDs, false) {
			t.Errorf("%s: PerturbedDecoded %q is not the decoding of %v", m, res.PerturbedDecoded, res.PerturbedIDs)
		}
		if res.Changed == 0 || res.Changed > res.Considered || res.Fraction != float64(res.Changed)/float64(res.Considered) {
			t.Errorf("%s: changed %d of %d, fraction %v", m, res.Changed, res.Considered, res.Fraction)
		}
		if m.IsText() != (res.PerturbedText != "") {
			t.Errorf("%s: PerturbedText %q", m, res.PerturbedText)
		}
		if m.IsText() && tok.Decode(tok.EncodeIDs(res.PerturbedText), false) != res.PerturbedDecoded {
			t.Errorf("%s: PerturbedIDs are not the encoding of %q", m, res.PerturbedText)
		}
		t.Logf("%-10s changed %d/%d: %s", m, res.Changed, res.Considered, res.PerturbedDecoded)
	}
}

func TestPerturberTextModeCounts(t *testing.T) {
	// worddrop at rate 1 removes every word: all 8 content tokens changed.
	p, _ := newPerturber(t, Config{Mode: WordDrop, Rate: 1})
	res, err := p.Apply("q", "difference between a mcdouble and a double cheeseburger")
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed != 8 || res.Considered != 8 || res.PerturbedDecoded != "[CLS] [SEP]" || res.TextChanged != 8 {
		t.Errorf("worddrop rate 1: %+v", res)
	}
}

func TestPerturberErrors(t *testing.T) {
	p := &Perturber{Config: Config{Mode: VocabSwap, SwapPairs: 1}}
	if _, err := p.Apply("q", "x"); err == nil || !strings.Contains(err.Error(), "needs Vocab and Encode") {
		t.Errorf("missing tokenizer: %v", err)
	}
	tok := newFakeTokenizer()
	p = &Perturber{Config: Config{Mode: VocabSwap, SwapPairs: 1}, Vocab: tok, Encode: tok.EncodeIDs}
	if _, err := p.Apply("q", "x"); err == nil || !strings.Contains(err.Error(), "PoisonedEncode") {
		t.Errorf("vocabswap without poisoned tokenizer: %v", err)
	}
	p.Config.Mode = "nonsense"
	if _, err := p.Apply("q", "x"); err == nil || !strings.Contains(err.Error(), `"nonsense"`) {
		t.Errorf("unknown mode: %v", err)
	}
}

func TestLCSChanged(t *testing.T) {
	tests := []struct {
		a, b             []int32
		changed, content int
	}{
		{[]int32{101, 5000, 5001, 102}, []int32{101, 5000, 5001, 102}, 0, 2},
		{[]int32{101, 5000, 5001, 102}, []int32{101, 5001, 102}, 1, 2},
		{[]int32{101, 5000, 5001, 102}, []int32{101, 5000, 9, 9, 5001, 102}, 0, 2}, // insertion
		{[]int32{101, 5000, 5001, 5002, 102}, []int32{101, 5002, 5000, 102}, 2, 3},
		{[]int32{101, 5000, 5001, 102}, []int32{101, 102}, 2, 2},
		{[]int32{101, 5000, 102, 0, 0}, []int32{101, 6000, 102}, 1, 1},
		{nil, nil, 0, 0},
	}
	for _, tt := range tests {
		changed, content, err := lcsChanged(tt.a, tt.b, bert)
		if err != nil || changed != tt.changed || content != tt.content {
			t.Errorf("lcsChanged(%v, %v) = %d, %d; want %d, %d", tt.a, tt.b, changed, content, tt.changed, tt.content)
		}
	}
}

func TestLCSChangedLimit(t *testing.T) {
	a := make([]int32, 5000)
	b := make([]int32, 5000)
	for i := range a {
		a[i], b[i] = 2000, 3000
	}
	if _, _, err := lcsChanged(a, b, bert); err == nil || !strings.Contains(err.Error(), "truncate the query") {
		t.Errorf("5000 x 5000 alignment: %v", err)
	}
	// A long query with a local change is cheap: prefix and suffix match.
	b = append([]int32(nil), a...)
	b[2500] = 7
	if changed, _, err := lcsChanged(a, b, bert); err != nil || changed != 1 {
		t.Errorf("local change: %d, %v", changed, err)
	}
}

func equalIDs(a, b []int32) bool {
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
