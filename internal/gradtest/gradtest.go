// Package gradtest checks analytic gradients against central finite
// differences in float64, for the tests of the gradient passes
// (encoder/bert, encoder/static).
//
// The rule it applies, the same everywhere: the relative error of the
// analytic gradient g to the finite differences d, |g - d|₂ / |d|₂ over the
// checked coordinates, must be below a bound (1e-3 in the tests), and g and
// d must have the same sign on every coordinate where |d| is above the
// noise threshold max(10·noise, 1e-6·max|d|). The noise is the finite
// differences' own error, estimated as max |d(h) - d(2h)| over the
// coordinates: the two step sizes differ in truncation error by a factor
// of 4 and in rounding error by 2, so their difference bounds the error
// of d(h) from above. The relative error cannot fall below about
// noise·√n / |d|₂ (n coordinates): where the gradient nearly vanishes (a
// cosine of almost parallel vectors), a test should move its point away.
package gradtest

import (
	"math"
	"testing"
)

// Result is what Check measured.
type Result struct {
	// Checked is the number of coordinates compared.
	Checked int
	// RelErr is |g - d|₂ / |d|₂ over them.
	RelErr float64
	// Noise is max |d(h) - d(2h)|, Threshold max(10·Noise, 1e-6·max|d|).
	Noise, Threshold float64
	// Signed is the number of coordinates above Threshold, SignErrors
	// those among them where g and d differ in sign.
	Signed, SignErrors int
	// MaxAbs is max |d|.
	MaxAbs float64
}

// Check compares grad, the analytic gradient of f at x, with the central
// finite differences (f(x + h·e_i) - f(x - h·e_i)) / 2h on the
// coordinates i of coords (nil: every coordinate), and fails t, naming
// what, when the relative error reaches maxRel or a sign above the noise
// threshold differs (see the package comment). f may read x, which Check
// changes one coordinate at a time and restores.
func Check(t testing.TB, what string, f func(x []float64) float64, x, grad []float64, coords []int, h, maxRel float64) Result {
	t.Helper()
	if len(grad) != len(x) {
		t.Fatalf("%s: a gradient of %d values for %d inputs", what, len(grad), len(x))
	}
	if coords == nil {
		coords = make([]int, len(x))
		for i := range coords {
			coords[i] = i
		}
	}
	diff := func(i int, step float64) float64 {
		x0 := x[i]
		x[i] = x0 + step
		up := f(x)
		x[i] = x0 - step
		down := f(x)
		x[i] = x0
		return (up - down) / (2 * step)
	}
	d := make([]float64, len(coords))
	var r Result
	var num, den float64
	for k, i := range coords {
		d[k] = diff(i, h)
		r.Noise = max(r.Noise, math.Abs(d[k]-diff(i, 2*h)))
		r.MaxAbs = max(r.MaxAbs, math.Abs(d[k]))
		num += (grad[i] - d[k]) * (grad[i] - d[k])
		den += d[k] * d[k]
	}
	r.Checked = len(coords)
	r.RelErr = math.Sqrt(num / den)
	if den == 0 {
		r.RelErr = math.Sqrt(num)
	}
	r.Threshold = max(10*r.Noise, 1e-6*r.MaxAbs)
	for k, i := range coords {
		if math.Abs(d[k]) <= r.Threshold {
			continue
		}
		r.Signed++
		if (d[k] > 0) != (grad[i] > 0) {
			r.SignErrors++
			if r.SignErrors <= 5 {
				t.Errorf("%s: coordinate %d: analytic %.6g, finite differences %.6g (threshold %.3g)", what, i, grad[i], d[k], r.Threshold)
			}
		}
	}
	if r.MaxAbs == 0 {
		t.Errorf("%s: every finite difference is 0: nothing was checked", what)
	}
	if !(r.RelErr < maxRel) {
		t.Errorf("%s: relative error %.3g to the finite differences, not below %g", what, r.RelErr, maxRel)
	}
	if r.SignErrors > 0 {
		t.Errorf("%s: %d of %d coordinates above the noise threshold %.3g differ in sign", what, r.SignErrors, r.Signed, r.Threshold)
	}
	if r.Signed == 0 {
		t.Errorf("%s: no coordinate is above the noise threshold %.3g (noise %.3g)", what, r.Threshold, r.Noise)
	}
	return r
}

// RelErr returns |a - b|₂ / |b|₂.
func RelErr[A, B float32 | float64](a []A, b []B) float64 {
	var num, den float64
	for i, v := range b {
		d := float64(a[i]) - float64(v)
		num += d * d
		den += float64(v) * float64(v)
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}
