package results

import (
	"math"

	"github.com/dreval/dreval/metrics"
)

// Measures is one convention's measures, in table order: the columns of
// its tables and the keys of its values.
type Measures struct {
	Convention metrics.Convention `json:"convention"`
	Names      []string           `json:"measures"`
}

// Values maps a convention to the values of its measures.
type Values map[metrics.Convention]map[string]float64

// Get returns the value of measure under convention c, and whether there
// is one.
func (v Values) Get(c metrics.Convention, measure string) (float64, bool) {
	x, ok := v[c][measure]
	return x, ok
}

// Set sets the value of measure under convention c.
func (v Values) Set(c metrics.Convention, measure string, x float64) {
	m := v[c]
	if m == nil {
		m = map[string]float64{}
		v[c] = m
	}
	m[measure] = x
}

// Stats maps a convention to the mean and SD over seeds of its measures.
type Stats map[metrics.Convention]map[string]Stat

// Comparisons maps a convention to the paired comparisons of its
// measures.
type Comparisons map[metrics.Convention]map[string]Comparison

// Get returns the comparison of measure under convention c, and whether
// there is one.
func (cs Comparisons) Get(c metrics.Convention, measure string) (Comparison, bool) {
	x, ok := cs[c][measure]
	return x, ok
}

// Stat is a mean and sample standard deviation over N values (SD is 0
// when N < 2).
type Stat struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	N    int     `json:"n"`
}

// NewStat returns the mean and sample standard deviation of xs.
func NewStat(xs []float64) Stat {
	s := Stat{N: len(xs)}
	if len(xs) == 0 {
		return s
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	s.Mean = sum / float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			d := x - s.Mean
			ss += d * d
		}
		s.SD = math.Sqrt(ss / float64(len(xs)-1))
	}
	return s
}

// Comparison is a paired comparison of two runs on one measure: the mean
// of the per-query differences (B minus A), two-sided p-values of a paired
// randomization test and a paired t-test, and a bootstrap confidence
// interval of the mean difference.
type Comparison struct {
	MeanA          Float `json:"mean_a"`
	MeanB          Float `json:"mean_b"`
	MeanDiff       Float `json:"mean_diff"`
	PRandomization Float `json:"p_randomization"`
	PTTest         Float `json:"p_ttest"`
	CILow          Float `json:"ci_low"`
	CIHigh         Float `json:"ci_high"`
	N              int   `json:"n"`
}

// NewComparison returns the Comparison of a paired test's result.
func NewComparison(p metrics.Paired) Comparison {
	return Comparison{
		MeanA: Float(p.MeanA), MeanB: Float(p.MeanB), MeanDiff: Float(p.Diff),
		PRandomization: Float(p.PRandomization), PTTest: Float(p.PTTest),
		CILow: Float(p.CILow), CIHigh: Float(p.CIHigh), N: p.N,
	}
}

// NoComparison is the comparison of no queries: every field but N is NaN.
func NoComparison() Comparison {
	nan := Float(math.NaN())
	return Comparison{MeanA: nan, MeanB: nan, MeanDiff: nan, PRandomization: nan, PTTest: nan, CILow: nan, CIHigh: nan}
}
