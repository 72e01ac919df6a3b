package bert

import "math"

// expf returns e**x in float32 arithmetic, for x <= 0 (softmax after
// subtracting the maximum): x = n·ln2 + r with |r| <= ln2/2, e**r by a
// degree-6 Taylor polynomial, scaled by 2**n. Relative error < 3e-7
// (tested against math.Exp). It is plain Go, so natively and under
// js/wasm it gives the same bits, which math.Exp (assembly on amd64) does
// not promise.
func expf(x float32) float32 {
	if x < -87 {
		return 0
	}
	if x > 88 {
		return float32(math.Inf(1))
	}
	const ln2hi, ln2lo = 0.693145751953125, 1.428606765330187e-06
	n := float32(math.Floor(float64(float32(x*1.4426950408889634) + 0.5)))
	r := x - float32(n*ln2hi)
	r -= float32(n * ln2lo)
	p := float32(1.0 / 720)
	p = float32(p*r) + 1.0/120
	p = float32(p*r) + 1.0/24
	p = float32(p*r) + 1.0/6
	p = float32(p*r) + 0.5
	p = float32(p*r) + 1
	p = float32(p*r) + 1
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// erff returns the error function of x in float32 arithmetic: a rational
// minimax approximation on [-4, 4] (erf is ±1 to float32 precision
// beyond), absolute error < 1e-6 (tested against math.Erf). Plain Go, same
// bits everywhere.
func erff(x float32) float32 {
	x = max(-4, min(4, x))
	x2 := x * x
	p := float32(-2.72614225801306e-10)
	p = float32(p*x2) + 2.77068142495902e-08
	p = float32(p*x2) + -2.10102402082508e-06
	p = float32(p*x2) + -5.69250639462346e-05
	p = float32(p*x2) + -7.34990630326855e-04
	p = float32(p*x2) + -2.95459980854025e-03
	p = float32(p*x2) + -1.60960333262415e-02
	p *= x
	q := float32(-1.45660718464996e-05)
	q = float32(q*x2) + -2.13374055278905e-04
	q = float32(q*x2) + -1.68282697438203e-03
	q = float32(q*x2) + -7.37332916720468e-03
	q = float32(q*x2) + -1.42647390514189e-02
	return p / q
}

// tanhf returns tanh(x) in float32 arithmetic: an odd Taylor polynomial
// for |x| < 1/8, (1 - e)/(1 + e) with e = e**(-2|x|) from expf above, 1
// beyond 9 (tanh(9) rounds to 1 in float32). Absolute error < 3e-7
// (tested against math.Tanh); plain Go, same bits everywhere.
func tanhf(x float32) float32 {
	a := x
	if a < 0 {
		a = -a
	}
	var t float32
	switch {
	case a < 0.125:
		a2 := a * a
		p := float32(-1382.0 / 155925)
		p = float32(p*a2) + 62.0/2835
		p = float32(p*a2) + -17.0/315
		p = float32(p*a2) + 2.0/15
		p = float32(p*a2) + -1.0/3
		t = a + float32(a*float32(p*a2))
	case a < 9:
		e := expf(-2 * a)
		t = (1 - e) / (1 + e)
	case a >= 9:
		t = 1
	default: // NaN
		return x
	}
	if x < 0 {
		return -t
	}
	return t
}
