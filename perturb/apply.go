package perturb

import (
	"errors"
	"fmt"
)

// Perturber applies one Config to queries end to end: it tokenizes the
// query and perturbs it as the mode says (id modes: tokenize, then perturb
// the ids; text modes: perturb the text, then tokenize; vocabswap: tokenize
// with the tampered tokenizer). It holds no per-query state: Apply may be
// called from several goroutines if Encode and PoisonedEncode may.
type Perturber struct {
	Config Config
	// Vocab is the clean tokenizer's vocabulary; it decodes both id
	// sequences, so PerturbedDecoded shows what the model reads.
	Vocab Vocabulary
	// Encode tokenizes with the clean tokenizer, special tokens included
	// (for *tokenizer.Tokenizer: func(s string) []int32 { return tok.Encode(s).IDs }).
	Encode func(text string) []int32
	// PoisonedEncode tokenizes with the tampered tokenizer returned by
	// Poison; only vocabswap uses it, and requires it.
	PoisonedEncode func(text string) []int32
}

// Apply perturbs the query queryID with text text.
func (p *Perturber) Apply(queryID, text string) (Result, error) {
	c := p.Config
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	if p.Vocab == nil || p.Encode == nil {
		return Result{}, errors.New("perturb.Perturber needs Vocab and Encode")
	}
	ids := p.Encode(text)
	switch {
	case c.Mode.IsID():
		res, err := IDs(c, queryID, ids, p.Vocab)
		if err != nil {
			return Result{}, err
		}
		res.Text = text
		return res, nil
	case c.Mode.IsText():
		pt, st, err := Text(c, queryID, text)
		if err != nil {
			return Result{}, err
		}
		pids := ids
		if pt != text {
			pids = p.Encode(pt)
		}
		changed, considered, err := lcsChanged(ids, pids, p.Vocab)
		if err != nil {
			return Result{}, fmt.Errorf("query %q: %w", queryID, err)
		}
		return Result{
			Mode:             c.Mode,
			QueryID:          queryID,
			Text:             text,
			PerturbedText:    pt,
			IDs:              ids,
			PerturbedIDs:     pids,
			Changed:          changed,
			Considered:       considered,
			Fraction:         fraction(changed, considered),
			TextChanged:      st.Changed,
			TextConsidered:   st.Considered,
			Decoded:          p.Vocab.Decode(ids, false),
			PerturbedDecoded: p.Vocab.Decode(pids, false),
		}, nil
	default: // VocabSwap
		if p.PoisonedEncode == nil {
			return Result{}, fmt.Errorf("%s needs Perturber.PoisonedEncode: the tokenizer returned by perturb.Poison", VocabSwap)
		}
		pids := p.PoisonedEncode(text)
		var changed, considered int
		if len(pids) == len(ids) {
			pad := p.Vocab.PadID()
			for i, t := range ids {
				if t == pad || p.Vocab.IsSpecial(t) {
					continue
				}
				considered++
				if pids[i] != t {
					changed++
				}
			}
		} else {
			var err error
			if changed, considered, err = lcsChanged(ids, pids, p.Vocab); err != nil {
				return Result{}, fmt.Errorf("query %q: %w", queryID, err)
			}
		}
		return Result{
			Mode:             c.Mode,
			QueryID:          queryID,
			Text:             text,
			IDs:              ids,
			PerturbedIDs:     pids,
			Changed:          changed,
			Considered:       considered,
			Fraction:         fraction(changed, considered),
			Decoded:          p.Vocab.Decode(ids, false),
			PerturbedDecoded: p.Vocab.Decode(pids, false),
		}, nil
	}
}

// maxAlignCells bounds the alignment table of lcsChanged (64 MiB of int32).
const maxAlignCells = 1 << 24

// lcsChanged counts the content tokens of a (neither padding nor special)
// and how many of them are left out of a longest common subsequence of a
// and b: the clean tokens the perturbation changed or removed. The table is
// quadratic in the differing middle of the two sequences; beyond
// maxAlignCells it returns an error rather than a guess.
func lcsChanged(a, b []int32, v Vocabulary) (changed, considered int, err error) {
	pad := v.PadID()
	content := func(t int32) bool { return t != pad && !v.IsSpecial(t) }
	for _, t := range a {
		if content(t) {
			considered++
		}
	}
	// Common prefix and suffix are matched; the DP runs on the middle.
	lo := 0
	for lo < len(a) && lo < len(b) && a[lo] == b[lo] {
		lo++
	}
	ha, hb := len(a), len(b)
	for ha > lo && hb > lo && a[ha-1] == b[hb-1] {
		ha--
		hb--
	}
	ma, mb := a[lo:ha], b[lo:hb]
	n, m := len(ma), len(mb)
	if int64(n+1)*int64(m+1) > maxAlignCells {
		return 0, 0, fmt.Errorf("aligning %d clean with %d perturbed tokens needs a %d x %d table, over the limit of %d cells: truncate the query", len(a), len(b), n+1, m+1, maxAlignCells)
	}
	// L[i][j] is the LCS length of ma[i:] and mb[j:].
	w := m + 1
	L := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case ma[i] == mb[j]:
				L[i*w+j] = L[(i+1)*w+j+1] + 1
			case L[(i+1)*w+j] >= L[i*w+j+1]:
				L[i*w+j] = L[(i+1)*w+j]
			default:
				L[i*w+j] = L[i*w+j+1]
			}
		}
	}
	i, j := 0, 0
	for i < n {
		switch {
		case j < m && ma[i] == mb[j]:
			i++
			j++
		case j < m && L[i*w+j+1] > L[(i+1)*w+j]:
			j++
		default:
			if content(ma[i]) {
				changed++
			}
			i++
		}
	}
	return changed, considered, nil
}
