package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// DefaultPermutations and DefaultResamples are the numbers of randomization
// test permutations and bootstrap resamples used when CompareOptions leaves
// them 0.
const (
	DefaultPermutations = 10000
	DefaultResamples    = 10000
)

// CompareOptions controls the statistics of a paired comparison. The
// random draws depend only on Seed, so results are reproducible and equal
// natively and in the browser.
type CompareOptions struct {
	Permutations int    // randomization test permutations; 0 means DefaultPermutations
	Resamples    int    // bootstrap resamples; 0 means DefaultResamples
	Seed         uint64 // seed of the random draws (every measure starts from it)
}

func (o CompareOptions) resolved() CompareOptions {
	if o.Permutations == 0 {
		o.Permutations = DefaultPermutations
	}
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	return o
}

// Paired is the paired comparison of two systems' per-query values of one
// measure. Differences are B - A.
type Paired struct {
	N     int     // number of paired queries
	MeanA float64 // mean of A
	MeanB float64 // mean of B
	Diff  float64 // mean of B - A
	// CILow and CIHigh bound the 95% percentile-bootstrap confidence
	// interval of Diff: queries resampled with replacement
	// CompareOptions.Resamples times, the 2.5th and 97.5th percentiles (with
	// linear interpolation) of the resampled mean differences.
	CILow, CIHigh float64
	// PRandomization is the two-sided p-value of the paired randomization
	// test: each difference's sign is flipped with probability 1/2,
	// CompareOptions.Permutations times; p = (1 + the number of flipped
	// means at least as far from 0 as the observed one) / (1 +
	// permutations).
	PRandomization float64
	// PTTest is the two-sided p-value of the paired t-test on the
	// differences (n-1 degrees of freedom). It is 1 when every difference is
	// 0, 0 when all are equal and non-zero, and NaN when N < 2.
	PTTest float64
}

// PairedTest compares a and b, the values of one measure on the same
// queries in the same order.
func PairedTest(a, b []float64, opts CompareOptions) (Paired, error) {
	ps, err := PairedTests([][]float64{a}, [][]float64{b}, opts)
	if err != nil {
		return Paired{}, err
	}
	return ps[0], nil
}

