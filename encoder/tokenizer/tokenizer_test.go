package tokenizer

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

func TestReferenceChinese(t *testing.T) {
	// The published reference encoding of bert-base-chinese.
	want := []int32{101, 2769, 4263, 1266, 776, 1921, 2128, 7305, 102}
	if got := chinese(t).Encode("我爱北京天安门").IDs; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestMiniLMSettings(t *testing.T) {
	tk := minilm(t)
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"VocabSize", tk.VocabSize(), 30522},
		{"MaxLength", tk.MaxLength(), 128},
		{"PadLength", tk.PadLength(), 128},
		{"NumSpecial", tk.NumSpecial(), 2},
		{"PadID", int(tk.PadID()), 0},
		{"UnkID", int(tk.UnkID()), 100},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	for id, want := range map[int32]bool{0: true, 100: true, 101: true, 102: true, 103: true, 1996: false, -1: false, 1 << 20: false} {
		if tk.IsSpecial(id) != want {
			t.Errorf("IsSpecial(%d) = %t", id, !want)
		}
	}
	if id, ok := tk.ID("the"); !ok || id != 1996 {
		t.Errorf(`ID("the") = %d, %t`, id, ok)
	}
	if tok, ok := tk.Token(1996); !ok || tok != "the" {
		t.Errorf("Token(1996) = %q, %t", tok, ok)
	}
	if _, ok := tk.Token(30522); ok {
		t.Error("Token(30522) exists")
	}
}

func TestEncodeOptions(t *testing.T) {
	tk := minilm(t)
	text := "the quick brown fox jumps over the lazy dog"
	all := tk.EncodeWith(text, Options{AddSpecial: true}).IDs // 11 ids
	if len(all) != 11 {
		t.Fatalf("%q: %d ids %v; want 11", text, len(all), all)
	}
	long := strings.Repeat(text+" ", 30) // 270 content ids
	cases := []struct {
		name      string
		text      string
		o         Options
		ids       []int32
		mask      []int32
		truncated int
	}{
		{"no special", text, Options{}, all[1:10], ones(9), 0},
		{"truncate", text, Options{AddSpecial: true, MaxLength: 5}, []int32{101, all[1], all[2], all[3], 102}, ones(5), 6},
		{"truncate no special", text, Options{MaxLength: 2}, all[1:3], ones(2), 7},
		{"below special count", text, Options{AddSpecial: true, MaxLength: 1}, []int32{101, 102}, ones(2), 9},
		{"pad to MaxLength", text, Options{AddSpecial: true, MaxLength: 13, Pad: true}, append(slices.Clone(all), 0, 0), append(ones(11), 0, 0), 0},
		{"pad to PadTo", text, Options{AddSpecial: true, Pad: true, PadTo: 12}, append(slices.Clone(all), 0), append(ones(11), 0), 0},
		{"pad shorter than text", text, Options{AddSpecial: true, Pad: true, PadTo: 3}, all, ones(11), 0},
	}
	for _, c := range cases {
		e := tk.EncodeWith(c.text, c.o)
		if !slices.Equal(e.IDs, c.ids) || !slices.Equal(e.AttentionMask, c.mask) || e.Truncated != c.truncated {
			t.Errorf("%s: got %v mask %v truncated %d; want %v mask %v truncated %d", c.name, e.IDs, e.AttentionMask, e.Truncated, c.ids, c.mask, c.truncated)
		}
		if len(e.Tokens) != len(e.IDs) || len(e.TypeIDs) != len(e.IDs) {
			t.Errorf("%s: %d tokens, %d type ids for %d ids", c.name, len(e.Tokens), len(e.TypeIDs), len(e.IDs))
		}
	}
	// Encode truncates as the file says (128) and does not pad.
	e := tk.Encode(long)
	if len(e.IDs) != 128 || e.Truncated != 270-126 || e.IDs[127] != 102 {
		t.Errorf("Encode(long): %d ids, truncated %d, last %d", len(e.IDs), e.Truncated, e.IDs[len(e.IDs)-1])
	}
	if e := tk.Encode(text); len(e.IDs) != 11 {
		t.Errorf("Encode pads: %d ids", len(e.IDs))
	}
	// AppendIDs is the content without special tokens.
	if got := tk.AppendIDs(nil, text); !slices.Equal(got, all[1:10]) {
		t.Errorf("AppendIDs = %v", got)
	}
}

