package tokenizer

import (
	"fmt"
	"io"
)

// model turns one pre-tokenized word into ids. The implementations are
// WordPiece, BPE, Unigram and WordLevel (Hugging Face's models) and
// SentencePiece's own Unigram and BPE, which also normalize (a .model file
// is one whole pipeline).
type model interface {
	// kind is the model's type name.
	kind() string
	// appendIDs appends the ids of word to dst.
	appendIDs(dst []int32, word []byte, s *scratch) []int32
	// unkID is the unknown token's id, -1 when there is none.
	unkID() int32
	// writeFingerprint writes what decides the model's ids (everything but
	// the vocabulary strings, which the tokenizer writes).
	writeFingerprint(w io.Writer)
	// withVocab returns a copy of the model that uses the vocabulary
	// vocab/ids (the entries of the ids in swapped exchanged), for
	// WithSwappedTokens.
	withVocab(vocab []string, ids map[string]int32, swapped [][2]int32) (model, error)
}

// scratch holds the reusable buffers of one encoding.
type scratch struct {
	norm  []byte
	norm2 []byte
	ns    normScratch
	pt    pretok
	piece []byte
	ids   []int32
	bpe   bpeScratch
	uni   unigramScratch
	spm   spmScratch
}

// wordLevel is Hugging Face's WordLevel model: each word is looked up
// whole, and an unknown word becomes the unknown token.
type wordLevel struct {
	ids   map[string]int32
	unk   string
	unk32 int32
}

func (m *wordLevel) kind() string { return "WordLevel" }

func (m *wordLevel) unkID() int32 { return m.unk32 }

func (m *wordLevel) appendIDs(dst []int32, w []byte, _ *scratch) []int32 {
	if id, ok := m.ids[string(w)]; ok {
		return append(dst, id)
	}
	return append(dst, m.unk32)
}

func (m *wordLevel) writeFingerprint(w io.Writer) {
	fmt.Fprintf(w, "unk_token %q\n", m.unk)
}

func (m *wordLevel) withVocab(_ []string, ids map[string]int32, _ [][2]int32) (model, error) {
	c := *m
	c.ids = ids
	c.unk32 = ids[m.unk]
	return &c, nil
}

// newWordLevel checks the unknown token is in the vocabulary: the reference
// fails to encode any unknown word without it.
func newWordLevel(ids map[string]int32, unk string) (*wordLevel, error) {
	id, ok := ids[unk]
	if !ok {
		return nil, fmt.Errorf("%q is not in model.vocab (the reference fails on every unknown word without it)", unk)
	}
	return &wordLevel{ids: ids, unk: unk, unk32: id}, nil
}
