package perturb

import (
	"errors"
	"strings"
	"testing"
)

func TestPairs(t *testing.T) {
	tests := []struct {
		c         Config
		wantPairs int
	}{
		{Config{Mode: VocabSwap, SwapPairs: 50, Seed: 1}, 50},
		{Config{Mode: VocabSwap, Rate: 0.1, Seed: 1}, 1526}, // round(0.1*30517/2)
		{Config{Mode: VocabSwap, Rate: 0, Seed: 1}, 0},
		{Config{Mode: VocabSwap, Rate: 1, Seed: 1, ProtectSpecial: true}, 15258}, // all but one of 30517
	}
	for _, tt := range tests {
		pairs, err := Pairs(tt.c, bert)
		if err != nil {
			t.Fatalf("%v: %v", tt.c, err)
		}
		if len(pairs) != tt.wantPairs {
			t.Errorf("%v: %d pairs, want %d", tt.c, len(pairs), tt.wantPairs)
		}
		seen := map[int32]bool{}
		for _, p := range pairs {
			for _, id := range p {
				if id <= 0 || id >= 30522 || seen[id] {
					t.Fatalf("%v: id %d is padding, out of range or repeated", tt.c, id)
				}
				if bert.IsSpecial(id) {
					t.Fatalf("%v: special id %d swapped", tt.c, id)
				}
				seen[id] = true
			}
		}
		again, _ := Pairs(tt.c, bert)
		for i := range pairs {
			if again[i] != pairs[i] {
				t.Fatalf("%v: pairs differ between two calls", tt.c)
			}
		}
	}
	a, _ := Pairs(Config{Mode: VocabSwap, SwapPairs: 5, Seed: 1}, bert)
	b, _ := Pairs(Config{Mode: VocabSwap, SwapPairs: 5, Seed: 2}, bert)
	if a[0] == b[0] && a[1] == b[1] {
		t.Error("seeds 1 and 2 chose the same pairs")
	}
	if _, err := Pairs(Config{Mode: VocabSwap, SwapPairs: 3}, fakeVocab{size: 4}); err == nil || !strings.Contains(err.Error(), "3 swap pairs need 6 distinct ids, but only 3 of the vocabulary's 4 ids") {
		t.Errorf("too many pairs: %v", err)
	}
	if _, err := Pairs(Config{Mode: IDShift}, bert); err == nil || !strings.Contains(err.Error(), "want vocabswap") {
		t.Errorf("wrong mode: %v", err)
	}
}

func TestPoisonAndVerify(t *testing.T) {
	clean := newFakeTokenizer("what", "is", "theraderm", "used", "for", "cheese", "burger")
	c := Config{Mode: VocabSwap, SwapPairs: 400, Seed: 3}
	bad, pairs, err := Poison(c, clean) // T inferred as *fakeTokenizer
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 400 {
		t.Fatalf("%d pairs", len(pairs))
	}
	for _, p := range pairs {
		if clean.Decode(p[:1], false) != bad.Decode(p[1:], false) {
			t.Fatalf("pair %v not swapped", p)
		}
	}
	if err := VerifyFingerprint(clean.Fingerprint(), clean); err != nil {
		t.Errorf("clean tokenizer rejected: %v", err)
	}
	if err := VerifyFingerprint(strings.ToUpper(clean.Fingerprint())+"\n", clean); err != nil {
		t.Errorf("upper-case fingerprint with newline rejected: %v", err)
	}
	err = VerifyFingerprint(clean.Fingerprint(), bad)
	if !errors.Is(err, ErrFingerprintMismatch) {
		t.Fatalf("poisoned tokenizer accepted: %v", err)
	}
	for _, w := range []string{clean.Fingerprint(), bad.Fingerprint(), "tampered", "re-encode"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	if err := VerifyFingerprint("", clean); err == nil || !strings.Contains(err.Error(), "no tokenizer fingerprint was recorded") {
		t.Errorf("empty record: %v", err)
	}
	// Swapping a pair back restores the fingerprint.
	undone, err := bad.WithSwappedTokens(pairs)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyFingerprint(clean.Fingerprint(), undone); err != nil {
		t.Errorf("unswapped tokenizer rejected: %v", err)
	}
}
