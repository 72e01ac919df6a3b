package tokenizer

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
)

// Fingerprint returns the hex SHA-256 of everything that decides which ids
// a text gets, in a fixed textual form.
//
// A WordPiece tokenizer with the BERT normalizer and pre-tokenizer (or
// none) uses version "v1", unchanged since embeddings first recorded it:
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
// Every other tokenizer uses version "v2": the model type and the
// vocabulary as in v1 (holes marked), the model's settings (BPE: unknown
// token, prefix, suffix, fuse_unk, byte_fallback, ignore_merges and every
// merge in rank order; Unigram: unk_id, byte_fallback and every score;
// SentencePiece: every piece's type and score, the model and normalizer
// specs, the charsmap's SHA-256), the normalizer and pre-tokenizer chain
// with all their settings (a Precompiled normalizer by its charsmap's
// SHA-256), the added tokens and the template. So a changed merge, score,
// charsmap or normalizer setting changes it.
//
// It leaves out what does not change the ids of a text: the file's name and
// layout, the decoder, and the truncation and padding settings (which
// EncodeWith overrides per call; record the length you use beside the
// fingerprint). A tokenizer.json and the equivalent vocab.txt with
// BertSettings, or vocab.json and merges.txt, have the same fingerprint; a
// vocabulary with two entries swapped (WithSwappedTokens) has a different
// one.
func (t *Tokenizer) Fingerprint() string { return t.fingerprint }

func (t *Tokenizer) computeFingerprint() string {
	h := sha256.New()
	// Buffered: the vocabulary is tens of thousands of short lines.
	w := bufio.NewWriterSize(h, 64<<10)
	if t.fingerprintV1() {
		t.writeFingerprintV1(w)
	} else {
		t.writeFingerprintV2(w)
	}
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// writeVocabLine writes a vocabulary line of the fingerprint,
// "<length>:<token>\n", as fmt.Fprintf(w, "%d:%s\n", len(tok), tok) does,
// without fmt.
func writeVocabLine(w *bufio.Writer, tok string) {
	if w.Available() < 20 {
		w.Flush()
	}
	w.Write(strconv.AppendInt(w.AvailableBuffer(), int64(len(tok)), 10))
	w.WriteByte(':')
	w.WriteString(tok)
	w.WriteByte('\n')
}

// fingerprintV1 reports whether v1 describes t fully.
func (t *Tokenizer) fingerprintV1() bool {
	if _, ok := t.model.(*wordPiece); !ok || len(t.holes) > 0 {
		return false
	}
	if _, ok := t.norm.(*bertNormalizer); t.norm != nil && !ok {
		return false
	}
	if _, ok := t.pre.(bertPreTokenizer); t.pre != nil && !ok {
		return false
	}
	return true
}

func (t *Tokenizer) writeFingerprintV1(w *bufio.Writer) {
	fmt.Fprintf(w, "dreval tokenizer fingerprint v1\nmodel WordPiece\nvocab %d\n", len(t.vocab))
	for _, tok := range t.vocab {
		writeVocabLine(w, tok)
	}
	t.model.writeFingerprint(w)
	n, _ := t.norm.(*bertNormalizer)
	if n == nil {
		n = &bertNormalizer{}
	}
	fmt.Fprintf(w, "normalizer %t clean_text=%t chinese=%t strip_accents=%t lowercase=%t\n",
		t.norm != nil, n.cleanText, n.chineseChars, n.stripAccents, n.lowercase)
	fmt.Fprintf(w, "pre_tokenizer %t\n", t.pre != nil)
	t.writeAddedAndTemplate(w)
}

func (t *Tokenizer) writeAddedAndTemplate(w io.Writer) {
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

func (t *Tokenizer) writeFingerprintV2(w *bufio.Writer) {
	fmt.Fprintf(w, "dreval tokenizer fingerprint v2\nmodel %s\nvocab %d\n", t.model.kind(), len(t.vocab))
	for id, tok := range t.vocab {
		if t.holes[int32(id)] {
			io.WriteString(w, "-\n")
			continue
		}
		writeVocabLine(w, tok)
	}
	t.model.writeFingerprint(w)
	io.WriteString(w, "normalizer ")
	if t.norm == nil {
		io.WriteString(w, "none")
	} else {
		t.norm.writeFingerprint(w)
	}
	io.WriteString(w, "\npre_tokenizer ")
	if t.pre == nil {
		io.WriteString(w, "none")
	} else {
		t.pre.writeFingerprint(w)
	}
	io.WriteString(w, "\n")
	t.writeAddedAndTemplate(w)
}
