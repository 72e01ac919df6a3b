package metrics

import (
	"math"
	"math/big"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestStudentTTwoSided checks the arithmetic-only p-value against the
// closed forms for 1 and 2 degrees of freedom, against the exact series in
// 2,000-bit arithmetic for even degrees of freedom up to 100,000 (p from
// near 1 to near 1e-300), and against gonum's Student's t for odd ones.
func TestStudentTTwoSided(t *testing.T) {
	for _, tv := range []float64{1e-8, 0.01, 0.3, 1, 2.5, 10, 1e3, 1e6} {
		// The closed forms, written without cancellation for large t.
		if got, want := studentTTwoSided(tv, 1), 2/math.Pi*math.Atan(1/tv); !near(got, want, 1e-13) {
			t.Errorf("nu 1, t %v: %v, want %v", tv, got, want)
		}
		if r := math.Sqrt(2 + tv*tv); !near(studentTTwoSided(tv, 2), 2/(r*(r+tv)), 1e-13) {
			got, want := studentTTwoSided(tv, 2), 2/(r*(r+tv))
			t.Errorf("nu 2, t %v: %v, want %v", tv, got, want)
		}
	}
	// Even degrees of freedom: against the exact finite series, in
	// 2,000-bit arithmetic (so the cancellation in 1 - sum costs nothing).
	worst := 0.0
	for _, nu := range []int{2, 4, 10, 30, 100, 212, 1000, 10568, 100000} {
		for _, tv := range []float64{1e-6, 0.001, 0.05, 0.5, 1, 1.96, 2.5, 3, 4, 6, 10, 20, 40, 100} {
			want := studentTEvenExact(tv, nu)
			got := studentTTwoSided(tv, nu)
			if want < 1e-300 {
				if got > 1e-290 {
					t.Errorf("nu %d, t %v: %v, want %v", nu, tv, got, want)
				}
				continue
			}
			rel := math.Abs(got-want) / want
			worst = math.Max(worst, rel)
			// The recurrence for B(nu/2, 1/2) takes nu/2 roundings.
			if rel > 1e-11 {
				t.Errorf("nu %d, t %v: %v, exact %v (relative difference %.2g)", nu, tv, got, want, rel)
			}
		}
	}
	t.Logf("even degrees of freedom: worst relative difference from the exact value %.2g", worst)
	// Odd degrees of freedom: against gonum's cephes-based Student's t
	// where it is accurate (it loses digits for many degrees of freedom).
	for _, nu := range []int{1, 3, 5, 7, 13, 47, 99, 211, 999} {
		for _, tv := range []float64{0.05, 0.5, 1, 1.96, 3, 6, 10, 40} {
			want := math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(nu)}.Survival(tv))
			if got := studentTTwoSided(tv, nu); want > 1e-300 && !near(got, want, 1e-11) {
				t.Errorf("nu %d, t %v: %v, gonum %v", nu, tv, got, want)
			}
		}
	}
	for _, c := range []struct {
		t    float64
		nu   int
		want float64
	}{{0, 5, 1}, {math.Inf(1), 5, 0}} {
		if got := studentTTwoSided(c.t, c.nu); got != c.want {
			t.Errorf("t %v nu %d: %v, want %v", c.t, c.nu, got, c.want)
		}
	}
	if !math.IsNaN(studentTTwoSided(math.NaN(), 3)) || !math.IsNaN(studentTTwoSided(1, 0)) {
		t.Error("NaN t or nu 0 does not give NaN")
	}
}

// studentTEvenExact returns P(|T| >= t) for even nu from the finite
// series 1 - sin(th) sum_{k < nu/2} (1/2)_k/k! cos(th)^(2k), with
// sin(th) = t/sqrt(nu+t^2), in 2,000-bit floating point.
func studentTEvenExact(t float64, nu int) float64 {
	const prec = 2000
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	tt := f(t)
	den := f(float64(nu))
	den.Add(den, new(big.Float).SetPrec(prec).Mul(tt, tt))
	sin := new(big.Float).SetPrec(prec).Quo(tt, new(big.Float).SetPrec(prec).Sqrt(den))
	cos2 := new(big.Float).SetPrec(prec).Quo(f(float64(nu)), den)
	term, sum := f(1), f(0)
	for k := 0; k < nu/2; k++ {
		sum.Add(sum, term)
		// (1/2)_{k+1}/(k+1)! = (1/2)_k/k! * (k+1/2)/(k+1)
		term.Mul(term, cos2)
		term.Mul(term, f(float64(2*k+1)))
		term.Quo(term, f(float64(2*k+2)))
	}
	sum.Mul(sum, sin)
	p, _ := new(big.Float).SetPrec(prec).Sub(f(1), sum).Float64()
	return p
}

func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}
