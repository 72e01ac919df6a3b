package perturb

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Pairs chooses the vocabulary entries a VocabSwap config swaps: disjoint
// pairs of ids, drawn uniformly by the config's seed (the query id plays no
// part: one tampered tokenizer serves every query). The padding id and the
// special ids are never swapped: special tokens are added tokens, matched
// before the vocabulary is consulted, so swapping them would not be a
// vocabulary swap (and tokenizer.WithSwappedTokens refuses it); neither is
// an id v says cannot be swapped when it implements Swappable (a
// non-special added token, an id no token uses). The number of pairs is
// c.SwapPairs, or round(c.Rate*n/2) for the n eligible ids when
// c.SwapPairs is 0 (at most n/2).
func Pairs(c Config, v Vocabulary) ([][2]int32, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Mode != VocabSwap {
		return nil, fmt.Errorf("perturb.Pairs: mode is %s, want %s", c.Mode, VocabSwap)
	}
	size := v.VocabSize()
	if err := checkVocab(size); err != nil {
		return nil, fmt.Errorf("%s: %w", VocabSwap, err)
	}
	pad := v.PadID()
	sw, _ := v.(Swappable)
	eligible := make([]int32, 0, size)
	for id := 0; id < size; id++ {
		t := int32(id)
		if t == pad || v.IsSpecial(t) || sw != nil && !sw.CanSwap(t) {
			continue
		}
		eligible = append(eligible, t)
	}
	k := c.SwapPairs
	if k == 0 {
		k = min(int(math.Round(c.Rate*float64(len(eligible))/2)), len(eligible)/2)
	}
	if 2*k > len(eligible) {
		return nil, fmt.Errorf("%s: %d swap pairs need %d distinct ids, but only %d of the vocabulary's %d ids may be swapped", VocabSwap, k, 2*k, len(eligible), size)
	}
	r := newRNG(c, "vocabswap", "")
	// A partial Fisher-Yates shuffle draws 2k distinct ids in order.
	for i := 0; i < 2*k; i++ {
		j := i + int(r.IntN(uint64(len(eligible)-i)))
		eligible[i], eligible[j] = eligible[j], eligible[i]
	}
	pairs := make([][2]int32, k)
	for i := range pairs {
		pairs[i] = [2]int32{eligible[2*i], eligible[2*i+1]}
	}
	return pairs, nil
}

// Swappable is a Vocabulary that says which ids may be swapped (beyond the
// padding and special ones). *tokenizer.Tokenizer is one.
type Swappable interface {
	CanSwap(id int32) bool
}

// Swapper is a tokenizer that can make a copy of itself with vocabulary
// entries swapped. *tokenizer.Tokenizer is a Swapper[*tokenizer.Tokenizer].
type Swapper[T any] interface {
	Vocabulary
	WithSwappedTokens(pairs [][2]int32) (T, error)
}

// Poison returns the tampered tokenizer of a VocabSwap config: a copy of tok
// with the entries chosen by Pairs swapped, and the pairs.
func Poison[T any](c Config, tok Swapper[T]) (T, [][2]int32, error) {
	var zero T
	pairs, err := Pairs(c, tok)
	if err != nil {
		return zero, nil, err
	}
	bad, err := tok.WithSwappedTokens(pairs)
	if err != nil {
		return zero, nil, fmt.Errorf("%s: swapping %d vocabulary pairs: %w", VocabSwap, len(pairs), err)
	}
	return bad, pairs, nil
}

// Fingerprinter is a tokenizer that can name its content: a hex SHA-256 over
// its normalised vocabulary and settings. *tokenizer.Tokenizer is one.
type Fingerprinter interface {
	Fingerprint() string
}

// ErrFingerprintMismatch is returned (wrapped) by VerifyFingerprint when the
// tokenizer differs from the one recorded.
var ErrFingerprintMismatch = errors.New("tokenizer fingerprint mismatch")

// VerifyFingerprint checks that tok is the tokenizer whose fingerprint was
// recorded (for example with the corpus embeddings), and says what to do
// when it is not: a different or tampered tokenizer must not be used
// silently for queries against embeddings made with another one.
func VerifyFingerprint(recorded string, tok Fingerprinter) error {
	want := strings.TrimSpace(recorded)
	if want == "" {
		return errors.New("no tokenizer fingerprint was recorded, so the query tokenizer cannot be verified; re-create the embeddings to record one")
	}
	got := tok.Fingerprint()
	if !strings.EqualFold(got, want) {
		return fmt.Errorf("%w: the query tokenizer has fingerprint %s but the embeddings were made with a tokenizer of fingerprint %s; it is a different or tampered (poisoned) tokenizer: use the tokenizer the embeddings were made with, or re-encode the corpus with this one", ErrFingerprintMismatch, got, want)
	}
	return nil
}
