package experiment

import (
	"encoding/json"
	"math"

	"github.com/dreval/dreval/metrics"
)

// Float is a float64 that encodes NaN and infinities as JSON null (and
// decodes null as NaN): a p-value that cannot be computed (one query) is
// shown as missing, never as a number.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// pairedCompare compares the paired values a and b (same queries, same
// order) with metrics.PairedTest. With no queries every field but N is
// NaN.
func pairedCompare(a, b []float64, resamples int, seed uint64) (Comparison, error) {
	if len(a) == 0 {
		nan := Float(math.NaN())
		return Comparison{MeanA: nan, MeanB: nan, MeanDiff: nan, PRandomization: nan, PTTest: nan, CILow: nan, CIHigh: nan}, nil
	}
	p, err := metrics.PairedTest(a, b, metrics.CompareOptions{Permutations: resamples, Resamples: resamples, Seed: seed})
	if err != nil {
		return Comparison{}, err
	}
	return Comparison{
		MeanA: Float(p.MeanA), MeanB: Float(p.MeanB), MeanDiff: Float(p.Diff),
		PRandomization: Float(p.PRandomization), PTTest: Float(p.PTTest),
		CILow: Float(p.CILow), CIHigh: Float(p.CIHigh), N: p.N,
	}, nil
}
