package perturb_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/perturb"
)

// *tokenizer.Tokenizer is what perturb's interfaces describe.
var (
	_ perturb.Vocabulary                              = (*tokenizer.Tokenizer)(nil)
	_ perturb.Swapper[*tokenizer.Tokenizer]           = (*tokenizer.Tokenizer)(nil)
	_ perturb.Fingerprinter                           = (*tokenizer.Tokenizer)(nil)
	_ func(*tokenizer.Tokenizer) func(string) []int32 = encoder
)

// The paper's two example queries (its Table 1).
const (
	mcdouble   = "difference between a mcdouble and a double cheeseburger"
	theraderm  = "what is theraderm used for"
	paperAfter = "difference between a mcdou pay and a assembly sometimeburger"
)

func encoder(tok *tokenizer.Tokenizer) func(string) []int32 {
	return func(s string) []int32 { return tok.Encode(s).IDs }
}

func loadMiniLM(t *testing.T) *tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Load(filepath.Join(sharedtest.ModelDir(t, "minilm"), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestPaperTable1IsAnIDShift checks the paper's printed damage against
// Algorithm 1 with the real vocabulary: every substituted token of
// "difference between a mcdou pay and a assembly sometimeburger" is its
// clean token moved up by 0..9 ids.
func TestPaperTable1IsAnIDShift(t *testing.T) {
	tok := loadMiniLM(t)
	clean := tok.Encode(mcdouble).IDs
	after := tok.Encode(paperAfter).IDs
	if len(clean) != len(after) {
		t.Fatalf("clean %v and perturbed %v differ in length", clean, after)
	}
	shifted := 0
	for i := range clean {
		d := after[i] - clean[i]
		if d < 0 || d > 9 {
			a, _ := tok.Token(clean[i])
			b, _ := tok.Token(after[i])
			t.Errorf("position %d: %q (%d) -> %q (%d) is not a shift by 0..9", i, a, clean[i], b, after[i])
		}
		if d != 0 {
			shifted++
		}
	}
	if shifted != 3 {
		t.Errorf("%d tokens shifted, want 3 (##ble->pay, double->assembly, cheese->sometime)", shifted)
	}
}

func TestMiniLMIDShift(t *testing.T) {
	tok := loadMiniLM(t)
	enc := encoder(tok)
	for _, text := range []string{mcdouble, theraderm} {
		// Find the first seed whose faithful run shifts [CLS] at rate 0.1,
		// as in the paper's mcdouble example, and compare it with
		// protect-special under the same seed.
		found := false
		for seed := uint64(1); seed <= 200 && !found; seed++ {
			faithful := &perturb.Perturber{Config: perturb.Config{Mode: perturb.IDShift, Rate: 0.1, Seed: seed}, Vocab: tok, Encode: enc}
			res, err := faithful.Apply("q", text)
			if err != nil {
				t.Fatal(err)
			}
			if res.Decoded != "[CLS] "+text+" [SEP]" {
				t.Fatalf("Decoded = %q", res.Decoded)
			}
			for i := range res.IDs {
				if d := res.PerturbedIDs[i] - res.IDs[i]; d < 0 || d > 9 {
					t.Fatalf("seed %d position %d: shift %d", seed, i, d)
				}
			}
			if res.PerturbedIDs[0] == 101 {
				continue
			}
			found = true
			if strings.HasPrefix(res.PerturbedDecoded, "[CLS]") {
				t.Errorf("seed %d: [CLS] shifted to %d but the decoding still starts with [CLS]: %q", seed, res.PerturbedIDs[0], res.PerturbedDecoded)
			}
			fair := &perturb.Perturber{Config: perturb.Config{Mode: perturb.IDShift, Rate: 0.1, Seed: seed, ProtectSpecial: true}, Vocab: tok, Encode: enc}
			fres, err := fair.Apply("q", text)
			if err != nil {
				t.Fatal(err)
			}
			n := len(fres.IDs)
			if fres.PerturbedIDs[0] != 101 || fres.PerturbedIDs[n-1] != 102 {
				t.Errorf("protect-special changed [CLS]/[SEP]: %v", fres.PerturbedIDs)
			}
			for i := 1; i < n-1; i++ {
				if fres.PerturbedIDs[i] != res.PerturbedIDs[i] {
					t.Errorf("content position %d: faithful %d, protect-special %d", i, res.PerturbedIDs[i], fres.PerturbedIDs[i])
				}
			}
			if fres.Considered != res.Considered-2 {
				t.Errorf("considered: faithful %d, protect-special %d", res.Considered, fres.Considered)
			}
			t.Logf("seed %d, %q:\n  %s\n  %s  (changed %d/%d)\n  %s  (protect-special, changed %d/%d)", seed, text,
				res.Decoded, res.PerturbedDecoded, res.Changed, res.Considered, fres.PerturbedDecoded, fres.Changed, fres.Considered)
		}
		if !found {
			t.Errorf("%q: no seed in 1..200 shifted [CLS] at rate 0.1 (expected ~9%% of seeds)", text)
		}
	}
}

func TestMiniLMModes(t *testing.T) {
	tok := loadMiniLM(t)
	enc := encoder(tok)
	for _, m := range perturb.Modes() {
		// At rate 0.5 a query of 7 or more candidates is left unchanged
		// with probability at most 2^-7.
		c := perturb.Config{Mode: m, Rate: 0.5, Seed: 1}
		p := &perturb.Perturber{Config: c, Vocab: tok, Encode: enc}
		if m == perturb.VocabSwap { // half of the vocabulary displaced
			bad, pairs, err := perturb.Poison(c, tok)
			if err != nil {
				t.Fatal(err)
			}
			if len(pairs) != 7629 { // round(0.5 * 30517 / 2): every id but the 5 special ones
				t.Errorf("%d pairs", len(pairs))
			}
			p.PoisonedEncode = encoder(bad)
		}
		for i, text := range []string{mcdouble, theraderm} {
			res, err := p.Apply(fmt.Sprint(i+1), text)
			if err != nil {
				t.Fatalf("%s: %v", m, err)
			}
			if res.Changed == 0 {
				t.Errorf("%s at rate %v changed nothing in %q", m, c.Rate, text)
			}
			if m.IsText() && res.PerturbedDecoded != tok.Decode(tok.Encode(res.PerturbedText).IDs, false) {
				t.Errorf("%s: perturbed ids are not the encoding of %q", m, res.PerturbedText)
			}
			t.Logf("%-10s %d/%d  %s", m, res.Changed, res.Considered, res.PerturbedDecoded)
		}
	}
}

func TestMiniLMPoisonDetected(t *testing.T) {
	tok := loadMiniLM(t)
	recorded := tok.Fingerprint()
	if err := perturb.VerifyFingerprint(recorded, tok); err != nil {
		t.Fatalf("clean tokenizer rejected: %v", err)
	}
	c := perturb.Config{Mode: perturb.VocabSwap, SwapPairs: 1, Seed: 1, ProtectSpecial: true}
	bad, pairs, err := perturb.Poison(c, tok)
	if err != nil {
		t.Fatal(err)
	}
	err = perturb.VerifyFingerprint(recorded, bad)
	if !errors.Is(err, perturb.ErrFingerprintMismatch) {
		t.Fatalf("a tokenizer with one swapped pair %v passed verification: %v", pairs, err)
	}
	// The poisoned tokenizer maps the swapped strings to each other's ids.
	a, _ := tok.Token(pairs[0][0])
	b, _ := tok.Token(pairs[0][1])
	ba, _ := bad.Token(pairs[0][0])
	if ba != b {
		t.Errorf("poisoned Token(%d) = %q, want %q (was %q)", pairs[0][0], ba, b, a)
	}
	t.Log(err)
}

// miniLMGolden is one line of testdata/golden_minilm.json: a query perturbed
// end to end (tokenize, perturb) with the real MiniLM tokenizer.
type miniLMGolden struct {
	Config  perturb.Config `json:"config"`
	QueryID string         `json:"query_id"`
	Text    string         `json:"text"`
	Result  perturb.Result `json:"result"`
}

// TestGoldenMiniLM pins Perturber.Apply with the real tokenizer, so the
// js/wasm run checks tokenization and perturbation together against the
// native output. It is rewritten with the same -update flag as TestGolden.
func TestGoldenMiniLM(t *testing.T) {
	tok := loadMiniLM(t)
	const path = "testdata/golden_minilm.json"
	var cases []miniLMGolden
	for _, m := range perturb.Modes() {
		for _, seed := range []uint64{1, 2} {
			for i, text := range []string{mcdouble, theraderm, "Who wrote \"Attention Is All You Need\"? (2017)"} {
				c := perturb.Config{Mode: m, Rate: 0.2, Seed: seed, ProtectSpecial: seed == 2 && m.IsID()}
				cases = append(cases, miniLMGolden{Config: c, QueryID: fmt.Sprint(i + 1), Text: text})
			}
		}
	}
	poisoned := map[perturb.Config]func(string) []int32{}
	for i := range cases {
		c := cases[i].Config
		p := &perturb.Perturber{Config: c, Vocab: tok, Encode: encoder(tok)}
		if c.Mode == perturb.VocabSwap {
			if poisoned[c] == nil {
				bad, _, err := perturb.Poison(c, tok)
				if err != nil {
					t.Fatal(err)
				}
				poisoned[c] = encoder(bad)
			}
			p.PoisonedEncode = poisoned[c]
		}
		res, err := p.Apply(cases[i].QueryID, cases[i].Text)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		cases[i].Result = res
	}
	if u := flag.Lookup("update"); u != nil && u.Value.String() == "true" {
		var buf bytes.Buffer
		for _, c := range cases {
			line, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(line)
			buf.WriteByte('\n')
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d cases to %s", len(cases), path)
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it natively with: go test ./perturb/ -run TestGolden -update)", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("%s has %d cases, the test %d: regenerate it", path, len(lines), len(cases))
	}
	for i, c := range cases {
		got, _ := json.Marshal(c)
		if string(got) != lines[i] {
			t.Errorf("%s line %d:\n got %s\nwant %s", path, i+1, got, lines[i])
		}
	}
	if !t.Failed() {
		t.Logf("%d MiniLM golden cases match", len(cases))
	}
}
