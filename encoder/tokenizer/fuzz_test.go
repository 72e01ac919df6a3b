package tokenizer

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"
)

// Small tokenizer.json files of each model type, the seeds of the fuzz
// targets and the tokenizers FuzzEncodeModels encodes with.
var fuzzJSON = map[string]string{
	"bpe": `{"added_tokens": [{"id": 9, "content": "<s>", "special": true}],
		"normalizer": {"type": "NFKC"},
		"pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": true},
		"post_processor": {"type": "RobertaProcessing", "cls": ["<s>", 9], "sep": ["<s>", 9]},
		"decoder": {"type": "ByteLevel"},
		"model": {"type": "BPE", "unk_token": "u", "fuse_unk": true, "vocab": {"u": 0, "a": 1, "b": 2, "Ġ": 3, "ab": 4, "Ġa": 5, "Ġab": 6, "<0x41>": 7, "c": 8, "<s>": 9},
			"merges": ["a b", "Ġ a", "Ġa b"], "byte_fallback": true}}`,
	"bpe-prefix": `{"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "\\s+(?!\\S)|\\p{L}+|\\d{1,3}"}, "behavior": "Isolated", "invert": false}, {"type": "WhitespaceSplit"}]},
		"decoder": {"type": "BPEDecoder", "suffix": "</w>"},
		"model": {"type": "BPE", "unk_token": "u", "continuing_subword_prefix": "##", "end_of_word_suffix": "</w>",
			"vocab": {"u": 0, "a": 1, "##b": 2, "##b</w>": 3, "ab": 4, "ab</w>": 5, "a</w>": 6}, "merges": [["a", "##b"], ["a", "##b</w>"]]}}`,
	"unigram": `{"normalizer": {"type": "Sequence", "normalizers": [{"type": "Lowercase"}, {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}, {"type": "Prepend", "prepend": "▁"}]},
		"pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true},
		"decoder": {"type": "Sequence", "decoders": [{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first"}, {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
		"post_processor": {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}], "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}},
		"model": {"type": "Unigram", "unk_id": 0, "byte_fallback": true, "vocab": [["<unk>", 0], ["</s>", 0], ["▁", -1], ["a", -2], ["b", -2.5], ["▁ab", -3], ["<0x41>", -5], ["ab", -1.5]]}}`,
	"wordlevel": `{"normalizer": {"type": "Strip", "strip_left": true, "strip_right": false}, "pre_tokenizer": {"type": "Whitespace"},
		"decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": {"type": "WordLevel", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "hello": 1, "world": 2, ",": 3}}}`,
}

