// Package experimenttest provides deterministic fake models for tests of
// experiments, reports and commands that must run without model weights: a
// word-level tokenizer whose vocabulary is built from the texts it is
// given, and an embedder that turns ids into hashed bag-of-token vectors.
//
// The fakes behave like the real thing where tests look: ids shifted by
// the perturbations land on other words of the vocabulary (so retrieval
// quality drops as the rate grows), decoding shows what changed, and the
// embedder is a pure function of the ids.
package experimenttest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
)

// The fake tokenizer's special ids.
const (
	PadID = 0
	UnkID = 1
	ClsID = 2
	SepID = 3
)

var specials = []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]"}

// Tokenizer is a lower-cased word tokenizer: "[CLS] words... [SEP]".
type Tokenizer struct {
	vocab []string
	ids   map[string]int32
	fp    string
	// MaxLen truncates encodings (special tokens included); 0 means 64.
	MaxLen int
}

// Words splits text into lower-cased runs of letters and digits.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// NewTokenizer returns a tokenizer whose vocabulary is the special tokens
// followed by the distinct words of texts, sorted.
func NewTokenizer(texts ...string) *Tokenizer {
	set := map[string]bool{}
	for _, t := range texts {
		for _, w := range Words(t) {
			set[w] = true
		}
	}
	words := make([]string, 0, len(set))
	for w := range set {
		words = append(words, w)
	}
	sort.Strings(words)
	t := &Tokenizer{vocab: append(append([]string(nil), specials...), words...), ids: map[string]int32{}}
	h := sha256.New()
	for i, w := range t.vocab {
		t.ids[w] = int32(i)
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	t.fp = "fakewords-" + hex.EncodeToString(h.Sum(nil))[:16]
	return t
}

// ForCollection returns a tokenizer over the corpus and queries of c.
func ForCollection(c *dataset.Collection) *Tokenizer {
	var texts []string
	for _, d := range c.Corpus {
		texts = append(texts, d.Title, d.Text)
	}
	for _, q := range c.Queries {
		texts = append(texts, q.Text)
	}
	return NewTokenizer(texts...)
}

// EncodeIDs implements experiment.Tokenizer.
func (t *Tokenizer) EncodeIDs(text string) []int32 {
	max := t.MaxLen
	if max <= 0 {
		max = 64
	}
	ids := []int32{ClsID}
	for _, w := range Words(text) {
		if len(ids) >= max-1 {
			break
		}
		id, ok := t.ids[w]
		if !ok {
			id = UnkID
		}
		ids = append(ids, id)
	}
	return append(ids, SepID)
}

// Tokens returns the vocabulary strings of text's ids, special tokens
// left out: the "wordpiece" analyser of the fake.
func (t *Tokenizer) Tokens(text string) []string {
	var out []string
	for _, id := range t.EncodeIDs(text) {
		if !t.IsSpecial(id) {
			out = append(out, t.vocab[id])
		}
	}
	return out
}

// VocabSize implements perturb.Vocabulary.
func (t *Tokenizer) VocabSize() int { return len(t.vocab) }

// IsSpecial implements perturb.Vocabulary.
func (t *Tokenizer) IsSpecial(id int32) bool { return id >= 0 && id < int32(len(specials)) }

// PadID implements perturb.Vocabulary.
func (t *Tokenizer) PadID() int32 { return PadID }

// Decode implements perturb.Vocabulary.
func (t *Tokenizer) Decode(ids []int32, skipSpecial bool) string {
	var parts []string
	for _, id := range ids {
		if id < 0 || int(id) >= len(t.vocab) {
			parts = append(parts, "[?]")
			continue
		}
		if skipSpecial && t.IsSpecial(id) {
			continue
		}
		parts = append(parts, t.vocab[id])
	}
	return strings.Join(parts, " ")
}

// Fingerprint implements experiment.Tokenizer.
func (t *Tokenizer) Fingerprint() string { return t.fp }

// Swapped implements experiment.Swapper: a copy with the words of each
// pair of ids swapped (special tokens cannot be swapped).
func (t *Tokenizer) Swapped(pairs [][2]int32) (experiment.Tokenizer, error) {
	vocab := append([]string(nil), t.vocab...)
	for _, p := range pairs {
		for _, id := range p {
			if id < 0 || int(id) >= len(vocab) || t.IsSpecial(id) {
				return nil, fmt.Errorf("cannot swap id %d", id)
			}
		}
		vocab[p[0]], vocab[p[1]] = vocab[p[1]], vocab[p[0]]
	}
	c := &Tokenizer{vocab: vocab, ids: map[string]int32{}, MaxLen: t.MaxLen, fp: t.fp + "-swapped"}
	for i, w := range vocab {
		c.ids[w] = int32(i)
	}
	return c, nil
}

// Embedder embeds ids as hashed bag-of-token vectors: every non-special
// id adds +1 or -1 to two hashed dimensions; the sum is L2-normalised.
type Embedder struct {
	Tok *Tokenizer
	D   int
	// Calls counts EmbedIDs calls and Seqs the sequences embedded.
	Calls, Seqs int
	// Poison, when set, is called per output vector and may change it (to
	// test NaN handling).
	Poison func(i int, v []float32)
}

// Dim implements encoder.Embedder.
func (e *Embedder) Dim() int { return e.D }

// EmbedIDs implements encoder.Embedder.
func (e *Embedder) EmbedIDs(batch [][]int32) ([][]float32, error) {
	e.Calls++
	out := make([][]float32, len(batch))
	for i, ids := range batch {
		e.Seqs++
		v := make([]float32, e.D)
		for _, id := range ids {
			if e.Tok != nil && e.Tok.IsSpecial(id) {
				continue
			}
			var b [4]byte
			binary.LittleEndian.PutUint32(b[:], uint32(id))
			h := sha256.Sum256(b[:])
			for j := 0; j < 2; j++ {
				x := binary.LittleEndian.Uint32(h[4*j:])
				sign := float32(1)
				if h[16+j]&1 == 1 {
					sign = -1
				}
				v[int(x%uint32(e.D))] += sign
			}
		}
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		if s > 0 {
			inv := float32(1 / math.Sqrt(s))
			for j := range v {
				v[j] *= inv
			}
		}
		if e.Poison != nil {
			e.Poison(i, v)
		}
		out[i] = v
	}
	return out, nil
}

// Model returns a dense experiment.Model named name over tok with a
// Dim-64 Embedder.
func Model(name string, tok *Tokenizer) (*experiment.Model, *Embedder) {
	e := &Embedder{Tok: tok, D: 64}
	m := experiment.DenseModel(name, "fake-"+name+"-"+tok.Fingerprint(), "fake", tok, e)
	m.BatchSize = 8
	return m, e
}

// Registry returns a registry with a dense model "fake" over tok (its
// Embedder is returned too, to count calls) and a lexical model "fakebm25"
// whose analyser is tok's words.
func Registry(tok *Tokenizer) (*experiment.Registry, *Embedder) {
	r := experiment.NewRegistry()
	m, e := Model("fake", tok)
	r.Register("fake", func(ctx context.Context, name string, opts experiment.ModelOptions) (*experiment.Model, error) {
		return m, nil
	})
	r.Register("fakebm25", func(ctx context.Context, name string, opts experiment.ModelOptions) (*experiment.Model, error) {
		return &experiment.Model{
			Name:         "fakebm25",
			Kind:         experiment.Lexical,
			Fingerprint:  "fakebm25-" + tok.Fingerprint(),
			Query:        experiment.Tower{Tokenizer: tok},
			Document:     experiment.Tower{Tokenizer: tok},
			Analyzer:     tok.Tokens,
			AnalyzerName: "wordpiece",
		}, nil
	})
	return r, e
}
