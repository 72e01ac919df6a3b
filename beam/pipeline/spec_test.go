package pipeline

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

func TestValidate(t *testing.T) {
	ok := Spec{Data: "d", Model: "static", Out: "o", Rates: []float64{0, 0.2}, Seeds: 1, K: 10}
	if err := ok.Validate(); err != nil {
		t.Fatalf("a good spec: %v", err)
	}
	for _, tc := range []struct {
		edit func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Data = "" }, "-data is required"},
		{func(s *Spec) { s.Model = "" }, "-model is required"},
		{func(s *Spec) { s.Model = "bm25" }, "dense models"},
		{func(s *Spec) { s.Out = "" }, "-out is required"},
		{func(s *Spec) { s.Shards = -1 }, "-shards -1"},
		{func(s *Spec) { s.Threads = -2 }, "-threads -2"},
		{func(s *Spec) { s.Perturb = "nonsense" }, "nonsense"},
		{func(s *Spec) { s.Engine = "gpu" }, "gpu"},
	} {
		s := ok
		tc.edit(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v; want an error with %q", s, err, tc.want)
		}
	}
}

func TestShardsFor(t *testing.T) {
	for _, tc := range []struct{ shards, total, want int }{
		{0, 1400, MinShards},
		{0, 100000, 10},
		{0, 100001, 11},
		{0, 2, 2},
		{3, 200, 3},
		{50, 7, 7},
	} {
		if got := (Spec{Shards: tc.shards}).shardsFor(tc.total); got != tc.want {
			t.Errorf("shardsFor(shards %d, %d documents) = %d, want %d", tc.shards, tc.total, got, tc.want)
		}
	}
}

func TestWorkerDefaults(t *testing.T) {
	t.Setenv("DREVAL_MODELS", "/opt/dreval/models")
	t.Setenv("DREVAL_ORT_LIB", "/opt/dreval/lib/libonnxruntime.so.1")
	cfg, err := Spec{Data: "d", Model: "static", Out: "o"}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ModelOptions.ModelsDir != "/opt/dreval/models" || cfg.ModelOptions.OrtLibrary != "/opt/dreval/lib/libonnxruntime.so.1" {
		t.Errorf("empty -models-dir/-ort-lib: got %q, %q; want the worker's $DREVAL_MODELS, $DREVAL_ORT_LIB", cfg.ModelOptions.ModelsDir, cfg.ModelOptions.OrtLibrary)
	}
	cfg, _ = Spec{Data: "d", Model: "static", Out: "o", ModelsDir: "/m", OrtLibrary: "/l.so"}.Config()
	if cfg.ModelOptions.ModelsDir != "/m" || cfg.ModelOptions.OrtLibrary != "/l.so" {
		t.Errorf("given -models-dir/-ort-lib: got %q, %q", cfg.ModelOptions.ModelsDir, cfg.ModelOptions.OrtLibrary)
	}
}
