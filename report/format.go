package report

import (
	"math"
	"strconv"
)

// The number formats of every table, the page and report.html: one
// implementation, so that a number reads the same wherever it is shown.

// Digits is the number of decimals tables show.
const Digits = 4

// Num formats a value as tables show it: Digits decimals, "n/a" for a
// value that cannot be computed (NaN or infinite).
func Num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', Digits, 64)
}

// Signed is Num with a sign: "+0.0123", "-0.0456".
func Signed(v float64) string {
	s := Num(v)
	if v >= 0 && s != "n/a" {
		s = "+" + s
	}
	return s
}

// PValue formats a p-value: "p=0.0123", or "p<0.0001".
func PValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "p=n/a"
	case p < 1e-4:
		return "p<0.0001"
	default:
		return "p=" + strconv.FormatFloat(p, 'f', 4, 64)
	}
}

// fullNum writes v at full precision (the fewest digits that read back as
// v), and a value that cannot be computed as the empty string: the CSV
// files' numbers.
func fullNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
