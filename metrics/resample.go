package metrics

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// The randomization test and the bootstrap of PairedTests. Both add the
// same numbers in the same order as their definitions (a sequential sum
// per permutation or resample), so their results are those of the plain
// loops; the work is arranged so that WebAssembly, which has neither
// SIMD nor fused multiply-add here, runs them fast.

// randomizationTests returns the two-sided sign-flip p-value of mean(d)
// for every d of ds (all of the same length), with the same flips for all.
//
// A permutation counts when |Σ s_i d_i|, summed in query order (signs s_i
// = ±1 from the draws), is at least the observed |Σ d_i| less a tolerance.
// Only that comparison matters, so the sum is first estimated from tables
// of each block of eight queries' 256 signed sums (eight table lookups
// instead of 64 multiply-adds per 64 queries); the estimate and the
// sequential sum both lie within a bound of the exact sum (rounding
// errors of at most n units of the last place of Σ|d_i| each), and only
// a permutation whose estimate lies within twice that bound of the limit
// is summed sequentially to decide it. The count is therefore that of the
// sequential sums.
func randomizationTests(ds [][]float64, perms int, seed uint64) []float64 {
	p := make([]float64, len(ds))
	obs := make([]float64, len(ds))
	limit := make([]float64, len(ds))
	scales := make([]float64, len(ds))
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
		scales[k] = scale
		live = append(live, k)
	}
	if len(live) == 0 {
		return p
	}
	n := len(ds[live[0]])
	words := (n + 63) / 64
	flips := signFlips(perms, words, seed)
	cols := make([][]float64, len(live))
	lim := make([]float64, len(live))
	margin := make([]float64, len(live))
	var tables [][]float64 // nil for a test summed sequentially
	for j, k := range live {
		cols[j] = ds[k]
		lim[j] = limit[k]
		margin[j] = -1
		if m, ok := sumBound(n, scales[k]); ok {
			margin[j] = m
		}
	}
	for j := range live {
		var t []float64
		if margin[j] >= 0 {
			t = blockSums(cols[j])
		}
		tables = append(tables, t)
	}
	blocks := (n + 7) / 8
	for range perms {
		row := flips.row()
		for j, k := range live {
			t := tables[j]
			if t == nil {
				if math.Abs(signedSum(cols[j], row)) >= lim[j] {
					count[k]++
				}
				continue
			}
			est := 0.0
			for b := 0; b < blocks; b++ {
				est += t[b<<8|int(row[b>>3]>>(8*(b&7))&0xff)]
			}
			a := math.Abs(est)
			switch {
			case a >= lim[j]+margin[j]:
				count[k]++
			case a < lim[j]-margin[j]:
			case math.Abs(signedSum(cols[j], row)) >= lim[j]:
				count[k]++
			}
		}
	}
	for _, k := range live {
		p[k] = float64(count[k]+1) / float64(perms+1)
	}
	return p
}

// signFlips returns the randomization test's draws: perms rows of
// words words of sign bits.
func signFlips(perms, words int, seed uint64) *draws[uint64] {
	return newDraws(drawKey{kind: signDraws, rows: perms, rowLen: words, seed: seed}, fillSigns)
}

// fillSigns draws one row of sign words.
func fillSigns(r *rand.Rand, row []uint64) {
	for w := range row {
		row[w] = r.Uint64()
	}
}

// bootstrapPicks returns the bootstrap's draws: resamples rows of n
// query indices.
func bootstrapPicks(resamples, n int, seed uint64) *draws[int32] {
	return newDraws(drawKey{kind: bootstrapDraws, rows: resamples, rowLen: n, seed: seed}, fillPicks(n))
}

// fillPicks returns what draws one row of a bootstrap of n queries.
func fillPicks(n int) func(r *rand.Rand, row []int32) {
	return func(r *rand.Rand, row []int32) {
		for i := range row {
			row[i] = int32(r.IntN(n))
		}
	}
}

// PrepareDraws draws now the random numbers that PairedTests of n pairs
// with opts would draw on its first call, and keeps them where it keeps
// them between calls (a bounded cache: at the demo's size both tables
// fit), so that the first test does not pay for them. The tests' results
// are the same either way.
func PrepareDraws(n int, opts CompareOptions) { DrawTables(n, opts) }

