package tokenizer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
)

// Fingerprint returns the hex SHA-256 of everything that decides which ids
// a text gets, in a fixed textual form (version "v1"):
//
//   - the model type (WordPiece) and the vocabulary: its size, then every
//     token string in id order, each length-prefixed;
//   - the unknown token, the continuation prefix, max characters per word;
//   - the normalizer: present or not, clean_text, handle_chinese_chars,
//     strip_accents as resolved (a JSON null counts as the lowercase
//     value), lowercase;
//   - whether the BertPreTokenizer runs;
//   - the added tokens, by id: content, special, single_word, lstrip,
//     rstrip, normalized;
//   - the single-sequence post-processor template: each special token's
//     name, ids and type id, and the sequence's type id (TemplateProcessing
//     and the equivalent BertProcessing give the same fingerprint).
//
// It leaves out what does not change the ids of a text: the file's name and
// layout, the decoder, and the truncation and padding settings (which
// EncodeWith overrides per call; record the length you use beside the
// fingerprint). A tokenizer.json and the equivalent vocab.txt with
// BertSettings have the same fingerprint; a vocabulary with two entries
// swapped (WithSwappedTokens) has a different one.
func (t *Tokenizer) Fingerprint() string { return t.fingerprint }

func (t *Tokenizer) computeFingerprint() string {
	h := sha256.New()
	t.writeFingerprint(h)
	return hex.EncodeToString(h.Sum(nil))
}

func (t *Tokenizer) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "dreval tokenizer fingerprint v1\nmodel WordPiece\nvocab %d\n", len(t.vocab))
	for _, tok := range t.vocab {
		fmt.Fprintf(w, "%d:%s\n", len(tok), tok)
	}
	fmt.Fprintf(w, "unk_token %q\nprefix %q\nmax_chars %d\n", t.unk, t.prefix, t.maxChars)
	n := t.norm
	fmt.Fprintf(w, "normalizer %t clean_text=%t chinese=%t strip_accents=%t lowercase=%t\n",
		n.enabled, n.enabled && n.cleanText, n.enabled && n.chineseChars, n.enabled && n.stripAccents, n.enabled && n.lowercase)
	fmt.Fprintf(w, "pre_tokenizer %t\n", t.preTokenize)
	for _, a := range t.added {
		fmt.Fprintf(w, "added %d %q special=%t single_word=%t lstrip=%t rstrip=%t normalized=%t\n",
			a.ID, a.Content, a.Special, a.SingleWord, a.LStrip, a.RStrip, a.Normalized)
	}
	for _, p := range t.post.single {
		if p.ids == nil {
			fmt.Fprintf(w, "template sequence type=%d\n", p.typeID)
		} else {
			fmt.Fprintf(w, "template special %q ids=%v type=%d\n", p.special, p.ids, p.typeID)
		}
	}
}

// WithSwappedTokens returns a copy of t whose vocabulary has the strings of
// each pair of ids swapped, applied in order: a tampered ("poisoned")
// tokenizer file, where text that used to map to id a now maps to id b and
// the other way round. Its Fingerprint differs from t's (unless every swap
// is a no-op, a == b). Added and special tokens cannot be swapped: the
// reference ties their ids to their contents, so such a file would not
// load.
func (t *Tokenizer) WithSwappedTokens(pairs [][2]int32) (*Tokenizer, error) {
	vocab := append([]string(nil), t.vocab...)
	addedID := map[int32]string{}
	for _, a := range t.added {
		addedID[a.ID] = a.Content
	}
	for i, p := range pairs {
		for _, id := range p {
			if id < 0 || int(id) >= len(vocab) {
				return nil, fmt.Errorf("swap %d: id %d is outside the vocabulary (0..%d)", i, id, len(vocab)-1)
			}
			if c, ok := addedID[id]; ok {
				return nil, fmt.Errorf("swap %d: id %d is the added token %q; only ordinary vocabulary entries can be swapped", i, id, c)
			}
		}
		vocab[p[0]], vocab[p[1]] = vocab[p[1]], vocab[p[0]]
	}
	c := &Tokenizer{
		name:            t.name + " (swapped)",
		vocab:           vocab,
		ids:             make(map[string]int32, len(vocab)),
		norm:            t.norm,
		stripAccentsRaw: t.stripAccentsRaw,
		preTokenize:     t.preTokenize,
		unk:             t.unk,
		prefix:          t.prefix,
		maxChars:        t.maxChars,
		added:           append([]addedToken(nil), t.added...),
		post:            t.post,
		decoder:         t.decoder,
		trunc:           t.trunc,
		pad:             t.pad,
		padID:           t.padID,
	}
	for i, tok := range vocab {
		c.ids[tok] = int32(i)
	}
	if err := c.finish(); err != nil {
		return nil, err
	}
	return c, nil
}
