package tokenizer

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

func tiny(t testing.TB) *Tokenizer {
	t.Helper()
	tk, err := Load("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestGoldenTiny checks the hand-written tiny tokenizer (added tokens with
// lstrip, rstrip, single_word and normalized; BertProcessing; left
// truncation and padding; no decoder cleanup) against the reference.
func TestGoldenTiny(t *testing.T) {
	tk := tiny(t)
	f, err := os.Open("testdata/golden-tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		var c struct {
			Text      string  `json:"text"`
			IDs       []int32 `json:"ids"`
			NoSpecial []int32 `json:"nospecial"`
			Full      []int32 `json:"full"`
			FullMask  []int32 `json:"full_mask"`
			Dec       string  `json:"dec"`
			DecSkip   string  `json:"dec_skip"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if got := tk.EncodeWith(c.Text, Options{AddSpecial: true}).IDs; !slices.Equal(got, c.IDs) {
			t.Errorf("%q: got %v, want %v", c.Text, got, c.IDs)
			continue
		}
		if got := tk.EncodeWith(c.Text, Options{}).IDs; !slices.Equal(got, c.NoSpecial) {
			t.Errorf("%q without special tokens: got %v, want %v", c.Text, got, c.NoSpecial)
		}
		o := tk.DefaultOptions()
		o.Pad = true
		full := tk.EncodeWith(c.Text, o)
		if !slices.Equal(full.IDs, c.Full) || !slices.Equal(full.AttentionMask, c.FullMask) {
			t.Errorf("%q truncated and padded: got %v mask %v, want %v mask %v", c.Text, full.IDs, full.AttentionMask, c.Full, c.FullMask)
		}
		if got := tk.Decode(c.IDs, false); got != c.Dec {
			t.Errorf("Decode(%v) = %q, want %q", c.IDs, got, c.Dec)
		}
		if got := tk.Decode(c.IDs, true); got != c.DecSkip {
			t.Errorf("Decode(%v, skip) = %q, want %q", c.IDs, got, c.DecSkip)
		}
	}
	if n < 50 {
		t.Fatalf("only %d cases", n)
	}
}

// TestGoldenSwapped checks WithSwappedTokens against the reference loading
// a tokenizer.json whose vocabulary entries were swapped in the file.
func TestGoldenSwapped(t *testing.T) {
	data, err := os.ReadFile("testdata/golden-swapped.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Pairs [][2]int32 `json:"pairs"`
		Texts []string   `json:"texts"`
		IDs   [][]int32  `json:"ids"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	clean := minilm(t)
	sw, err := clean.WithSwappedTokens(g.Pairs)
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i, text := range g.Texts {
		got := sw.EncodeWith(text, Options{AddSpecial: true}).IDs
		if !slices.Equal(got, g.IDs[i]) {
			t.Errorf("%q: got %v, want %v", text, got, g.IDs[i])
		}
		if !slices.Equal(got, clean.EncodeWith(text, Options{AddSpecial: true}).IDs) {
			changed++
		}
	}
	if changed < 3 {
		t.Errorf("the swaps changed only %d encodings", changed)
	}
}

// TestGoldenRandom checks random strings of hard characters (combining
// marks in any order, controls, zero-width and CJK characters, emoji,
// literal added tokens) against the reference, for all three tokenizers.
func TestGoldenRandom(t *testing.T) {
	f, err := os.Open("testdata/golden-random.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	m, c, ti := minilm(t), chinese(t), tiny(t)
	o := Options{AddSpecial: true}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n, bad := 0, 0
	for sc.Scan() {
		n++
		var g struct {
			Text          string  `json:"text"`
			MiniLM        []int32 `json:"minilm"`
			Chinese       []int32 `json:"chinese"`
			Tiny          []int32 `json:"tiny"`
			MiniLMDecSkip string  `json:"minilm_dec_skip"`
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		for _, x := range []struct {
			tk   *Tokenizer
			want []int32
		}{{m, g.MiniLM}, {c, g.Chinese}, {ti, g.Tiny}} {
			if got := x.tk.EncodeWith(g.Text, o).IDs; !slices.Equal(got, x.want) {
				if bad++; bad <= 5 {
					t.Errorf("%s %q:\n got %v\nwant %v", x.tk.Name(), g.Text, got, x.want)
				}
			}
		}
		if got := m.Decode(g.MiniLM, true); got != g.MiniLMDecSkip {
			if bad++; bad <= 5 {
				t.Errorf("Decode of %q: got %q, want %q", g.Text, got, g.MiniLMDecSkip)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 5000 || bad > 0 {
		t.Errorf("%d of %d random strings differ from the reference", bad, n)
	}
}
