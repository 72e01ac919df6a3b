package perturb

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// fakeVocab is a vocabulary of size ids shaped like BERT's: [PAD]=0,
// [UNK]=100, [CLS]=101, [SEP]=102, [MASK]=103; every other id decodes as
// "t<id>".
type fakeVocab struct{ size int }

var fakeSpecial = map[int32]string{0: "[PAD]", 100: "[UNK]", 101: "[CLS]", 102: "[SEP]", 103: "[MASK]"}

func (v fakeVocab) VocabSize() int          { return v.size }
func (v fakeVocab) IsSpecial(id int32) bool { _, ok := fakeSpecial[id]; return ok }
func (v fakeVocab) PadID() int32            { return 0 }
func (v fakeVocab) Decode(ids []int32, skipSpecial bool) string {
	var s []string
	for _, id := range ids {
		if name, ok := fakeSpecial[id]; ok {
			if !skipSpecial {
				s = append(s, name)
			}
			continue
		}
		s = append(s, fmt.Sprintf("t%d", id))
	}
	return strings.Join(s, " ")
}

// fakeTokenizer is a word-level tokenizer over a small vocabulary with
// BERT's special ids: Encode lowercases, splits on spaces, maps unknown
// words to [UNK] and adds [CLS] and [SEP]. It has the methods of
// *tokenizer.Tokenizer that perturb uses.
type fakeTokenizer struct {
	words []string // id -> token
	ids   map[string]int32
}

func newFakeTokenizer(vocab ...string) *fakeTokenizer {
	words := make([]string, 1000)
	for i := range words {
		words[i] = fmt.Sprintf("[unused%d]", i)
	}
	for id, name := range fakeSpecial {
		words[id] = name
	}
	words = append(words, vocab...)
	return newFakeFromWords(words)
}

func newFakeFromWords(words []string) *fakeTokenizer {
	t := &fakeTokenizer{words: words, ids: map[string]int32{}}
	for i, w := range words {
		t.ids[w] = int32(i)
	}
	return t
}

func (t *fakeTokenizer) VocabSize() int          { return len(t.words) }
func (t *fakeTokenizer) IsSpecial(id int32) bool { _, ok := fakeSpecial[id]; return ok }
func (t *fakeTokenizer) PadID() int32            { return 0 }

func (t *fakeTokenizer) EncodeIDs(text string) []int32 {
	ids := []int32{101}
	for _, w := range strings.Fields(strings.ToLower(text)) {
		id, ok := t.ids[w]
		if !ok {
			id = 100
		}
		ids = append(ids, id)
	}
	return append(ids, 102)
}

func (t *fakeTokenizer) Decode(ids []int32, skipSpecial bool) string {
	var s []string
	for _, id := range ids {
		if skipSpecial && t.IsSpecial(id) {
			continue
		}
		if id < 0 || int(id) >= len(t.words) {
			s = append(s, "[OOV]")
			continue
		}
		s = append(s, t.words[id])
	}
	return strings.Join(s, " ")
}

func (t *fakeTokenizer) WithSwappedTokens(pairs [][2]int32) (*fakeTokenizer, error) {
	words := append([]string(nil), t.words...)
	for _, p := range pairs {
		for _, id := range p {
			if id < 0 || int(id) >= len(words) {
				return nil, fmt.Errorf("swap id %d outside the vocabulary", id)
			}
		}
		words[p[0]], words[p[1]] = words[p[1]], words[p[0]]
	}
	return newFakeFromWords(words), nil
}

func (t *fakeTokenizer) Fingerprint() string {
	h := sha256.New()
	keys := make([]string, 0, len(t.ids))
	for w := range t.ids {
		keys = append(keys, w)
	}
	sort.Strings(keys)
	for _, w := range keys {
		fmt.Fprintf(h, "%s\t%d\n", w, t.ids[w])
	}
	return hex.EncodeToString(h.Sum(nil))
}
