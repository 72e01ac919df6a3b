package bert

import (
	"math"
	"testing"
)

func TestExpf(t *testing.T) {
	worst := 0.0
	for x := -87.0; x <= 0; x += 0.0007 {
		want := math.Exp(float64(float32(x)))
		got := float64(expf(float32(x)))
		if rel := math.Abs(got-want) / want; rel > worst {
			worst = rel
		}
	}
	if worst > 3e-7 {
		t.Errorf("expf: worst relative error %g", worst)
	}
	if expf(-100) != 0 || expf(0) != 1 {
		t.Errorf("expf(-100) = %v, expf(0) = %v", expf(-100), expf(0))
	}
}

func TestErff(t *testing.T) {
	worst := 0.0
	for x := -6.0; x <= 6; x += 0.0001 {
		want := math.Erf(float64(float32(x)))
		got := float64(erff(float32(x)))
		worst = max(worst, math.Abs(got-want))
	}
	if worst > 1e-6 {
		t.Errorf("erff: worst absolute error %g", worst)
	}
}

func TestTanhf(t *testing.T) {
	worst, worstRel := 0.0, 0.0
	for x := -12.0; x <= 12; x += 0.0001 {
		want := math.Tanh(float64(float32(x)))
		got := float64(tanhf(float32(x)))
		worst = max(worst, math.Abs(got-want))
		if want != 0 && math.Abs(x) < 0.125 {
			worstRel = max(worstRel, math.Abs(got-want)/math.Abs(want))
		}
	}
	if worst > 3e-7 || worstRel > 3e-7 {
		t.Errorf("tanhf: worst absolute error %g, relative error below 1/8 %g", worst, worstRel)
	}
	for _, c := range [][2]float32{{0, 0}, {20, 1}, {-20, -1}, {float32(math.Inf(1)), 1}, {float32(math.Inf(-1)), -1}} {
		if got := tanhf(c[0]); got != c[1] {
			t.Errorf("tanhf(%v) = %v, want %v", c[0], got, c[1])
		}
	}
	if v := tanhf(float32(math.NaN())); v == v {
		t.Errorf("tanhf(NaN) = %v", v)
	}
}
