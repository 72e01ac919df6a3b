package tokenizer

import (
	"bytes"
	"os"
	"testing"
)

// FuzzFromJSON feeds arbitrary bytes to the loader: it must return a
// tokenizer or an error, never panic, and a loaded tokenizer must encode,
// decode and save.
func FuzzFromJSON(f *testing.F) {
	data, err := os.ReadFile("testdata/tiny.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte(`{"model": {"unk_token": "u", "continuing_subword_prefix": "", "vocab": {"u": 0, "a": 1}}}`))
	f.Add([]byte(`{"model": {"type": "WordPiece", "unk_token": "u", "max_input_chars_per_word": 1, "vocab": {"u": 0}}, "post_processor": {"type": "BertProcessing", "cls": ["u", 0], "sep": ["u", 0]}}`))
	f.Add([]byte(`{"model": {"type": "BPE", "merges": []}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := FromJSON(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		e := tk.EncodeWith("Hello, [CLS] wörld 我 u a", Options{AddSpecial: true, MaxLength: 4, Pad: true})
		for _, id := range e.IDs {
			if id < 0 || int(id) >= tk.VocabSize() {
				t.Fatalf("id %d outside the vocabulary of %d", id, tk.VocabSize())
			}
		}
		tk.Decode(e.IDs, true)
		var buf bytes.Buffer
		if err := tk.Save(&buf); err != nil {
			t.Fatal(err)
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
			for _, id := range e.IDs {
				if id < 0 || int(id) >= tk.VocabSize() {
					t.Fatalf("%q: id %d outside the vocabulary", s, id)
				}
			}
			tk.Decode(e.IDs, false)
			tk.Decode(e.IDs, true)
		}
	})
}