// PairedTests runs PairedTest on every pair (a[i], b[i]), for example the
// measures of two runs. The results equal separate PairedTest calls (every
// test's draws start from opts.Seed); pairs with the same number of
// queries share the random draws, which makes many measures much cheaper
// than separate calls.
func PairedTests(a, b [][]float64, opts CompareOptions) ([]Paired, error) {
	if len(a) != len(b) {
		return nil, fmt.Errorf("paired tests: %d value lists for A, %d for B", len(a), len(b))
	}
	opts = opts.resolved()
	if opts.Permutations < 0 || opts.Resamples < 0 {
		return nil, fmt.Errorf("paired test: permutations %d, resamples %d: expected positive numbers", opts.Permutations, opts.Resamples)
	}
	out := make([]Paired, len(a))
	diffs := make([][]float64, len(a))
	byN := map[int][]int{} // number of queries -> the pairs that have it
	var ns []int
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return nil, fmt.Errorf("paired test: %d values for A, %d for B: expected the same queries", len(a[i]), len(b[i]))
		}
		n := len(a[i])
		if n == 0 {
			return nil, fmt.Errorf("paired test: no queries")
		}
		if n > math.MaxInt32 { // the bootstrap draws query indices as int32
			return nil, fmt.Errorf("paired test: %d queries: at most %d supported", n, math.MaxInt32)
		}
		d := make([]float64, n)
		p := &out[i]
		p.N = n
		for j := range a[i] {
			if math.IsNaN(a[i][j]) || math.IsNaN(b[i][j]) {
				return nil, fmt.Errorf("paired test: value %d is NaN", j)
			}
			d[j] = b[i][j] - a[i][j]
			p.MeanA += a[i][j]
			p.MeanB += b[i][j]
			p.Diff += d[j]
		}
		fn := float64(n)
		p.MeanA /= fn
		p.MeanB /= fn
		p.Diff /= fn
		p.PTTest = tTest(d)
		diffs[i] = d
		if byN[n] == nil {
			ns = append(ns, n)
		}
		byN[n] = append(byN[n], i)
	}
	for _, n := range ns {
		group := make([][]float64, len(byN[n]))
		for k, i := range byN[n] {
			group[k] = diffs[i]
		}
		ps := randomizationTests(group, opts.Permutations, opts.Seed)
		los, his := bootstrapCIs(group, opts.Resamples, opts.Seed, 0.95)
		for k, i := range byN[n] {
			out[i].PRandomization, out[i].CILow, out[i].CIHigh = ps[k], los[k], his[k]
		}
	}
	return out, nil
}

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// randomizationTests returns the two-sided sign-flip p-value of mean(d)
// for every d of ds (all of the same length), with the same flips for all.
func randomizationTests(ds [][]float64, perms int, seed uint64) []float64 {
	p := make([]float64, len(ds))
	obs := make([]float64, len(ds))
	limit := make([]float64, len(ds))
	count := make([]int, len(ds))
	var live []int // the tests with some non-zero difference
	for k, d := range ds {
		scale := 0.0
		for _, x := range d {
			obs[k] += x
			scale += math.Abs(x)
		}
		if scale == 0 {
			p[k] = 1
			continue
		}
		// Sums that differ only by rounding count as ties.
		limit[k] = math.Abs(obs[k]) - 1e-12*scale
		live = append(live, k)
	}
	if len(live) == 0 {
		return p
	}
	n := len(ds[live[0]])
	words := (n + 63) / 64
	flips := newDraws(drawKey{kind: signDraws, rows: perms, rowLen: words, seed: seed}, func(r *rand.Rand, row []uint64) {
		for w := range row {
			row[w] = r.Uint64()
		}
	})
	// A sign is -1 or +1: s + x*-1 is exactly s - x, and multiplying
	// avoids a branch that random signs mispredict half the time.
	cols := make([][]float64, len(live))
	for j, k := range live {
		cols[j] = ds[k]
	}
	signs := make([]float64, n)
	sums := make([]float64, len(live))
	for range perms {
		row := flips.row()
		for i := range signs {
			signs[i] = float64(1 - 2*int(row[i/64]>>(i%64)&1))
		}
		weightedSums(sums, cols, signs)
		for j, k := range live {
			if math.Abs(sums[j]) >= limit[k] {
				count[k]++
			}
		}
	}
	for _, k := range live {
		p[k] = float64(count[k]+1) / float64(perms+1)
	}
	return p
}

// tTest returns the two-sided paired t-test p-value of the differences d.
func tTest(d []float64) float64 {
	n := len(d)
	if n < 2 {
		return math.NaN()
	}
	mean := 0.0
	for _, x := range d {
		mean += x
	}
	mean /= float64(n)
	ss := 0.0
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	if sd == 0 || sd <= 1e-15*math.Abs(mean) {
		if mean == 0 {
			return 1
		}
		return 0
	}
	t := mean / (sd / math.Sqrt(float64(n)))
	return studentTTwoSided(math.Abs(t), n-1)
}

// bootstrapCIs returns the percentile-bootstrap interval of mean(d) at
// the given level for every d of ds (all of the same length), resampling
// the same queries for all.
func bootstrapCIs(ds [][]float64, resamples int, seed uint64, level float64) (lo, hi []float64) {
	n := len(ds[0])
	means := make([][]float64, len(ds))
	for k := range means {
		means[k] = make([]float64, resamples)
	}
	picks := newDraws(drawKey{kind: bootstrapDraws, rows: resamples, rowLen: n, seed: seed}, func(r *rand.Rand, row []int32) {
		for i := range row {
			row[i] = int32(r.IntN(n))
		}
	})
	sums := make([]float64, len(ds))
	for b := range resamples {
		pickedSums(sums, ds, picks.row())
		for k, s := range sums {
			means[k][b] = s / float64(n)
		}
	}
	alpha := (1 - level) / 2
	lo, hi = make([]float64, len(ds)), make([]float64, len(ds))
	for k, m := range means {
		lo[k], hi[k] = selectQuantile(m, alpha), selectQuantile(m, 1-alpha)
	}
	return lo, hi
}

