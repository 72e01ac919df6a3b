package tokenizer

import "fmt"

// CanSwap reports whether WithSwappedTokens can swap id: an id of the
// model's vocabulary that is not an added or special token.
func (t *Tokenizer) CanSwap(id int32) bool {
	if id < 0 || int(id) >= len(t.vocab) || t.holes[id] || t.specialByID[id] {
		return false
	}
	for _, a := range t.added {
		if a.ID == id {
			return false
		}
	}
	mid, ok := t.ids[t.vocab[id]]
	return ok && mid == id
}

// WithSwappedTokens returns a copy of t whose vocabulary has the entries of
// each pair of ids swapped, applied in order: a tampered ("poisoned")
// tokenizer file, where text that used to map to id a now maps to id b and
// the other way round. An entry is all the file says about the id: the
// token string, and for Unigram and SentencePiece models its score and
// type too (so the segmentation is unchanged and only the ids move); BPE
// merges name tokens by their strings, so they follow. Its Fingerprint
// differs from t's (unless every swap is a no-op, a == b). Added and
// special tokens cannot be swapped: the reference ties their ids to their
// contents, so such a file would not load.
func (t *Tokenizer) WithSwappedTokens(pairs [][2]int32) (*Tokenizer, error) {
	vocab := append([]string(nil), t.vocab...)
	addedID := map[int32]string{}
	for _, a := range t.added {
		addedID[a.ID] = a.Content
	}
	for i, p := range pairs {
		for _, id := range p {
			if id < 0 || int(id) >= len(vocab) || t.holes[id] {
				return nil, fmt.Errorf("swap %d: id %d is outside the vocabulary (0..%d)", i, id, len(vocab)-1)
			}
			if c, ok := addedID[id]; ok {
				return nil, fmt.Errorf("swap %d: id %d is the added token %q; only ordinary vocabulary entries can be swapped", i, id, c)
			}
			if t.specialByID[id] {
				return nil, fmt.Errorf("swap %d: id %d (%q) is a special token; only ordinary vocabulary entries can be swapped", i, id, vocab[id])
			}
			if _, inModel := t.ids[vocab[id]]; !inModel {
				return nil, fmt.Errorf("swap %d: id %d (%q) is not in the model's vocabulary", i, id, vocab[id])
			}
		}
		vocab[p[0]], vocab[p[1]] = vocab[p[1]], vocab[p[0]]
	}
	// Every swapped id belongs to the model's vocabulary, so the model's
	// tokens keep their ids but for the swapped ones.
	ids := make(map[string]int32, len(t.ids))
	for _, id := range t.ids {
		ids[vocab[id]] = id
	}
	m, err := t.model.withVocab(vocab, ids, pairs)
	if err != nil {
		return nil, err
	}
	c := &Tokenizer{
		name:    t.name + " (swapped)",
		format:  t.format,
		vocab:   vocab,
		holes:   t.holes,
		ids:     ids,
		norm:    t.norm,
		pre:     t.pre,
		model:   m,
		added:   append([]addedToken(nil), t.added...),
		post:    t.post,
		decoder: t.decoder,
		trunc:   t.trunc,
		pad:     t.pad,
		padID:   t.padID,
		extra:   t.extra.swapped(pairs),
	}
	// Special pieces of a SentencePiece model are not added tokens; they
	// keep their ids (swapping them is refused above).
	c.specialByID = map[int32]bool{}
	c.specialText = map[string]bool{}
	for id := range t.specialByID {
		c.specialByID[id] = true
		c.specialText[vocab[id]] = true
	}
	if err := c.finish(); err != nil {
		return nil, err
	}
	return c, nil
}
