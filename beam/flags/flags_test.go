package flags

import (
	"slices"
	"strings"
	"testing"
)

func TestParseRates(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []float64
		err  string
	}{
		{"0,0.2", []float64{0, 0.2}, ""},
		{" 0 , 0.05,,0.1 ,0.2", []float64{0, 0.05, 0.1, 0.2}, ""},
		{"1", []float64{1}, ""},
		{"", nil, "no rate given"},
		{",", nil, "no rate given"},
		{"0,1.5", nil, `"1.5" is not a rate in [0, 1]`},
		{"-0.1", nil, `"-0.1" is not a rate`},
		{"NaN", nil, `"NaN" is not a rate`},
		{"0.2x", nil, `"0.2x" is not a rate`},
	} {
		got, err := ParseRates(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRates(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseRates(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseRates(f *testing.F) {
	for _, s := range []string{"0,0.05,0.1,0.2", "1", "", ",,", "0.5,NaN", "-0", "1e-3, 0.2 ", "Inf", "0x1p-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rates, err := ParseRates(s)
		if err != nil {
			return
		}
		if len(rates) == 0 {
			t.Fatalf("%q: no rates and no error", s)
		}
		for _, r := range rates {
			if !(r >= 0 && r <= 1) {
				t.Fatalf("%q: accepted rate %v outside [0, 1]", s, r)
			}
		}
	})
}
