package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestPairedTest(t *testing.T) {
	// Student's t CDF for 3 degrees of freedom has a closed form:
	// F(t) = 1/2 + (1/pi) (x/(1+x^2) + atan(x)), x = t/sqrt(3).
	t3 := func(tv float64) float64 {
		x := tv / math.Sqrt(3)
		return 0.5 + (x/(1+x*x)+math.Atan(x))/math.Pi
	}
	a := []float64{0.1, 0.2, 0.3, 0.4}
	b := []float64{1.1, 2.2, 3.3, 4.4} // differences 1, 2, 3, 4
	p, err := PairedTest(a, b, CompareOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	// mean 2.5, sd sqrt(5/3), t = 2.5 / (sd / 2)
	tv := 2.5 / (math.Sqrt(5.0/3) / 2)
	if want := 2 * (1 - t3(tv)); math.Abs(p.PTTest-want) > 1e-9 {
		t.Errorf("t-test p = %v, want %v", p.PTTest, want)
	}
	if math.Abs(p.Diff-2.5) > 1e-12 || math.Abs(p.MeanA-0.25) > 1e-12 || math.Abs(p.MeanB-2.75) > 1e-12 {
		t.Errorf("means %v %v diff %v", p.MeanA, p.MeanB, p.Diff)
	}
	// Of the 16 sign patterns only all-plus and all-minus reach |sum| 10:
	// exact p = 2/16. 10,000 permutations estimate it within ~0.01.
	if math.Abs(p.PRandomization-0.125) > 0.015 {
		t.Errorf("randomization p = %v, want about 0.125", p.PRandomization)
	}
	// Bootstrap means of {1,2,3,4} lie in [1, 4] and straddle 2.5.
	if !(p.CILow >= 1 && p.CILow < 2.5 && p.CIHigh > 2.5 && p.CIHigh <= 4) {
		t.Errorf("CI [%v, %v]", p.CILow, p.CIHigh)
	}
	again, _ := PairedTest(a, b, CompareOptions{Seed: 7})
	if again != p {
		t.Errorf("same seed, different result: %+v vs %+v", again, p)
	}
	other, _ := PairedTest(a, b, CompareOptions{Seed: 8})
	if other.CILow == p.CILow && other.CIHigh == p.CIHigh && other.PRandomization == p.PRandomization {
		t.Errorf("seed has no effect")
	}
}

func TestPairedTestEdgeCases(t *testing.T) {
	cases := []struct {
		name      string
		a, b      []float64
		pRand, pT float64
		lo, hi    float64
		wantErr   bool
		nanT      bool
	}{
		{name: "identical", a: []float64{0.1, 0.5, 0.9}, b: []float64{0.1, 0.5, 0.9}, pRand: 1, pT: 1, lo: 0, hi: 0},
		{name: "constant shift", a: []float64{0, 0.2, 0.4}, b: []float64{0.5, 0.7, 0.9}, pT: 0, lo: 0.5, hi: 0.5, pRand: -1},
		{name: "one query", a: []float64{0.2}, b: []float64{0.6}, nanT: true, pRand: 1, lo: 0.4, hi: 0.4},
		{name: "length mismatch", a: []float64{1}, b: []float64{1, 2}, wantErr: true},
		{name: "empty", wantErr: true},
		{name: "NaN", a: []float64{math.NaN()}, b: []float64{1}, wantErr: true},
	}
	for _, c := range cases {
		p, err := PairedTest(c.a, c.b, CompareOptions{Permutations: 2000, Resamples: 2000})
		if c.wantErr {
			if err == nil {
				t.Errorf("%s: no error", c.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.nanT != math.IsNaN(p.PTTest) || !c.nanT && math.Abs(p.PTTest-c.pT) > 1e-12 {
			t.Errorf("%s: t-test p = %v", c.name, p.PTTest)
		}
		if c.pRand >= 0 && math.Abs(p.PRandomization-c.pRand) > 1e-12 {
			t.Errorf("%s: randomization p = %v, want %v", c.name, p.PRandomization, c.pRand)
		}
		if math.Abs(p.CILow-c.lo) > 1e-12 || math.Abs(p.CIHigh-c.hi) > 1e-12 {
			t.Errorf("%s: CI [%v, %v], want [%v, %v]", c.name, p.CILow, p.CIHigh, c.lo, c.hi)
		}
	}
}

func TestCompareResults(t *testing.T) {
	qrels := "q1 0 a 1\nq2 0 b 1\nq3 0 c 1\n"
	runA := "q1 Q0 a 1 2 t\nq2 Q0 x 1 2 t\nq2 Q0 b 2 1 t\nq3 Q0 c 1 1 t\n"
	runB := "q1 Q0 x 1 2 t\nq1 Q0 a 2 1 t\nq2 Q0 b 1 1 t\n" // q3 missing
	a := eval(t, qrels, runA, "num_q,map,recip_rank", Options{})
	b := eval(t, qrels, runB, "num_q,map,recip_rank", Options{})
	c, err := Compare(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{c.Measures[0].String(), c.Measures[1].String()}; len(c.Measures) != 2 || !slices.Equal(got, []string{"map", "recip_rank"}) {
		t.Errorf("measures %v: num_q must be left out", c.Measures)
	}
	if !slices.Equal(c.Queries, []string{"q1", "q2", "q3"}) || !slices.Equal(c.OnlyA, []string{"q3"}) || len(c.OnlyB) != 0 {
		t.Errorf("queries %v only A %v only B %v", c.Queries, c.OnlyA, c.OnlyB)
	}
	// map per query: A = 1, 0.5, 1; B = 0.5, 1, 0 (q3 missing scores 0).
	r := c.Rows[0]
	if math.Abs(r.MeanA-2.5/3) > 1e-12 || math.Abs(r.MeanB-0.5) > 1e-12 || math.Abs(r.Diff-(0.5-2.5/3)) > 1e-12 {
		t.Errorf("map row %+v", r)
	}
	if c.Options.Permutations != DefaultPermutations || c.Options.Resamples != DefaultResamples {
		t.Errorf("defaults not stated: %+v", c.Options)
	}
	st := eval(t, qrels, runA, "mrr@10", Options{Convention: ConventionST})
	if _, err := Compare(a, st, CompareOptions{}); err == nil {
		t.Error("comparing results of different conventions: no error")
	}
}

// PairedTests shares its random draws between pairs of the same length;
// every result must still equal the pair's own PairedTest.
func TestPairedTestsEqualSeparateTests(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	vals := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Round(r.Float64()*4) / 4
		}
		return v
	}
	var as, bs [][]float64
	for _, n := range []int{30, 30, 7, 30, 7, 1} {
		as, bs = append(as, vals(n)), append(bs, vals(n))
	}
	as, bs = append(as, vals(30)), append(bs, nil) // identical values: p = 1
	bs[len(bs)-1] = append([]float64(nil), as[len(as)-1]...)
	opts := CompareOptions{Permutations: 999, Resamples: 777, Seed: 3}
	got, err := PairedTests(as, bs, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range as {
		want, err := PairedTest(as[i], bs[i], opts)
		if err != nil {
			t.Fatal(err)
		}
		// Sprint so that NaN (the t-test with n = 1) compares equal.
		if fmt.Sprint(got[i]) != fmt.Sprint(want) {
			t.Errorf("pair %d (n=%d): together %+v, alone %+v", i, len(as[i]), got[i], want)
		}
	}
	if got[len(got)-1].PRandomization != 1 {
		t.Errorf("identical values: p = %v, want 1", got[len(got)-1].PRandomization)
	}
	if _, err := PairedTests(as, bs[:2], opts); err == nil {
		t.Error("mismatched list counts accepted")
	}
}

// referencePaired is the plain definition of the randomization test and
// the bootstrap interval of one pair (a fresh generator per test, flips
// drawn 64 at a time, resampled means sorted): PairedTests must give the
// same bits whether its draws come from the cache or not.
func referencePaired(d []float64, perms, resamples int, seed uint64) (p, lo, hi float64) {
	n := len(d)
	obs, scale := 0.0, 0.0
	for _, x := range d {
		obs += x
		scale += math.Abs(x)
	}
	p = 1
	if scale != 0 {
		limit := math.Abs(obs) - 1e-12*scale
		r := newRand(seed)
		count := 0
		for range perms {
			var bits uint64
			s := 0.0
			for i, x := range d {
				if i%64 == 0 {
					bits = r.Uint64()
				}
				if bits&1 == 1 {
					s -= x
				} else {
					s += x
				}
				bits >>= 1
			}
			if math.Abs(s) >= limit {
				count++
			}
		}
		p = float64(count+1) / float64(perms+1)
	}
	r := newRand(seed)
	means := make([]float64, resamples)
	for b := range means {
		s := 0.0
		for range n {
			s += d[r.IntN(n)]
		}
		means[b] = s / float64(n)
	}
	slices.Sort(means)
	// As bootstrapCIs computes it at run time (a constant expression would
	// be exact: 0.025, not 0.025000000000000022).
	level := 0.95
	alpha := (1 - level) / 2
	return p, quantile(means, alpha), quantile(means, 1-alpha)
}

func TestPairedTestsEqualReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct{ n, perms, resamples, measures int }{
		{48, 2000, 2000, 6}, // cached draws
		{130, 500, 600, 5},  // more than 64 queries: several sign words
		{3000, 100, 400, 3}, // draws too large to cache
		{1, 50, 50, 1},      // one query
		{48, 2000, 2000, 6}, // the first case again, from the cache
		{130, 500, 600, 1},  // one measure: no block of four
	} {
		as, bs := make([][]float64, c.measures), make([][]float64, c.measures)
		for k := range as {
			as[k], bs[k] = make([]float64, c.n), make([]float64, c.n)
			for i := range c.n {
				as[k][i] = math.Round(r.Float64()*8) / 8
				bs[k][i] = r.Float64()
			}
		}
		got, err := PairedTests(as, bs, CompareOptions{Permutations: c.perms, Resamples: c.resamples, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		for k := range as {
			d := make([]float64, c.n)
			for i := range d {
				d[i] = bs[k][i] - as[k][i]
			}
			p, lo, hi := referencePaired(d, c.perms, c.resamples, 5)
			g := got[k]
			if math.Float64bits(g.PRandomization) != math.Float64bits(p) || math.Float64bits(g.CILow) != math.Float64bits(lo) || math.Float64bits(g.CIHigh) != math.Float64bits(hi) {
				t.Errorf("n=%d measure %d: p %v, CI [%v, %v]; reference p %v, CI [%v, %v]", c.n, k, g.PRandomization, g.CILow, g.CIHigh, p, lo, hi)
			}
		}
	}
}

// TestRandomizationTiesEqualReference checks the randomization test's
// estimate-then-decide path against the sequential definition on
// differences that make many permutations tie with the observed sum or
// miss it by a rounding error: values on a grid of fifths (0.2 is not
// exact in binary), few non-zero differences, one repeated value, and
// lengths around the 8-query blocks and 64-query sign words; and on
// values too large for the bound, which are summed sequentially.
func TestRandomizationTiesEqualReference(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	grid := func(n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			d[i] = float64(r.IntN(11)-5) / 5
		}
		return d
	}
	sparse := func(n int) []float64 {
		d := make([]float64, n)
		for i := 0; i < 3 && i < n; i++ {
			d[r.IntN(n)] = 0.1 * float64(1+r.IntN(3))
		}
		return d
	}
	same := func(n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			d[i] = 0.3
		}
		return d
	}
	tiny := func(n int) []float64 { // sums near the subnormal range
		d := make([]float64, n)
		for i := range d {
			d[i] = float64(r.IntN(5)-2) * 0x1p-1060
		}
		return d
	}
	huge := func(n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			d[i] = float64(r.IntN(5)-2) * 1e300
		}
		return d
	}
	for _, gen := range []func(int) []float64{grid, sparse, same, tiny, huge} {
		for _, n := range []int{1, 2, 7, 8, 9, 63, 64, 65, 212} {
			d := gen(n)
			got := randomizationTests([][]float64{d, grid(n)}, 3000, 9)
			want, _, _ := referencePaired(d, 3000, 1, 9)
			if math.Float64bits(got[0]) != math.Float64bits(want) {
				t.Errorf("n=%d %v: p %v, reference %v", n, d[:min(n, 8)], got[0], want)
			}
		}
	}
}

// TestPrepareDraws: tests after PrepareDraws give the results of tests
// without it, and find its draws in the cache.
func TestPrepareDraws(t *testing.T) {
	const n = 37
	a, b := pairedValues(3, n)
	opts := CompareOptions{Permutations: 999, Resamples: 777, Seed: 4242}
	want, err := PairedTests(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	drawCache.Lock()
	drawCache.tables, drawCache.size = nil, 0
	drawCache.Unlock()
	PrepareDraws(n, opts)
	drawCache.Lock()
	held := len(drawCache.tables)
	drawCache.Unlock()
	if held != 2 {
		t.Fatalf("PrepareDraws left %d tables in the cache, want the signs' and the bootstrap's", held)
	}
	got, err := PairedTests(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tests after PrepareDraws: %+v, want %+v", got, want)
	}
	drawCache.Lock()
	held = len(drawCache.tables)
	drawCache.Unlock()
	if held != 2 {
		t.Errorf("the tests drew tables of their own (%d in the cache): PrepareDraws drew others than theirs", held)
	}
}

// TestKeepDrawTables: tables drawn by DrawTables and handed to
// KeepDrawTables (as the browser's helper worker hands them to the first
// worker, in another instance of the program: here an emptied cache)
// give the tests their results without drawing, and tables of other
// options, another seed or the wrong size are refused.
func TestKeepDrawTables(t *testing.T) {
	const n = 41
	a, b := pairedValues(2, n)
	opts := CompareOptions{Permutations: 501, Resamples: 403, Seed: 99}
	clear := func() {
		drawCache.Lock()
		drawCache.tables, drawCache.size = nil, 0
		drawCache.Unlock()
	}
	held := func() int {
		drawCache.Lock()
		defer drawCache.Unlock()
		return len(drawCache.tables)
	}
	clear()
	want, err := PairedTests(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	signs, picks := DrawTables(n, opts)
	if len(signs) != 501*1 || len(picks) != 403*n {
		t.Fatalf("DrawTables: %d sign words and %d picks, want %d and %d", len(signs), len(picks), 501, 403*n)
	}
	signs, picks = slices.Clone(signs), slices.Clone(picks) // what a message carries
	for _, tc := range []struct {
		name  string
		n     int
		opts  CompareOptions
		signs []uint64
		picks []int32
	}{
		{"another seed", n, CompareOptions{Permutations: 501, Resamples: 403, Seed: 98}, signs, picks},
		{"fewer resamples", n, CompareOptions{Permutations: 501, Resamples: 402, Seed: 99}, signs, picks},
		{"more pairs", n + 1, opts, signs, picks},
		{"a picks row short", n, opts, signs, picks[1:]},
		{"signs of another seed", n, opts, slices.Concat([]uint64{signs[0] ^ 1}, signs[1:]), picks},
		{"picks drawn otherwise", n, opts, signs, slices.Concat([]int32{(picks[0] + 1) % n}, picks[1:])},
	} {
		clear()
		if err := KeepDrawTables(tc.n, tc.opts, tc.signs, tc.picks); err == nil {
			t.Errorf("%s: KeepDrawTables accepted the tables", tc.name)
		}
		if h := held(); h != 0 {
			t.Errorf("%s: %d tables kept after an error", tc.name, h)
		}
	}
	clear()
	if err := KeepDrawTables(n, opts, signs, picks); err != nil {
		t.Fatal(err)
	}
	if h := held(); h != 2 {
		t.Fatalf("KeepDrawTables kept %d tables, want 2", h)
	}
	got, err := PairedTests(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tests on kept tables: %+v, want %+v", got, want)
	}
	if h := held(); h != 2 {
		t.Errorf("the tests drew tables of their own (%d in the cache)", h)
	}
	// A bootstrap too large for the cache comes as nil, as DrawTables
	// gives it, and the tests draw it themselves.
	const big = 450 // 10,000 resamples of 450: 4.5 million picks
	bigOpts := CompareOptions{Permutations: 200, Resamples: 10000, Seed: 7}
	bs, bp := DrawTables(big, bigOpts)
	if bs == nil || bp != nil {
		t.Fatalf("DrawTables(%d): %d sign words, %d picks; want the signs only", big, len(bs), len(bp))
	}
	clear()
	if err := KeepDrawTables(big, bigOpts, slices.Clone(bs), nil); err != nil {
		t.Fatal(err)
	}
	if h := held(); h != 1 {
		t.Errorf("KeepDrawTables of the signs alone kept %d tables", h)
	}
	if err := KeepDrawTables(big, bigOpts, bs, make([]int32, 10000*big)); err == nil {
		t.Error("KeepDrawTables took a bootstrap table of zeros")
	}
	clear()
	if err := KeepDrawTables(n, opts, signs, picks); err != nil {
		t.Fatal(err)
	}
	// Kept again (a second helper's, or a test drew them meanwhile):
	// nothing added.
	if err := KeepDrawTables(n, opts, slices.Clone(signs), slices.Clone(picks)); err != nil {
		t.Fatal(err)
	}
	if h := held(); h != 2 {
		t.Errorf("the same tables kept twice: %d in the cache", h)
	}
}
