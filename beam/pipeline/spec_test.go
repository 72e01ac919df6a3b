package pipeline

import (
	"strings"
	"testing"
)

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
		{func(s *Spec) { s.Encoders = -1 }, "-encoders -1"},
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

func TestEncoders(t *testing.T) {
	for _, tc := range []struct{ encoders, threads, procs, want int }{
		{0, 0, 2, 2}, // one a core
		{0, 1, 16, 16},
		{0, 4, 16, 4}, // each encoding takes 4 cores
		{0, 4, 2, 1},  // at least one
		{3, 1, 2, 3},  // as asked
	} {
		if got := (Spec{Encoders: tc.encoders, Threads: tc.threads}).encoders(tc.procs); got != tc.want {
			t.Errorf("encoders(-encoders %d, -threads %d, %d cores) = %d, want %d", tc.encoders, tc.threads, tc.procs, got, tc.want)
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