// FuzzFromJSON feeds arbitrary bytes to the loader: it must return a
// tokenizer or an error, never panic, and a loaded tokenizer must encode,
// decode and save, the saved file loading back with the same fingerprint.
func FuzzFromJSON(f *testing.F) {
	data, err := os.ReadFile("testdata/tiny.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	for _, s := range fuzzJSON {
		f.Add([]byte(s))
		f.Add([]byte(s[:len(s)*2/3]))
	}
	f.Add([]byte(`{"model": {"unk_token": "u", "continuing_subword_prefix": "", "vocab": {"u": 0, "a": 1}}}`))
	f.Add([]byte(`{"model": {"type": "WordPiece", "unk_token": "u", "max_input_chars_per_word": 1, "vocab": {"u": 0}}, "post_processor": {"type": "BertProcessing", "cls": ["u", 0], "sep": ["u", 0]}}`))
	f.Add([]byte(`{"model": {"vocab": {"a": 0, "b": 3}, "merges": ["a b"]}}`))
	f.Add([]byte(`{"model": {"vocab": [["a", 0.5], ["b", -1]], "unk_id": 1}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := FromJSON(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		e := tk.EncodeWith("Hello, [CLS] wörld 我 u a ab <s>  ▁x", Options{AddSpecial: true, MaxLength: 6, Pad: true})
		checkIDs(t, tk, e.IDs)
		tk.Decode(e.IDs, true)
		tk.Decode([]int32{0, 1, 2, -1, 1 << 30}, false)
		var buf bytes.Buffer
		if err := tk.Save(&buf); err != nil {
			return // a score JSON cannot hold, say
		}
		back, err := FromJSON(&buf, "saved")
		if err != nil {
			t.Fatalf("saved file does not load: %v\n%s", err, buf.String())
		}
		if back.Fingerprint() != tk.Fingerprint() {
			t.Fatal("saved file has another fingerprint")
		}
	})
}

func checkIDs(t *testing.T, tk *Tokenizer, ids []int32) {
	t.Helper()
	for _, id := range ids {
		if id < 0 || int(id) >= tk.VocabSize() {
			t.Fatalf("id %d outside the vocabulary of %d", id, tk.VocabSize())
		}
	}
}

// FuzzFromSentencePiece feeds arbitrary bytes to the .model reader: a
// tokenizer or an error, never a panic; a loaded model encodes and decodes,
// and its Files load back with the same fingerprint.
func FuzzFromSentencePiece(f *testing.F) {
	for _, n := range []string{"spm-char", "spm-word"} {
		data, err := os.ReadFile("testdata/" + n + ".model")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/3])
		mutated := bytes.Clone(data)
		mutated[len(mutated)/2] ^= 0x55
		f.Add(mutated)
	}
	f.Add([]byte{0x0a, 0x05, 0x0a, 0x01, 'a', 0x18, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := FromSentencePiece(data, "fuzz.model")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.model: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, s := range []string{"Hello  wörld, 我 \xff a▁b <s>", "", "   "} {
			ids := tk.AppendIDs(nil, s)
			checkIDs(t, tk, ids)
			tk.Decode(ids, true)
			tk.Decode(ids, false)
		}
		files, err := tk.Files()
		if err != nil {
			t.Fatal(err)
		}
		back, err := FromSentencePiece(files[0].Data, "back.model")
		if err != nil {
			t.Fatalf("written model does not load: %v", err)
		}
		if back.Fingerprint() != tk.Fingerprint() {
			t.Fatal("written model has another fingerprint")
		}
	})
}

// FuzzVocabMerges loads arbitrary vocab.json and merges.txt files from a
// directory: a tokenizer or an error naming a file, never a panic.
func FuzzVocabMerges(f *testing.F) {
	f.Add([]byte(`{"a": 0, "b": 1, "ab": 2, "Ġ": 3, "<s>": 4, "</s>": 5, "<pad>": 6, "<unk>": 7, "<mask>": 8}`), []byte("#version: 0.2\na b\n"), []byte(`{"model_type": "roberta"}`))
	f.Add([]byte(`{"a": 0, "b": 1}`), []byte("a b\n"), []byte(`{"model_type": "gpt2"}`))
	f.Add([]byte(`{"a": 0, "b": 7}`), []byte("a  b\n\n"), []byte(`{}`))
	f.Add([]byte(`[]`), []byte(""), []byte(`{"model_type": 3}`))
	f.Fuzz(func(t *testing.T, vocab, merges, config []byte) {
		fsys := fstest.MapFS{"m/vocab.json": {Data: vocab}, "m/merges.txt": {Data: merges}, "m/config.json": {Data: config}}
		tk, err := LoadFS(fsys, "m")
		if err != nil {
			if !strings.Contains(err.Error(), "m/") {
				t.Fatalf("error does not name a file: %v", err)
			}
			return
		}
		ids := tk.EncodeWith("ab <s> ba a b", Options{AddSpecial: true}).IDs
		checkIDs(t, tk, ids)
		tk.Decode(ids, false)
		if _, err := tk.Files(); err != nil {
			return
		}
	})
}

// fuzzTokenizers are the tokenizers FuzzEncodeModels encodes with: one of
// each model type and of SentencePiece's.
func fuzzTokenizers(t testing.TB) []*Tokenizer {
	var out []*Tokenizer
	for name, s := range fuzzJSON {
		tk, err := FromJSON(strings.NewReader(s), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, tk)
	}
	for _, n := range []string{"spm-bpe", "spm-unigram", "spm-char", "spm-word"} {
		tk, err := Load("testdata/" + n + ".model")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tk)
	}
	return out
}

// FuzzEncodeModels encodes arbitrary strings with a tokenizer of each
// model type: no panic, ids within the vocabulary, the lengths of an
// encoding's fields equal, Decode works on the ids and on arbitrary ones.
func FuzzEncodeModels(f *testing.F) {
	toks := fuzzTokenizers(f)
	for _, s := range []string{"", "ab ab", "hello, world", "  ▁▁ab  ", "\xff\xfe", "<s>A<0x41>", "McDouble <mask> [SEP]", "Ünïcödé 我 😀", "a\u0301b\u0308", strings.Repeat("ab", 300)} {
		f.Add(s, uint16(3))
	}
	f.Fuzz(func(t *testing.T, s string, extra uint16) {
		for _, tk := range toks {
			e := tk.EncodeWith(s, Options{AddSpecial: true, MaxLength: int(extra % 64), Pad: extra%2 == 0})
			if len(e.TypeIDs) != len(e.IDs) || len(e.AttentionMask) != len(e.IDs) || len(e.Tokens) != len(e.IDs) {
				t.Fatalf("%s %q: lengths differ", tk.Name(), s)
			}
			checkIDs(t, tk, e.IDs)
			d := tk.Decode(e.IDs, false)
			if !utf8.ValidString(d) {
				t.Fatalf("%s: Decode gave invalid UTF-8 %q", tk.Name(), d)
			}
			ids := []int32{int32(extra), int32(extra) + 1, int32(len(s)), -1}
			if d := tk.Decode(ids, true); !utf8.ValidString(d) {
				t.Fatalf("%s: Decode(%v) gave invalid UTF-8 %q", tk.Name(), ids, d)
			}
		}
	})
}

// FuzzEncode encodes arbitrary strings with the tiny tokenizer (which has
// every kind of added token): no panic, ids within the vocabulary, the
// attention mask and type ids as long as the ids, and Decode works.
func FuzzEncode(f *testing.F) {
	tk, err := Load("testdata/tiny.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"", "hello <special> world", "New York xyz", "café\u0301 日本", "\xff\xfe", "[MASK]   [SEP]", "ǅ İ ß \u0378"} {
		f.Add(s, 8)
	}
	f.Fuzz(func(t *testing.T, s string, maxLen int) {
		maxLen %= 64
		if maxLen < 0 {
			maxLen = -maxLen
		}
		for _, o := range []Options{{AddSpecial: true}, {MaxLength: maxLen, Pad: true}, {AddSpecial: true, MaxLength: maxLen, Pad: true, PadTo: 2 * maxLen}} {
			e := tk.EncodeWith(s, o)
			if len(e.TypeIDs) != len(e.IDs) || len(e.AttentionMask) != len(e.IDs) || len(e.Tokens) != len(e.IDs) {
				t.Fatalf("%q: lengths differ", s)
			}
			if o.MaxLength > tk.NumSpecial() && len(e.IDs) > max(o.MaxLength, o.PadTo) {
				t.Fatalf("%q: %d ids with MaxLength %d", s, len(e.IDs), o.MaxLength)
			}
			checkIDs(t, tk, e.IDs)
			tk.Decode(e.IDs, false)
			tk.Decode(e.IDs, true)
		}
	})
}

// FuzzCharsmap reads arbitrary charsmap blobs and normalizes arbitrary text
// with them, both ways the references do: never a panic.
func FuzzCharsmap(f *testing.F) {
	data, err := os.ReadFile("testdata/spm-bpe.model")
	if err != nil {
		f.Fatal(err)
	}
	p, err := parseSPM(data)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(p.norm.charsmap[:4096], "Ｈｅｌｌｏ ﬁ ½")
	f.Add([]byte{8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 'a', 0}, "abc")
	f.Fuzz(func(t *testing.T, blob []byte, text string) {
		cm, err := newCharsmap(blob)
		if err != nil {
			return
		}
		n := &precompiledNorm{cm: cm}
		n.appendNormalized(nil, text, nil)
		cm.longest([]byte(text))
	})
}
