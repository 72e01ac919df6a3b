package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dreval/dreval/internal/sharedtest"
)

// The SentencePiece goldens come from the SentencePiece library itself
// (scripts/golden-tokenizer/spm.py): ALBERT's 30k and a 50k Unigram model
// (installed by make setup) and four small models trained on the project's
// demo collection (testdata/spm-*.model: BPE with byte fallback and
// user-defined and control symbols; Unigram with byte fallback, case
// folding and extra whitespace kept; characters; words with whitespace as
// suffix).

// spmModelPath returns the .model file of a golden column.
func spmModelPath(t testing.TB, name string) string {
	switch name {
	case "albert":
		return filepath.Join(sharedtest.TokenizerDir(t, "sentencepiece"), "albert-30k.model")
	case "smart":
		return filepath.Join(sharedtest.TokenizerDir(t, "sentencepiece"), "smart-50k.model")
	}
	return filepath.Join("testdata", name+".model")
}

var spmNames = []string{"albert", "smart", "spm-bpe", "spm-unigram", "spm-char", "spm-word"}

func loadSPM(t testing.TB, name string) *Tokenizer {
	t.Helper()
	if tk, ok := tokCache.Load("spm:" + name); ok {
		return tk.(*Tokenizer)
	}
	tk, err := Load(spmModelPath(t, name))
	if err != nil {
		t.Fatal(err)
	}
	tokCache.Store("spm:"+name, tk)
	return tk
}

func TestGoldenSentencePiece(t *testing.T) {
	toks := map[string]*Tokenizer{}
	for _, n := range spmNames {
		toks[n] = loadSPM(t, n)
		if toks[n].NumSpecial() != 0 {
			t.Errorf("%s: a bare .model adds %d special tokens", n, toks[n].NumSpecial())
		}
	}
	xlmr := xlmrFolder(t)
	bad, decoded, xl, lineNo := map[string]int{}, 0, 0, 0
	o := Options{AddSpecial: true}
	n := readGzipLines(t, "testdata/golden-spm.jsonl.gz", func(line []byte) {
		var g map[string]json.RawMessage
		if err := json.Unmarshal(line, &g); err != nil {
			t.Fatal(err)
		}
		str := func(k string) string {
			var s string
			json.Unmarshal(g[k], &s)
			return s
		}
		if lineNo++; !sampled(lineNo, str("src")) {
			return
		}
		text := goldenText(t, str("ref"), str("sha"), str("text"))
		for name, tk := range toks {
			raw, ok := g[name]
			if !ok {
				continue
			}
			var want []int32
			json.Unmarshal(raw, &want)
			if want == nil {
				want = []int32{}
			}
			got := tk.EncodeWith(text, o).IDs
			if !slices.Equal(got, want) {
				if bad[name]++; bad[name] <= 5 {
					t.Errorf("%s %q:\n got %v\nwant %v", name, clip(text), got, want)
				}
				continue
			}
			if raw, ok := g[name+"_dec"]; ok {
				decoded++
				var dec string
				json.Unmarshal(raw, &dec)
				if got := tk.Decode(want, true); got != dec {
					if bad[name]++; bad[name] <= 5 {
						t.Errorf("%s Decode(%v):\n got %q\nwant %q", name, want, got, dec)
					}
				}
			}
			if name == "smart" && !strings.ContainsAny(text, "<") {
				// XLMRobertaTokenizer's ids: fairseq's, <s> ... </s>.
				xl++
				wantX := []int32{0}
				for _, id := range want {
					if id == 0 {
						wantX = append(wantX, 3)
					} else {
						wantX = append(wantX, id+1)
					}
				}
				wantX = append(wantX, 2)
				if got := xlmr.EncodeWith(text, o).IDs; !slices.Equal(got, wantX) {
					if bad["xlmr"]++; bad["xlmr"] <= 5 {
						t.Errorf("xlm-roberta folder %q:\n got %v\nwant %v", clip(text), got, wantX)
					}
				}
			}
		}
	})
	for name, b := range bad {
		t.Errorf("%s: %d differences in %d strings", name, b, n)
	}
	if n < 23000 || xl < 15000 && !testing.Short() || xl < 5000 {
		t.Errorf("only %d strings (%d for the XLM-R folder)", n, xl)
	}
	t.Logf("%d strings, %d decodings, %d XLM-R folder encodings equal the reference", n, decoded, xl)
}

// xlmrFolder is smart-50k.model in a directory configured as XLM-R's.
func xlmrFolder(t testing.TB) *Tokenizer {
	t.Helper()
	data, err := os.ReadFile(spmModelPath(t, "smart"))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"xlmr/sentencepiece.bpe.model": {Data: data},
		"xlmr/config.json":             {Data: []byte(`{"model_type": "xlm-roberta"}`)},
		"xlmr/tokenizer_config.json":   {Data: []byte(`{"tokenizer_class": "XLMRobertaTokenizer"}`)},
	}
	tk, err := LoadFS(fsys, "xlmr")
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestGoldenSentencePieceDecode(t *testing.T) {
	bad := 0
	n := readGzipLines(t, "testdata/golden-spm-decode.jsonl.gz", func(line []byte) {
		var g struct {
			Model string  `json:"model"`
			IDs   []int32 `json:"ids"`
			Dec   string  `json:"dec"`
		}
		if err := json.Unmarshal(line, &g); err != nil {
			t.Fatal(err)
		}
		tk := loadSPM(t, g.Model)
		if got := tk.Decode(g.IDs, true); got != g.Dec {
			if bad++; bad <= 10 {
				t.Errorf("%s Decode(%v):\n got %q\nwant %q", g.Model, g.IDs, got, g.Dec)
			}
		}
	})
	if n < 2000 || bad > 0 {
		t.Errorf("%d differences in %d id sequences", bad, n)
	}
}
