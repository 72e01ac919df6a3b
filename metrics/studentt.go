package metrics

import "math"

// The paired t-test's p-value is computed here with additions,
// multiplications, divisions and square roots only. math.Exp and math.Log
// have assembly on amd64 and none in js/wasm, so a p-value through them
// (or through Lgamma, or a library built on them) differs in its last
// bits between the CLI and the browser, and the page's downloads would
// not equal the CLI's files byte for byte. The operations used here are
// exactly rounded by IEEE 754 on every platform (Go does not fuse them
// unless asked), so both give the same bits.

// studentTTwoSided returns P(|T| >= t) for Student's t distribution with
// nu degrees of freedom (t >= 0, nu >= 1): the regularized incomplete
// beta function I_x(nu/2, 1/2) at x = nu/(nu+t^2).
func studentTTwoSided(t float64, nu int) float64 {
	switch {
	case math.IsNaN(t) || nu < 1:
		return math.NaN()
	case math.IsInf(t, 0):
		return 0
	case t == 0:
		return 1
	}
	n := float64(nu)
	t2 := t * t
	x := n / (n + t2)
	y := t2 / (n + t2)
	a, b := n/2, 0.5
	// The continued fraction converges fast for x below (a+1)/(a+b+2);
	// above it, take the complement through the symmetry
	// I_x(a, b) = 1 - I_y(b, a).
	if x < (a+1)/(a+b+2) {
		return clamp01(betaFront(nu, x, y) * betaFraction(a, b, x) / a)
	}
	return clamp01(1 - betaFront(nu, x, y)*betaFraction(b, a, y)/b)
}

// betaFront returns x^a y^b / B(a, b) for a = nu/2 and b = 1/2: the
// factor before the continued fraction (symmetric in its two pairs).
func betaFront(nu int, x, y float64) float64 {
	xa := powInt(x, nu/2)
	if nu%2 == 1 {
		xa *= math.Sqrt(x)
	}
	return xa * math.Sqrt(y) / betaHalf(nu)
}

// betaHalf returns B(nu/2, 1/2) = sqrt(pi) Gamma(nu/2) / Gamma(nu/2+1/2),
// from B(1/2, 1/2) = pi and B(1, 1/2) = 2 by the recurrence
// B(a+1, 1/2) = B(a, 1/2) a / (a + 1/2).
func betaHalf(nu int) float64 {
	v, k := math.Pi, 1
	if nu%2 == 0 {
		v, k = 2, 2
	}
	for ; k < nu; k += 2 {
		a := float64(k) / 2
		v *= a / (a + 0.5)
	}
	return v
}

// powInt returns x^k for k >= 0 by repeated squaring.
func powInt(x float64, k int) float64 {
	r := 1.0
	for k > 0 {
		if k&1 == 1 {
			r *= x
		}
		x *= x
		k >>= 1
	}
	return r
}

// betaFraction evaluates the continued fraction of the incomplete beta
// function, 1/(1+ d1/(1+ d2/(1+ ...))) with
//
//	d(2m+1) = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))
//	d(2m)   = m(b-m) x / ((a+2m-1)(a+2m)),
//
// by the modified Lentz method, so that I_x(a, b) = front * fraction / a.
func betaFraction(a, b, x float64) float64 {
	const (
		tiny = 1e-300
		eps  = 4e-16
	)
	fix := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c := 1.0
	d := 1 / fix(1-(a+b)*x/(a+1))
	h := d
	for m := 1; m <= 100000; m++ {
		fm := float64(m)
		// The even step.
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 / fix(1+num*d)
		c = fix(1 + num/c)
		h *= d * c
		// The odd step.
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 / fix(1+num*d)
		c = fix(1 + num/c)
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			return h
		}
	}
	return math.NaN() // not reached for the t distribution's parameters
}

func clamp01(p float64) float64 {
	return math.Max(0, math.Min(1, p))
}