// DrawTables returns the random numbers of PairedTests of n pairs with
// opts, drawn now or taken from the cache that keeps them between tests
// (where they are then kept): signs, the randomization test's sign bits
// (opts.Permutations rows of (n+63)/64 words), and picks, the bootstrap's
// query indices (opts.Resamples rows of n). Each is nil where it is too
// large for the cache (each test then draws its own), both where there
// is nothing to draw. The slices are the cache's: read them, never change
// them. The browser's helper worker draws them for the first worker,
// which hands them to KeepDrawTables.
func DrawTables(n int, opts CompareOptions) (signs []uint64, picks []int32) {
	opts = opts.resolved()
	if n <= 0 || opts.Permutations <= 0 || opts.Resamples <= 0 {
		return nil, nil
	}
	return signFlips(opts.Permutations, (n+63)/64, opts.Seed).table, bootstrapPicks(opts.Resamples, n, opts.Seed).table
}

// KeepDrawTables puts the tables DrawTables gave for n pairs and opts
// (in another instance of this program) into the cache, so that the
// tests here draw nothing. It checks that each table has the size
// DrawTables gives and that its first row is what the generator draws
// first (a table of other options or another seed is refused), or, for
// a table too large for the cache, that it is nil as DrawTables gives it;
// the tests' results are the same with or without it. The cache keeps
// the slices: the caller must not change them.
func KeepDrawTables(n int, opts CompareOptions, signs []uint64, picks []int32) error {
	opts = opts.resolved()
	if n <= 0 || opts.Permutations <= 0 || opts.Resamples <= 0 {
		return nil
	}
	words := (n + 63) / 64
	sk := drawKey{kind: signDraws, rows: opts.Permutations, rowLen: words, seed: opts.Seed}
	bk := drawKey{kind: bootstrapDraws, rows: opts.Resamples, rowLen: n, seed: opts.Seed}
	if err := checkTable(sk, signs, fillSigns); err != nil {
		return fmt.Errorf("metrics: the randomization test's draws: %w", err)
	}
	if err := checkTable(bk, picks, fillPicks(n)); err != nil {
		return fmt.Errorf("metrics: the bootstrap's draws: %w", err)
	}
	if signs != nil {
		keepTable(&drawTable[uint64]{key: sk, data: signs})
	}
	if picks != nil {
		keepTable(&drawTable[int32]{key: bk, data: picks})
	}
	return nil
}

// checkTable reports whether data can be key's table: its size, and its
// first row as fill draws it from a generator seeded with key.seed.
func checkTable[T int32 | uint64](key drawKey, data []T, fill func(r *rand.Rand, row []T)) error {
	if key.rows*key.rowLen > maxDrawTable && data == nil {
		return nil // not cached: each test draws its own
	}
	if len(data) != key.rows*key.rowLen {
		return fmt.Errorf("%d values, want %d rows of %d", len(data), key.rows, key.rowLen)
	}
	if key.rows == 0 {
		return nil
	}
	first := make([]T, key.rowLen)
	fill(newRand(key.seed), first)
	if !slices.Equal(first, data[:key.rowLen]) {
		return errors.New("its first row is not what the generator draws: other options or another seed")
	}
	return nil
}

// signedSum returns the sum over i, in order, of d[i]*s_i with s_i = -1
// where bit i of signs is set and +1 where it is not: the permutation's
// statistic as the definition adds it. (s + x*-1 is exactly s - x.)
func signedSum(d []float64, signs []uint64) float64 {
	s := 0.0
	for i, x := range d {
		s += x * float64(1-2*int(signs[i>>6]>>(i&63)&1))
	}
	return s
}

// sumBound returns how far apart two sums of the same n terms ±d_i
// (Σ|d_i| = scale), each added in some order with up to n+8 roundings,
// can be: twice the classic bound γ·scale with γ = m·u/(1-m·u) for m =
// n+8 additions and u the unit roundoff, with a little to spare. ok is
// false when the bound would mean nothing (scale not finite, or so large
// that a sum could overflow).
func sumBound(n int, scale float64) (float64, bool) {
	if math.IsInf(scale, 0) || math.IsNaN(scale) || scale > 1e300 {
		return 0, false
	}
	m := float64(n + 8)
	u := 0x1p-53
	g := m * u / (1 - m*u)
	return 2.25*g*scale + 0x1p-1070, true
}

