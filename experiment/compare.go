package experiment

import (
	"math"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
)

// Float is a float64 that encodes NaN and infinities as JSON null; see
// results.Float, where it lives (this alias keeps experiment's results
// types compiling until they move to package results too).
type Float = results.Float

// pairedCompare compares the paired values a and b (same queries, same
// order) with metrics.PairedTest. With no queries every field but N is
// NaN.
func pairedCompare(a, b []float64, resamples int, seed uint64) (Comparison, error) {
	cs, err := pairedCompares([][]float64{a}, [][]float64{b}, resamples, seed)
	if err != nil {
		return Comparison{}, err
	}
	return cs[0], nil
}

// pairedCompares runs pairedCompare on every pair (as[i], bs[i]) with
// metrics.PairedTests, which shares the random draws between pairs.
func pairedCompares(as, bs [][]float64, resamples int, seed uint64) ([]Comparison, error) {
	out := make([]Comparison, len(as))
	var idx []int
	var ta, tb [][]float64
	for i := range as {
		if len(as[i]) == 0 {
			nan := Float(math.NaN())
			out[i] = Comparison{MeanA: nan, MeanB: nan, MeanDiff: nan, PRandomization: nan, PTTest: nan, CILow: nan, CIHigh: nan}
			continue
		}
		idx, ta, tb = append(idx, i), append(ta, as[i]), append(tb, bs[i])
	}
	if len(idx) == 0 {
		return out, nil
	}
	ps, err := metrics.PairedTests(ta, tb, metrics.CompareOptions{Permutations: resamples, Resamples: resamples, Seed: seed})
	if err != nil {
		return nil, err
	}
	for k, i := range idx {
		p := ps[k]
		out[i] = Comparison{
			MeanA: Float(p.MeanA), MeanB: Float(p.MeanB), MeanDiff: Float(p.Diff),
			PRandomization: Float(p.PRandomization), PTTest: Float(p.PTTest),
			CILow: Float(p.CILow), CIHigh: Float(p.CIHigh), N: p.N,
		}
	}
	return out, nil
}
