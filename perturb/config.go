package perturb

import (
	"fmt"
	"math"
	"strings"
)

// Mode names a perturbation.
type Mode string

// The perturbation modes. Rates are per position (id modes), per character
// (character modes) or per word (worddrop).
const (
	// IDShift is the paper's Algorithm 1: at every non-padding position,
	// with probability Rate, the id t becomes t+d with d uniform on 0..9
	// (so about 0.9*Rate of the ids change).
	IDShift Mode = "idshift"
	// IDRandom replaces an id, with probability Rate, by an id drawn
	// uniformly from the other VocabSize-1 ids, so the changed fraction is
	// Rate itself.
	IDRandom Mode = "idrandom"
	// Typo replaces an ASCII letter or digit, with probability Rate, by one
	// of its neighbours on a QWERTY keyboard (letters and digits only;
	// case is kept).
	Typo Mode = "typo"
	// CharSwap swaps two adjacent non-space characters, with probability
	// Rate per character pair considered.
	CharSwap Mode = "charswap"
	// CharInsert inserts a random lowercase ASCII letter after a non-space
	// character with probability Rate.
	CharInsert Mode = "charinsert"
	// CharDelete deletes a non-space character with probability Rate.
	CharDelete Mode = "chardelete"
	// WordDrop drops a whitespace-separated word with probability Rate.
	WordDrop Mode = "worddrop"
	// VocabSwap is tokenizer poisoning: the query tokenizer has pairs of
	// vocabulary entries swapped (see Pairs and Poison) while the corpus
	// was encoded with the clean one.
	VocabSwap Mode = "vocabswap"
)

var modes = []Mode{IDShift, IDRandom, Typo, CharSwap, CharInsert, CharDelete, WordDrop, VocabSwap}

// Modes returns every mode, in a stable order.
func Modes() []Mode { return append([]Mode(nil), modes...) }

// IsText reports whether m perturbs the text before tokenization.
func (m Mode) IsText() bool {
	switch m {
	case Typo, CharSwap, CharInsert, CharDelete, WordDrop:
		return true
	}
	return false
}

// IsID reports whether m perturbs token ids after tokenization.
func (m Mode) IsID() bool { return m == IDShift || m == IDRandom }

func (m Mode) valid() bool {
	for _, k := range modes {
		if m == k {
			return true
		}
	}
	return false
}

func modeList() string {
	s := make([]string, len(modes))
	for i, m := range modes {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

// ParseMode returns the Mode named s, or an error listing the modes.
func ParseMode(s string) (Mode, error) {
	m := Mode(s)
	if !m.valid() {
		return "", fmt.Errorf("unknown perturbation mode %q (accepted: %s)", s, modeList())
	}
	return m, nil
}

// OOVPolicy says what idshift does when t+d falls outside the vocabulary
// (t+d >= VocabSize). The paper's code would have indexed the embedding
// table out of range there, which fails in PyTorch; its published runs are
// therefore runs where this never happened.
type OOVPolicy string

// The out-of-vocabulary policies.
const (
	// Redraw (the default) redraws d uniformly among the shifts that stay
	// in the vocabulary, 0..VocabSize-1-t. It is equivalent to rejection
	// sampling of d, so the result has exactly the paper's distribution
	// conditioned on its code not failing; ids never leave the vocabulary,
	// no single id collects the overflow (as with Clamp) and no id jumps to
	// the bottom of the vocabulary ([PAD] and [unused] slots, as with Wrap).
	// The redraw uses a generator of its own per (seed, query, position),
	// so the other positions keep their draws and the redrawn id is the
	// same at every rate that perturbs the position.
	Redraw OOVPolicy = "redraw"
	// Clamp replaces t+d by VocabSize-1.
	Clamp OOVPolicy = "clamp"
	// Wrap replaces t+d by (t+d) mod VocabSize.
	Wrap OOVPolicy = "wrap"
	// Fail returns an error naming the query, position and id: the
	// paper's code path, made explicit.
	Fail OOVPolicy = "error"
)

var oovPolicies = []OOVPolicy{Redraw, Clamp, Wrap, Fail}

// ParseOOV returns the OOVPolicy named s ("" is the default, Redraw), or an
// error listing the policies.
func ParseOOV(s string) (OOVPolicy, error) {
	if s == "" {
		return Redraw, nil
	}
	for _, p := range oovPolicies {
		if OOVPolicy(s) == p {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown out-of-vocabulary policy %q (accepted: redraw, clamp, wrap, error)", s)
}

// DefaultRate is the paper's default perturbation rate.
const DefaultRate = 0.1

// Config is one perturbation setting. The zero OOV means Redraw.
type Config struct {
	Mode Mode `json:"mode"`
	// Rate is the probability of perturbing each position, character or
	// word, in [0, 1]. For VocabSwap with SwapPairs == 0 it is the
	// fraction of the eligible vocabulary displaced: round(Rate*n/2) pairs
	// of the n eligible ids.
	Rate float64 `json:"rate"`
	// Seed selects the random draws; with the query id it determines them.
	Seed uint64 `json:"seed"`
	// OOV is idshift's out-of-vocabulary policy ("" means Redraw).
	OOV OOVPolicy `json:"oov,omitempty"`
	// ProtectSpecial leaves special tokens ([CLS], [SEP], ...) alone in the
	// id modes. The paper's attack (false) hits every non-padding position,
	// special tokens included. Text modes never see special tokens and
	// vocabswap never swaps them, so it has no effect there.
	ProtectSpecial bool `json:"protect_special,omitempty"`
	// SwapPairs is the number of vocabulary pairs VocabSwap swaps; 0
	// derives it from Rate. Other modes require 0.
	SwapPairs int `json:"swap_pairs,omitempty"`
}

// Validate reports the first problem with c, naming the value and what is
// accepted.
func (c Config) Validate() error {
	if !c.Mode.valid() {
		if c.Mode == "" {
			return fmt.Errorf("perturbation mode is empty (accepted: %s)", modeList())
		}
		return fmt.Errorf("unknown perturbation mode %q (accepted: %s)", string(c.Mode), modeList())
	}
	if math.IsNaN(c.Rate) {
		return fmt.Errorf("%s: rate is NaN; it must be a number in [0, 1]", c.Mode)
	}
	if c.Rate < 0 || c.Rate > 1 {
		return fmt.Errorf("%s: rate %v is outside [0, 1]", c.Mode, c.Rate)
	}
	if _, err := ParseOOV(string(c.OOV)); err != nil {
		return fmt.Errorf("%s: %w", c.Mode, err)
	}
	if c.SwapPairs < 0 {
		return fmt.Errorf("%s: swap pairs %d is negative; it must be >= 0", c.Mode, c.SwapPairs)
	}
	if c.SwapPairs != 0 && c.Mode != VocabSwap {
		return fmt.Errorf("%s: swap pairs (%d) apply only to mode %s", c.Mode, c.SwapPairs, VocabSwap)
	}
	return nil
}

// oov returns c.OOV with the default filled in.
func (c Config) oov() OOVPolicy {
	if c.OOV == "" {
		return Redraw
	}
	return c.OOV
}

// String returns a compact description such as "idshift rate=0.1 seed=1".
func (c Config) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s rate=%v seed=%d", c.Mode, c.Rate, c.Seed)
	if c.Mode == IDShift {
		fmt.Fprintf(&b, " oov=%s", c.oov())
	}
	if c.ProtectSpecial {
		b.WriteString(" protect-special")
	}
	if c.SwapPairs != 0 {
		fmt.Fprintf(&b, " pairs=%d", c.SwapPairs)
	}
	return b.String()
}