// blockSums returns, for each block of eight consecutive values of d (the
// last one padded with zeros), the 256 sums of the block's values with
// the signs of each 8-bit pattern (bit q set: value q negated), added in
// order: entry b*256+m is block b's sum under pattern m.
func blockSums(d []float64) []float64 {
	blocks := (len(d) + 7) / 8
	t := make([]float64, blocks*256)
	var v [8]float64
	for b := range blocks {
		clear(v[:])
		copy(v[:], d[8*b:min(8*b+8, len(d))])
		tb := t[b*256 : b*256+256]
		for m := range tb {
			s := 0.0
			for q, x := range v {
				if m>>q&1 == 1 {
					s -= x
				} else {
					s += x
				}
			}
			tb[m] = s
		}
	}
	return t
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
	picks := bootstrapPicks(resamples, n, seed)
	cols := newPackedCols(ds)
	sums := make([]float64, 2*len(ds))
	first := make([]int32, n) // the first of two rows (a fresh draw reuses its row buffer)
	for b := 0; b < resamples; b += 2 {
		if b+1 == resamples {
			cols.pickedSums(sums, picks.row())
			for k, s := range sums[:len(ds)] {
				means[k][b] = s / float64(n)
			}
			break
		}
		copy(first, picks.row())
		cols.pickedSums2(sums[:len(ds)], sums[len(ds):], first, picks.row())
		for k := range ds {
			means[k][b] = sums[k] / float64(n)
			means[k][b+1] = sums[len(ds)+k] / float64(n)
		}
	}
	alpha := (1 - level) / 2
	lo, hi = make([]float64, len(ds)), make([]float64, len(ds))
	for k, m := range means {
		lo[k], hi[k] = selectQuantile(m, alpha), selectQuantile(m, 1-alpha)
	}
	return lo, hi
}

// packedCols holds columns of values (one per test) for picking rows:
// groups of four columns interleaved, so that one picked index reads four
// adjacent values (one bounds check, one cache line), and the columns
// left over.
type packedCols struct {
	groups [][]float64 // group g: row i's four values at 4i..4i+3
	rest   [][]float64
}

func newPackedCols(cols [][]float64) *packedCols {
	p := &packedCols{}
	k := 0
	for ; k+4 <= len(cols); k += 4 {
		n := len(cols[k])
		g := make([]float64, 4*n)
		for i := range n {
			g[4*i], g[4*i+1], g[4*i+2], g[4*i+3] = cols[k][i], cols[k+1][i], cols[k+2][i], cols[k+3][i]
		}
		p.groups = append(p.groups, g)
	}
	p.rest = cols[k:]
	return p
}

// pickedSums2 is pickedSums of two rows of picks at once, into dst and
// dst2: twice the independent sums in flight, the same additions.
func (p *packedCols) pickedSums2(dst, dst2 []float64, picks, picks2 []int32) {
	picks2 = picks2[:len(picks)]
	for g, c := range p.groups {
		var s0, s1, s2, s3, t0, t1, t2, t3 float64
		for j, i := range picks {
			x := c[4*i : 4*i+4 : 4*i+4]
			i2 := picks2[j]
			y := c[4*i2 : 4*i2+4 : 4*i2+4]
			s0 += x[0]
			s1 += x[1]
			s2 += x[2]
			s3 += x[3]
			t0 += y[0]
			t1 += y[1]
			t2 += y[2]
			t3 += y[3]
		}
		dst[4*g], dst[4*g+1], dst[4*g+2], dst[4*g+3] = s0, s1, s2, s3
		dst2[4*g], dst2[4*g+1], dst2[4*g+2], dst2[4*g+3] = t0, t1, t2, t3
	}
	k := 4 * len(p.groups)
	for j, c := range p.rest {
		s, t := 0.0, 0.0
		for q, i := range picks {
			s += c[i]
			t += c[picks2[q]]
		}
		dst[k+j], dst2[k+j] = s, t
	}
}

// pickedSums sets dst[k] to the sum of column k's values at the indices
// of picks, added in the order of picks, for every column k.
func (p *packedCols) pickedSums(dst []float64, picks []int32) {
	for g, c := range p.groups {
		var s0, s1, s2, s3 float64
		for _, i := range picks {
			x := c[4*i : 4*i+4 : 4*i+4]
			s0 += x[0]
			s1 += x[1]
			s2 += x[2]
			s3 += x[3]
		}
		dst[4*g], dst[4*g+1], dst[4*g+2], dst[4*g+3] = s0, s1, s2, s3
	}
	k := 4 * len(p.groups)
	for j, c := range p.rest {
		s := 0.0
		for _, i := range picks {
			s += c[i]
		}
		dst[k+j] = s
	}
}
