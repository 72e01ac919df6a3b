package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestSelectQuantile checks the selected quantiles against the sorted
// definition, bit for bit, on data with many ties, sorted and reversed
// data, and constant data.
func TestSelectQuantile(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	inputs := map[string][]float64{
		"one":      {0.5},
		"two":      {2, 1},
		"constant": slices.Repeat([]float64{0.25}, 1000),
	}
	for _, n := range []int{3, 10, 101, 10000} {
		ties, wide, asc := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			ties[i] = float64(r.IntN(7)) / 48
			wide[i] = r.NormFloat64()
			asc[i] = float64(i) / 3
		}
		desc := slices.Clone(asc)
		slices.Reverse(desc)
		s := strconv.Itoa(n)
		inputs["ties"+s], inputs["wide"+s], inputs["asc"+s], inputs["desc"+s] = ties, wide, asc, desc
	}
	for name, xs := range inputs {
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		for _, p := range []float64{0, 0.025, 0.1, 0.5, 0.975, 0.999, 1} {
			work := slices.Clone(xs)
			got, want := selectQuantile(work, p), quantile(sorted, p)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("%s: selectQuantile(p=%g) = %v, want %v (sorted)", name, p, got, want)
			}
			slices.Sort(work)
			if !slices.Equal(work, sorted) {
				t.Errorf("%s: selectQuantile lost or changed values", name)
			}
		}
	}
	if got := selectQuantile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("selectQuantile(empty) = %v, want NaN", got)
	}
}

// TestSelectNthAdversarial checks the fallback: an order that defeats the
// median-of-three pivot still selects the right value.
func TestSelectNthAdversarial(t *testing.T) {
	// Organ-pipe data: the median of three is always near an end.
	n := 4096
	xs := make([]float64, n)
	for i := range n / 2 {
		xs[i], xs[n-1-i] = float64(i), float64(i)
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	for _, k := range []int{0, 1, n / 3, n / 2, n - 2, n - 1} {
		work := slices.Clone(xs)
		selectNth(work, k)
		if work[k] != sorted[k] {
			t.Fatalf("selectNth(k=%d) = %v, want %v", k, work[k], sorted[k])
		}
		for i := range k {
			if work[i] > work[k] {
				t.Fatalf("selectNth(k=%d): xs[%d] = %v > xs[k] = %v", k, i, work[i], work[k])
			}
		}
		for i := k + 1; i < n; i++ {
			if work[i] < work[k] {
				t.Fatalf("selectNth(k=%d): xs[%d] = %v < xs[k] = %v", k, i, work[i], work[k])
			}
		}
	}
}
