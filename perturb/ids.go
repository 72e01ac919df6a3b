package perturb

import (
	"fmt"
	"math"
	"strconv"
)

// Vocabulary is what the id perturbations need to know about a tokenizer.
// *tokenizer.Tokenizer satisfies it.
type Vocabulary interface {
	// VocabSize is the number of ids; valid ids are 0..VocabSize()-1.
	VocabSize() int
	// IsSpecial reports whether id is a special token ([CLS], [SEP], ...).
	IsSpecial(id int32) bool
	// PadID is the padding id; positions holding it are never perturbed.
	PadID() int32
	// Decode turns ids back into text, keeping special tokens when
	// skipSpecial is false.
	Decode(ids []int32, skipSpecial bool) string
}

// Result is one perturbed query.
type Result struct {
	Mode    Mode   `json:"mode"`
	QueryID string `json:"query_id"`
	// Text is the query text (empty when only ids were given);
	// PerturbedText is the text after text-level noise (text modes only).
	Text          string `json:"text,omitempty"`
	PerturbedText string `json:"perturbed_text,omitempty"`
	// IDs are the clean token ids, PerturbedIDs the ids the model sees.
	IDs          []int32 `json:"ids"`
	PerturbedIDs []int32 `json:"perturbed_ids"`
	// Changed is the number of clean tokens changed, out of Considered
	// (the positions the mode may change: non-padding ones, without special
	// tokens under ProtectSpecial, in text modes and in vocabswap). Fraction is
	// Changed/Considered, and 0 when Considered is 0. Id modes and vocabswap
	// count positions whose id differs; text modes count the clean tokens
	// left out of a longest common subsequence of the two id sequences.
	Changed    int     `json:"changed"`
	Considered int     `json:"considered"`
	Fraction   float64 `json:"fraction"`
	// TextChanged and TextConsidered count edits and candidate characters
	// (words for worddrop) in text modes.
	TextChanged    int `json:"text_changed,omitempty"`
	TextConsidered int `json:"text_considered,omitempty"`
	// Decoded and PerturbedDecoded are IDs and PerturbedIDs decoded with
	// the clean vocabulary, special tokens shown: the paper's Table 1.
	Decoded          string `json:"decoded"`
	PerturbedDecoded string `json:"perturbed_decoded"`
}

func fraction(changed, considered int) float64 {
	if considered == 0 {
		return 0
	}
	return float64(changed) / float64(considered)
}

// IDs applies an id mode (idshift or idrandom) of c to the clean ids of
// query queryID, read against vocabulary v. ids may end in padding (v's
// PadID), which is left alone; every other id must be in the vocabulary.
// ids is not modified.
func IDs(c Config, queryID string, ids []int32, v Vocabulary) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	if !c.Mode.IsID() {
		return Result{}, fmt.Errorf("perturb.IDs: mode %s does not perturb ids (id modes: %s, %s)", c.Mode, IDShift, IDRandom)
	}
	out, changed, considered, err := perturbIDs(c, queryID, ids, v.VocabSize(), v.IsSpecial, v.PadID())
	if err != nil {
		return Result{}, err
	}
	return Result{
		Mode:             c.Mode,
		QueryID:          queryID,
		IDs:              append([]int32(nil), ids...),
		PerturbedIDs:     out,
		Changed:          changed,
		Considered:       considered,
		Fraction:         fraction(changed, considered),
		Decoded:          v.Decode(ids, false),
		PerturbedDecoded: v.Decode(out, false),
	}, nil
}

// checkVocab checks a vocabulary size is usable with int32 ids.
func checkVocab(size int) error {
	if size <= 0 || int64(size) > math.MaxInt32+1 {
		return fmt.Errorf("vocabulary size %d is outside 1..%d", size, int64(math.MaxInt32)+1)
	}
	return nil
}

// perturbIDs is IDs without decoding: it returns the perturbed copy of ids,
// the number of positions changed and the number considered. c is valid and
// an id mode.
func perturbIDs(c Config, queryID string, ids []int32, vocabSize int, isSpecial func(int32) bool, pad int32) ([]int32, int, int, error) {
	if err := checkVocab(vocabSize); err != nil {
		return nil, 0, 0, fmt.Errorf("query %q: %w", queryID, err)
	}
	if c.Mode == IDRandom && vocabSize < 2 {
		return nil, 0, 0, fmt.Errorf("query %q: %s needs a vocabulary of at least 2 ids, got %d", queryID, IDRandom, vocabSize)
	}
	v := int64(vocabSize)
	for i, t := range ids {
		if t != pad && (t < 0 || int64(t) >= v) {
			return nil, 0, 0, fmt.Errorf("query %q: token id %d at position %d is outside the vocabulary [0, %d)", queryID, t, i, v)
		}
	}
	out := append([]int32(nil), ids...)
	r := newRNG(c, "ids", queryID)
	oov := c.oov()
	changed, considered := 0, 0
	k := -1 // the ordinal of the position among the non-padding ones
	for i, t := range ids {
		if t == pad {
			continue // padding draws nothing, so its length cannot matter
		}
		k++
		protected := c.ProtectSpecial && isSpecial(t)
		if !protected {
			considered++
		}
		// Every non-padding position draws r and its new id whatever the
		// rate and the options say, so each position reads the same values
		// at every rate (the perturbed positions are nested: r < a implies
		// r < b for a < b) and under every option.
		p := r.Float64()
		var nt int64
		switch c.Mode {
		case IDShift:
			nt = int64(t) + int64(r.IntN(10)) // d ~ UniformInteger(0, 9), both ends included
		case IDRandom:
			u := int64(r.IntN(uint64(v - 1))) // among the other v-1 ids
			if u >= int64(t) {
				u++
			}
			nt = u
		}
		if p >= c.Rate || protected {
			continue
		}
		if nt >= v { // idshift only
			switch oov {
			case Clamp:
				nt = v - 1
			case Wrap:
				nt %= v
			case Redraw:
				nt = int64(t) + int64(redrawRNG(c, queryID, k).IntN(uint64(v-int64(t))))
			default: // Fail
				return nil, 0, 0, fmt.Errorf("query %q: %s moved token id %d at position %d to %d, outside the vocabulary [0, %d) (oov policy %q)", queryID, c.Mode, t, i, nt, v, Fail)
			}
		}
		out[i] = int32(nt)
		if out[i] != t {
			changed++
		}
	}
	return out, changed, considered, nil
}

// redrawRNG returns the generator of Redraw's draw at the k-th non-padding
// position of query queryID: a stream of its own per position, so a redraw
// depends on nothing but (mode, seed, query, position) and gives the same id
// at every rate that perturbs the position, and the other positions keep
// their draws.
func redrawRNG(c Config, queryID string, k int) *rng {
	return newRNG(c, "oov-redraw/"+strconv.Itoa(k), queryID)
}