func ones(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func TestInvalidUTF8(t *testing.T) {
	tk := minilm(t)
	for _, s := range []string{"caf\xe9 au lait", "\xff\xfe\xfd", "ab\xc3", "\xed\xa0\x80 surrogate", "x\x80y"} {
		got := tk.Encode(s).IDs
		want := tk.Encode(strings.ToValidUTF8(s, "\uFFFD")).IDs // U+FFFD is removed by clean_text
		if !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", s, got, want)
		}
	}
}

func TestDecode(t *testing.T) {
	tk := minilm(t)
	ids := tk.Encode("Tokenization isn't hard, is it?").IDs
	for _, c := range []struct {
		ids  []int32
		skip bool
		want string
	}{
		// The reference cleans up each piece alone, so " ' " never
		// matches: "isn ' t" stays spaced.
		{ids, false, "[CLS] tokenization isn ' t hard, is it? [SEP]"},
		{ids, true, "tokenization isn ' t hard, is it?"},
		{[]int32{-5, 1996, 30522, 1 << 30, 3899}, true, "the dog"}, // out-of-vocabulary ids are dropped
		{nil, false, ""},
	} {
		if got := tk.Decode(c.ids, c.skip); got != c.want {
			t.Errorf("Decode(%v, %t) = %q, want %q", c.ids, c.skip, got, c.want)
		}
	}
	if got := tk.Tokens([]int32{1996, 30522}); !slices.Equal(got, []string{"the", "<id 30522?>"}) {
		t.Errorf("Tokens = %q", got)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name, json string
		want       []string // substrings of the error
	}{
		{"empty", ``, []string{"invalid JSON"}},
		{"truncated", `{"model": {"type": "WordPiece", "vocab": {"a": 0`, []string{"invalid JSON"}},
		{"not an object", `[1, 2]`, []string{"want a JSON object"}},
		{"no model", `{"version": "1.0"}`, []string{"model: missing"}},
		{"model not object", `{"model": 3}`, []string{"model: want a JSON object, got the number 3"}},
		{"no vocab", `{"model": {"type": "WordPiece", "unk_token": "[UNK]"}}`, []string{"model.vocab: missing"}},
		{"vocab wrong type", `{"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": ["a"]}}`, []string{"model.vocab: want an object", "got an array"}},
		{"id too large", `{"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 99999999}}}`, []string{"model.vocab", `"a" has id 99999999`}},
		{"id used twice", `{"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 0}}}`, []string{"model.vocab", "id 0 is used by"}},
		{"unk missing", `{"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"a": 0}}}`, []string{"model.unk_token", "not in model.vocab"}},
		{"unk wrong type", `{"model": {"type": "WordPiece", "unk_token": 7, "vocab": {"a": 0}}}`, []string{"model.unk_token: want a string, got the number 7"}},
		{"BPE empty", `{"model": {"type": "BPE", "vocab": {}, "merges": []}}`, []string{"model.vocab: empty"}},
		{"BPE merge", `{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}}`, []string{"model.merges", `merged token "ab" is not in the vocabulary`}},
		{"BPE merge form", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [3]}}`, []string{"model.merges[0]", `want "a b"`}},
		{"BPE dropout", `{"model": {"type": "BPE", "dropout": 0.1, "vocab": {"a": 0}, "merges": []}}`, []string{"model.dropout", "only null or 0"}},
		{"Unigram inferred, no unk", `{"model": {"vocab": [["a", 0.0]]}}`, []string{"model.unk_id: null"}},
		{"Unigram pair", `{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["a"]]}}`, []string{"model.vocab[0]", "pair"}},
		{"WordLevel unk", `{"model": {"type": "WordLevel", "unk_token": "x", "vocab": {"a": 0}}}`, []string{"model.unk_token", `"x" is not in model.vocab`}},
		{"unknown model type", `{"model": {"type": "Magic", "vocab": {"a": 0}}}`, []string{"model.type", "Magic is not supported"}},
		{"unknown model", `{"model": {"foo": 1}}`, []string{"model.type: missing"}},
		{"normalizer", `{"normalizer": {"type": "Magic"}, "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"normalizer.type", "Magic is not supported"}},
		{"normalizer in sequence", `{"normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Replace", "pattern": {"Regex": "a(b"}, "content": ""}]}, "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"normalizer.normalizers[1].pattern.Regex", "missing )"}},
		{"precompiled", `{"normalizer": {"type": "Precompiled", "precompiled_charsmap": "AAAA"}, "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"normalizer.precompiled_charsmap", "broken"}},
		{"normalizer flag", `{"normalizer": {"type": "BertNormalizer", "lowercase": "yes"}, "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"normalizer.lowercase: want a boolean, got a string"}},
		{"pre-tokenizer", `{"pre_tokenizer": {"type": "UnicodeScripts"}, "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"pre_tokenizer.type", "UnicodeScripts is not supported"}},
		{"split behavior", `{"pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "Sideways", "invert": false}, "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"pre_tokenizer.behavior", "Sideways"}},
		{"metaspace scheme", `{"pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "add_prefix_space": false}, "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"pre_tokenizer.add_prefix_space", "prepend_scheme"}},
		{"decoder", `{"decoder": {"type": "Strip", "content": "ab", "start": 1, "stop": 0}, "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"decoder.content", "one character"}},
		{"added token id", `{"added_tokens": [{"id": 5, "content": "u"}], "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"added_tokens[0].id", "is 5"}},
		{"added token content", `{"added_tokens": [{"id": 5}], "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"added_tokens[0].content: missing"}},
		{"template special", `{"post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}], "special_tokens": {}}, "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"post_processor.special_tokens", `"[CLS]"`}},
		{"truncation", `{"truncation": {"max_length": -1}, "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"truncation.max_length"}},
		{"padding", `{"padding": {"strategy": "Huge"}, "model": {"type": "WordPiece", "unk_token": "u", "vocab": {"u": 0}}}`, []string{"padding.strategy"}},
	}
	for _, c := range cases {
		_, err := FromJSON(strings.NewReader(c.json), "x.json")
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range append(c.want, "x.json") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
}

func TestReferenceRoberta(t *testing.T) {
	// The published reference encoding of roberta-base.
	tk, err := Load(sharedtest.Path(t, "tokenizers/roberta-base/tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{0, 31414, 232, 2}
	if got := tk.Encode("Hello world").IDs; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestTruncatedFiles cuts tokenizer files at many places: every prefix
// must give an error, never a panic or a tokenizer.
func TestTruncatedFiles(t *testing.T) {
	tinyData, err := os.ReadFile("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	realData, err := os.ReadFile(filepath.Join(sharedtest.ModelDir(t, "minilm"), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data []byte
		step int
	}{{tinyData, 7}, {realData, 9973}} {
		for n := 0; n < len(c.data)-2; n += c.step {
			_, err := FromJSON(bytes.NewReader(c.data[:n]), "cut.json")
			if err == nil {
				t.Fatalf("prefix of %d bytes loaded", n)
			}
			if !strings.HasPrefix(err.Error(), "cut.json: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
		}
	}
}

func TestVocabMatchesJSON(t *testing.T) {
	// bert-base-chinese ships both files: cased, otherwise BERT defaults.
	dir := sharedtest.Path(t, "tokenizers/bert-base-chinese")
	fromJSON := chinese(t)
	f, err := os.Open(filepath.Join(dir, "vocab.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := DefaultBertSettings()
	s.Lowercase = false
	fromVocab, err := FromVocab(f, "vocab.txt", s)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := fromJSON.Fingerprint(), fromVocab.Fingerprint(); a != b {
		t.Errorf("fingerprints differ: tokenizer.json %s, vocab.txt %s", a, b)
	}
	// The MiniLM file against its vocabulary written as vocab.txt.
	m := minilm(t)
	var vocab bytes.Buffer
	for id := range m.VocabSize() {
		tok, _ := m.Token(int32(id))
		vocab.WriteString(tok + "\n")
	}
	s = DefaultBertSettings()
	s.MaxLength = 128
	mv, err := FromVocab(&vocab, "minilm vocab.txt", s)
	if err != nil {
		t.Fatal(err)
	}
	if m.Fingerprint() != mv.Fingerprint() {
		t.Errorf("minilm fingerprints differ: tokenizer.json %s, vocab.txt %s", m.Fingerprint(), mv.Fingerprint())
	}
	for _, text := range []string{"Héllo, [CLS] wörld! 我爱北京", "The quick brown fox."} {
		if a, b := m.Encode(text).IDs, mv.Encode(text).IDs; !slices.Equal(a, b) {
			t.Errorf("%q: tokenizer.json %v, vocab.txt %v", text, a, b)
		}
	}
	// A different setting changes the fingerprint.
	s.Lowercase = false
	vocab.Reset()
	for id := range m.VocabSize() {
		tok, _ := m.Token(int32(id))
		vocab.WriteString(tok + "\n")
	}
	cased, err := FromVocab(&vocab, "cased", s)
	if err != nil {
		t.Fatal(err)
	}
	if cased.Fingerprint() == m.Fingerprint() {
		t.Error("lowercase does not change the fingerprint")
	}
}

// TestFingerprintStable pins the fingerprints of the real files: they are
// stored beside embeddings, so a change here invalidates every cache and
// must be deliberate (bump the "v1" in writeFingerprint).
func TestFingerprintStable(t *testing.T) {
	for _, c := range []struct {
		tk   *Tokenizer
		want string
	}{
		{minilm(t), "553859492bcfc3d3c8e8bdaeee545bad4f97577fcd3769e76206786dccb06b6c"},
		{chinese(t), "bff4225d450bf559935382465aac31e5e92e8e93ed21cfc19c17367063c5aba7"},
	} {
		if got := c.tk.Fingerprint(); got != c.want {
			t.Errorf("%s: fingerprint %s, want %s", c.tk.Name(), got, c.want)
		}
	}
}

func TestSwapAndSave(t *testing.T) {
	tk := minilm(t)
	good, _ := tk.ID("good")
	bad, _ := tk.ID("bad")
	sw, err := tk.WithSwappedTokens([][2]int32{{good, bad}})
	if err != nil {
		t.Fatal(err)
	}
	if sw.Fingerprint() == tk.Fingerprint() {
		t.Error("swapped tokenizer has the clean fingerprint")
	}
	if got, want := sw.Encode("a good movie").IDs, tk.Encode("a bad movie").IDs; !slices.Equal(got[1:2], want[1:2]) || got[2] != bad {
		t.Errorf(`swapped "good" encodes as %v; want id %d`, got, bad)
	}
	if got := sw.Decode([]int32{good}, false); got != "bad" {
		t.Errorf("swapped Decode(good) = %q", got)
	}
	if tk.Decode([]int32{good}, false) != "good" {
		t.Error("WithSwappedTokens changed the original")
	}
	for _, pairs := range [][][2]int32{{{101, 2000}}, {{5, 30522}}, {{-1, 5}}} {
		if _, err := tk.WithSwappedTokens(pairs); err == nil {
			t.Errorf("WithSwappedTokens(%v) succeeded", pairs)
		}
	}
	// Save and load back: same fingerprint and ids, for the clean, the
	// swapped and the tiny (every option) tokenizers, and a vocab.txt one.
	vs := DefaultBertSettings()
	vs.MaxLength = 5
	vt, err := FromVocab(strings.NewReader("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n##s\n"), "v.txt", vs)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []*Tokenizer{tk, sw, tiny(t), vt} {
		var buf bytes.Buffer
		if err := x.Save(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := FromJSON(&buf, "saved")
		if err != nil {
			t.Fatalf("%s: loading the saved file: %v", x.Name(), err)
		}
		if back.Fingerprint() != x.Fingerprint() {
			t.Errorf("%s: saved file has another fingerprint", x.Name())
		}
		if back.DefaultOptions() != x.DefaultOptions() || back.PadID() != x.PadID() {
			t.Errorf("%s: saved file has options %+v pad %d, want %+v pad %d", x.Name(), back.DefaultOptions(), back.PadID(), x.DefaultOptions(), x.PadID())
		}
		for _, text := range []string{"a good movie, [SEP] New York xyz hellos", "Héllo <special> wörld"} {
			for _, o := range []Options{x.DefaultOptions(), {AddSpecial: true, MaxLength: 6, Pad: true, PadTo: 9}} {
				a, b := x.EncodeWith(text, o), back.EncodeWith(text, o)
				if !slices.Equal(a.IDs, b.IDs) || !slices.Equal(a.AttentionMask, b.AttentionMask) {
					t.Errorf("%s %q: %v before saving, %v after", x.Name(), text, a.IDs, b.IDs)
				}
			}
		}
	}
}

func TestLoadPaths(t *testing.T) {
	dir := sharedtest.Path(t, "tokenizers/bert-base-chinese")
	tk, err := Load(dir) // picks tokenizer.json
	if err != nil {
		t.Fatal(err)
	}
	if tk.Fingerprint() != chinese(t).Fingerprint() {
		t.Error("Load(dir) did not load tokenizer.json")
	}
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "vocab.txt"), []byte("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tk, err = Load(tmp) // falls back to vocab.txt with the uncased defaults
	if err != nil {
		t.Fatal(err)
	}
	if got := tk.Encode("HELLO world").IDs; !slices.Equal(got, []int32{2, 4, 1, 3}) {
		t.Errorf("got %v", got)
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no tokenizer.json, vocab.json+merges.txt, SentencePiece .model or vocab.txt") {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := FromVocab(strings.NewReader("a\na\n[UNK]\n"), "dup.txt", DefaultBertSettings()); err == nil || !strings.Contains(err.Error(), "dup.txt: line 2") {
		t.Errorf("duplicate vocab line: %v", err)
	}
}
