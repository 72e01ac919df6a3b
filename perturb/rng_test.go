package perturb

import "testing"

// The reference vectors of xoshiro256** from state {1, 2, 3, 4}; the first
// two follow by hand from the definition (rotl(2*5, 7)*9 = 11520; s[1]
// becomes 0).
func TestXoshiroReference(t *testing.T) {
	r := &rng{s: [4]uint64{1, 2, 3, 4}}
	want := []uint64{11520, 0, 1509978240, 1215971899390074240}
	for i, w := range want {
		if got := r.Uint64(); got != w {
			t.Fatalf("output %d = %d, want %d", i, got, w)
		}
	}
}

func TestRNGStreamsDiffer(t *testing.T) {
	base := Config{Mode: IDShift, Rate: 0.1, Seed: 1}
	first := func(c Config, stream, qid string) uint64 { return newRNG(c, stream, qid).Uint64() }
	ref := first(base, "ids", "q1")
	if first(base, "ids", "q1") != ref {
		t.Fatal("the same key gave two streams")
	}
	variants := map[string]uint64{
		"seed":     first(Config{Mode: IDShift, Rate: 0.1, Seed: 2}, "ids", "q1"),
		"mode":     first(Config{Mode: IDRandom, Rate: 0.1, Seed: 1}, "ids", "q1"),
		"query":    first(base, "ids", "q2"),
		"stream":   first(base, "text", "q1"),
		"boundary": first(base, "ids", "q1\x00"),
	}
	for name, v := range variants {
		if v == ref {
			t.Errorf("changing the %s did not change the stream", name)
		}
	}
	// Settings that must not enter the seed: the options, and the rate
	// (every rate reads the same draws, so rates are nested).
	for name, c := range map[string]Config{
		"ProtectSpecial and OOV": {Mode: IDShift, Rate: 0.1, Seed: 1, ProtectSpecial: true, OOV: Wrap},
		"rate":                   {Mode: IDShift, Rate: 0.2, Seed: 1},
		"rate 0":                 {Mode: IDShift, Seed: 1},
		"swap pairs":             {Mode: IDShift, Rate: 0.1, Seed: 1, SwapPairs: 3},
	} {
		if first(c, "ids", "q1") != ref {
			t.Errorf("%s changed the stream", name)
		}
	}
}

func TestRNGIntNAndFloat64(t *testing.T) {
	r := newRNG(Config{Mode: IDShift, Seed: 3}, "test", "")
	for _, n := range []uint64{1, 2, 3, 10, 30522, 1<<63 + 5} {
		for i := 0; i < 1000; i++ {
			if v := r.IntN(n); v >= n {
				t.Fatalf("IntN(%d) = %d", n, v)
			}
		}
	}
	sum := 0.0
	const n = 100000
	for i := 0; i < n; i++ {
		f := r.Float64()
		if f < 0 || f >= 1 {
			t.Fatalf("Float64() = %v", f)
		}
		sum += f
	}
	// Mean of n uniforms: sd = sqrt(1/12/n) ~ 0.00091; allow 4 sd.
	if mean := sum / n; mean < 0.5-0.0037 || mean > 0.5+0.0037 {
		t.Errorf("mean of %d Float64 draws = %v, want 0.5", n, mean)
	}
}
