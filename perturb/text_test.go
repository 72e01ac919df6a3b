package perturb

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestKeyNeighbours(t *testing.T) {
	tests := map[byte]string{
		'a': "qwsz",
		's': "weadzx",
		'q': "12wa",
		'p': "0ol",
		'm': "jkn",
		'g': "tyfhvb",
		'1': "2q",
		'5': "46rt",
	}
	for k, want := range tests {
		if got := keyNeighbours[k]; got != want {
			t.Errorf("neighbours of %q = %q, want %q", k, got, want)
		}
	}
	if len(keyNeighbours) != 36 {
		t.Errorf("%d keys, want 26 letters and 10 digits", len(keyNeighbours))
	}
	for k, nb := range keyNeighbours {
		for i := 0; i < len(nb); i++ { // adjacency is symmetric
			if strings.IndexByte(keyNeighbours[nb[i]], k) < 0 {
				t.Errorf("%q is a neighbour of %q but not the reverse", nb[i], k)
			}
		}
	}
}

func TestTextModes(t *testing.T) {
	const text = "What is Theraderm used for?"
	tests := []struct {
		mode  Mode
		rate  float64
		check func(t *testing.T, out string, st TextStats)
	}{
		{Typo, 1, func(t *testing.T, out string, st TextStats) {
			// Every letter replaced by a QWERTY neighbour, case kept.
			if st.Considered != 22 || st.Changed != 22 || len(out) != len(text) {
				t.Fatalf("stats %+v, %q", st, out)
			}
			for i := 0; i < len(text); i++ {
				a, b := text[i], out[i]
				k, upper, ok := keyOf(text[i : i+1])
				if !ok {
					if a != b {
						t.Errorf("non-key %q changed to %q", a, b)
					}
					continue
				}
				lb := b
				if lb >= 'A' && lb <= 'Z' {
					lb += 'a' - 'A'
				}
				if strings.IndexByte(keyNeighbours[k], lb) < 0 {
					t.Errorf("%q became %q, not a neighbour", a, b)
				}
				if upper != (b >= 'A' && b <= 'Z') {
					t.Errorf("%q became %q: case not kept", a, b)
				}
			}
		}},
		{CharDelete, 1, func(t *testing.T, out string, st TextStats) {
			if out != "    " || st.Considered != 23 || st.Changed != 23 {
				t.Errorf("got %q %+v", out, st)
			}
		}},
		{CharInsert, 1, func(t *testing.T, out string, st TextStats) {
			if len(out) != len(text)+23 || st.Changed != 23 {
				t.Fatalf("got %q %+v", out, st)
			}
			if strings.ReplaceAll(dropEverySecond(out), " ", "") != strings.ReplaceAll(text, " ", "") {
				t.Errorf("%q is not %q with a letter after each character", out, text)
			}
		}},
		{CharSwap, 1, func(t *testing.T, out string, st TextStats) {
			// Pairs swapped left to right within words.
			if out != "hWta si hTredarem sude of?r" || st.Changed != 11 {
				t.Errorf("got %q %+v", out, st)
			}
		}},
		{WordDrop, 1, func(t *testing.T, out string, st TextStats) {
			if out != "" || st.Considered != 5 || st.Changed != 5 {
				t.Errorf("got %q %+v", out, st)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			out, st, err := Text(Config{Mode: tt.mode, Rate: tt.rate, Seed: 1}, "q", text)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, out, st)
			// Rate 0 returns the text itself. (charswap considers fewer
			// pairs when swaps consume characters.)
			same, st0, err := Text(Config{Mode: tt.mode, Rate: 0, Seed: 1}, "q", text)
			if err != nil || same != text || st0.Changed != 0 || (tt.mode != CharSwap && st0.Considered != st.Considered) {
				t.Errorf("rate 0: %q %+v %v", same, st0, err)
			}
		})
	}
}

// dropEverySecond keeps the non-space characters at even positions among
// the non-space characters of s, with spaces kept.
func dropEverySecond(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if r == ' ' {
			b.WriteRune(r)
			continue
		}
		if n%2 == 0 {
			b.WriteRune(r)
		}
		n++
	}
	return b.String()
}

func TestTextRates(t *testing.T) {
	// Over many queries the edit fraction is near the rate.
	words := strings.Fields("difference between a mcdouble and a double cheeseburger what is theraderm used for")
	for _, m := range []Mode{Typo, CharInsert, CharDelete, WordDrop, CharSwap} {
		changed, considered := 0, 0
		for q := 0; q < 2000; q++ {
			text := strings.Join(words[q%5:q%5+8], " ")
			_, st, err := Text(Config{Mode: m, Rate: 0.1, Seed: 3}, fmt.Sprint(q), text)
			if err != nil {
				t.Fatal(err)
			}
			changed += st.Changed
			considered += st.Considered
		}
		p := 0.1
		if m == CharSwap {
			// A swap consumes the next character, and swapping equal
			// neighbours ("ee", "ou") changes nothing: only a loose check.
			if f := float64(changed) / float64(considered); f < 0.07 || f > 0.1 {
				t.Errorf("charswap edit fraction %.4f", f)
			}
			continue
		}
		within3SD(t, string(m), changed, considered, p)
	}
}

func TestTextKeepsInvalidUTF8AndUnicode(t *testing.T) {
	text := "caf\xe9 naïve 東京 \xff\xfe x"
	for _, m := range []Mode{Typo, CharSwap, CharInsert, CharDelete, WordDrop} {
		for seed := uint64(0); seed < 50; seed++ {
			out, _, err := Text(Config{Mode: m, Rate: 0.5, Seed: seed}, "u", text)
			if err != nil {
				t.Fatal(err)
			}
			if m != WordDrop && m != CharDelete && !strings.Contains(out, "\xff") {
				t.Errorf("%s seed %d: invalid byte lost: %q", m, seed, out)
			}
			if strings.Contains(out, "\uFFFD") {
				t.Errorf("%s seed %d: replacement character introduced: %q", m, seed, out)
			}
			if utf8.ValidString(strings.NewReplacer("\xe9", "", "\xff", "", "\xfe", "").Replace(out)) == false {
				t.Errorf("%s seed %d: broke a valid rune: %q", m, seed, out)
			}
		}
	}
}

func TestTextErrors(t *testing.T) {
	if _, _, err := Text(Config{Mode: IDShift, Rate: 0.1}, "q", "x"); err == nil || !strings.Contains(err.Error(), "does not perturb text") {
		t.Errorf("id mode: %v", err)
	}
	if _, _, err := Text(Config{Mode: Typo, Rate: -1}, "q", "x"); err == nil || !strings.Contains(err.Error(), "rate -1") {
		t.Errorf("bad rate: %v", err)
	}
}

// BenchmarkTypo perturbs a 56-character query.
func BenchmarkTypo(b *testing.B) {
	c := Config{Mode: Typo, Rate: 0.1, Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Text(c, "q", "difference between a mcdouble and a double cheeseburger"); err != nil {
			b.Fatal(err)
		}
	}
}
