package metrics

import (
	"math"
	"math/bits"
	"slices"
)

// quantile interpolates linearly between order statistics of sorted xs
// (the "type 7" definition of R and numpy).
func quantile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	h := p * float64(len(xs)-1)
	i := int(math.Floor(h))
	if i >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-float64(i))*(xs[i+1]-xs[i])
}

// selectQuantile returns quantile(sorted xs, p) without sorting xs: it
// selects the two order statistics the quantile needs, reordering xs. The
// result is the same number; a bootstrap's percentiles cost a linear pass
// instead of a sort. xs must hold no NaN.
func selectQuantile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	h := p * float64(len(xs)-1)
	i := int(math.Floor(h))
	if i >= len(xs)-1 {
		return slices.Max(xs)
	}
	selectNth(xs, i)
	next := slices.Min(xs[i+1:])
	return xs[i] + (h-float64(i))*(next-xs[i])
}

// selectNth reorders xs so that xs[k] is the value sorting would put
// there, with no greater value before it and no smaller one after it
// (Hoare's selection with a median-of-three pivot; after a number of
// rounds that only adversarial orders reach, the rest is sorted). xs must
// hold no NaN.
func selectNth(xs []float64, k int) {
	lo, hi := 0, len(xs)-1
	rounds := 2*bits.Len(uint(len(xs))) + 8
	for hi > lo {
		if rounds == 0 {
			slices.Sort(xs[lo : hi+1])
			return
		}
		rounds--
		a, b, c := xs[lo], xs[lo+(hi-lo)/2], xs[hi]
		pivot := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		// Now xs[lo:j+1] <= pivot, xs[i:hi+1] >= pivot, and whatever lies
		// between equals pivot.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}