// weightedSums sets dst[k] to the sum of cols[k][i]*w[i] over i in
// order, for every k. Four columns at a time keep their sums in
// registers, which WebAssembly needs to be fast; each sum still adds its
// terms in order, so the result is that of the plain loop.
func weightedSums(dst []float64, cols [][]float64, w []float64) {
	k := 0
	for ; k+4 <= len(cols); k += 4 {
		c0, c1, c2, c3 := cols[k][:len(w)], cols[k+1][:len(w)], cols[k+2][:len(w)], cols[k+3][:len(w)]
		var s0, s1, s2, s3 float64
		for i, x := range w {
			s0 += c0[i] * x
			s1 += c1[i] * x
			s2 += c2[i] * x
			s3 += c3[i] * x
		}
		dst[k], dst[k+1], dst[k+2], dst[k+3] = s0, s1, s2, s3
	}
	for ; k < len(cols); k++ {
		c := cols[k][:len(w)]
		s := 0.0
		for i, x := range w {
			s += c[i] * x
		}
		dst[k] = s
	}
}

// pickedSums sets dst[k] to the sum of cols[k][i] over the indices i of
// picks in order, for every k, four columns at a time as weightedSums.
func pickedSums(dst []float64, cols [][]float64, picks []int32) {
	k := 0
	for ; k+4 <= len(cols); k += 4 {
		c0, c1, c2, c3 := cols[k], cols[k+1], cols[k+2], cols[k+3]
		var s0, s1, s2, s3 float64
		for _, i := range picks {
			s0 += c0[i]
			s1 += c1[i]
			s2 += c2[i]
			s3 += c3[i]
		}
		dst[k], dst[k+1], dst[k+2], dst[k+3] = s0, s1, s2, s3
	}
	for ; k < len(cols); k++ {
		c := cols[k]
		s := 0.0
		for _, i := range picks {
			s += c[i]
		}
		dst[k] = s
	}
}

// Comparison is the paired comparison of two Results, one row per
// measure.
type Comparison struct {
	Options  CompareOptions // with defaults filled in
	Measures []Measure      // the compared measures (num_q is left out)
	Rows     []Paired       // indexed like Measures
	Queries  []string       // the paired queries, sorted
	// OnlyA and OnlyB list queries evaluated for one run only; they
	// score 0 for the other (as if it retrieved nothing, like -c).
	OnlyA, OnlyB []string
}

// Compare runs PairedTest on every measure of a and b, which must come
// from the same qrels, measures and Options. Queries are paired by id.
func Compare(a, b *Result, opts CompareOptions) (*Comparison, error) {
	if a.Options.Convention != b.Options.Convention || a.Options.level() != b.Options.level() || a.Options.Complete != b.Options.Complete {
		return nil, fmt.Errorf("compare: results evaluated with different options")
	}
	if len(a.Measures) != len(b.Measures) {
		return nil, fmt.Errorf("compare: results hold different measures")
	}
	for i := range a.Measures {
		if a.Measures[i] != b.Measures[i] {
			return nil, fmt.Errorf("compare: results hold different measures (%s, %s)", a.Measures[i], b.Measures[i])
		}
	}
	for _, r := range []*Result{a, b} {
		for q, v := range r.PerQuery {
			if len(v) != len(r.Measures) {
				return nil, fmt.Errorf("compare: query %q has %d values for %d measures", q, len(v), len(r.Measures))
			}
		}
	}
	c := &Comparison{Options: opts.resolved()}
	for _, q := range a.Queries {
		c.Queries = append(c.Queries, q)
		if _, ok := b.PerQuery[q]; !ok {
			c.OnlyA = append(c.OnlyA, q)
		}
	}
	for _, q := range b.Queries {
		if _, ok := a.PerQuery[q]; !ok {
			c.Queries = append(c.Queries, q)
			c.OnlyB = append(c.OnlyB, q)
		}
	}
	slices.Sort(c.Queries)
	va := make([]float64, len(c.Queries))
	vb := make([]float64, len(c.Queries))
	for i, m := range a.Measures {
		if m.SummaryOnly() {
			continue
		}
		for j, q := range c.Queries {
			va[j], vb[j] = 0, 0
			if v, ok := a.PerQuery[q]; ok {
				va[j] = v[i]
			}
			if v, ok := b.PerQuery[q]; ok {
				vb[j] = v[i]
			}
		}
		p, err := PairedTest(va, vb, opts)
		if err != nil {
			return nil, fmt.Errorf("compare %s: %w", m, err)
		}
		c.Measures = append(c.Measures, m)
		c.Rows = append(c.Rows, p)
	}
	return c, nil
}
