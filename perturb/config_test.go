package perturb

import (
	"math"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		c    Config
		want []string // substrings of the error; nil means valid
	}{
		{"paper default", Config{Mode: IDShift, Rate: 0.1}, nil},
		{"rate 0", Config{Mode: IDShift, Rate: 0}, nil},
		{"rate 1", Config{Mode: IDRandom, Rate: 1}, nil},
		{"every oov", Config{Mode: IDShift, Rate: 0.2, OOV: Wrap}, nil},
		{"text mode", Config{Mode: WordDrop, Rate: 0.5}, nil},
		{"swap pairs", Config{Mode: VocabSwap, SwapPairs: 10}, nil},
		{"negative rate", Config{Mode: IDShift, Rate: -0.1}, []string{"rate -0.1", "[0, 1]"}},
		{"rate above 1", Config{Mode: IDShift, Rate: 1.5}, []string{"rate 1.5", "[0, 1]"}},
		{"NaN rate", Config{Mode: IDShift, Rate: math.NaN()}, []string{"NaN", "[0, 1]"}},
		{"infinite rate", Config{Mode: IDShift, Rate: math.Inf(1)}, []string{"+Inf", "[0, 1]"}},
		{"unknown mode", Config{Mode: "idshuffle", Rate: 0.1}, []string{`"idshuffle"`, "idshift", "idrandom", "typo", "worddrop", "vocabswap"}},
		{"empty mode", Config{Rate: 0.1}, []string{"empty", "idshift"}},
		{"unknown oov", Config{Mode: IDShift, Rate: 0.1, OOV: "modulo"}, []string{`"modulo"`, "redraw, clamp, wrap, error"}},
		{"negative pairs", Config{Mode: VocabSwap, SwapPairs: -1}, []string{"-1", ">= 0"}},
		{"pairs outside vocabswap", Config{Mode: IDShift, SwapPairs: 3}, []string{"(3)", "vocabswap"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range Modes() {
		got, err := ParseMode(string(m))
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
		if m.IsID() == m.IsText() && m != VocabSwap {
			t.Errorf("mode %s is both or neither id and text", m)
		}
	}
	if _, err := ParseMode("IDSHIFT"); err == nil || !strings.Contains(err.Error(), `"IDSHIFT"`) {
		t.Errorf("ParseMode(IDSHIFT) error = %v", err)
	}
}

func TestParseOOV(t *testing.T) {
	for in, want := range map[string]OOVPolicy{"": Redraw, "redraw": Redraw, "clamp": Clamp, "wrap": Wrap, "error": Fail} {
		got, err := ParseOOV(in)
		if err != nil || got != want {
			t.Errorf("ParseOOV(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseOOV("Clamp"); err == nil {
		t.Error("ParseOOV(Clamp) accepted a wrong case")
	}
}

func TestConfigString(t *testing.T) {
	got := Config{Mode: IDShift, Rate: 0.05, Seed: 7, ProtectSpecial: true}.String()
	if got != "idshift rate=0.05 seed=7 oov=redraw protect-special" {
		t.Errorf("String() = %q", got)
	}
}
