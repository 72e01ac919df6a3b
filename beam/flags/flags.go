// Package flags parses dreval-beam's flag values that are more than a
// number or a name. It imports no Beam package, so that its tests and
// fuzzers build and start quickly.
package flags

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseRates parses a -rates flag: perturbation rates in [0, 1],
// comma-separated, blanks around them and empty items ignored, at least
// one.
func ParseRates(s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		r, err := strconv.ParseFloat(p, 64)
		if err != nil || !(r >= 0 && r <= 1) {
			return nil, fmt.Errorf("-rates: %q is not a rate in [0, 1]", p)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-rates %q: no rate given (want rates in [0, 1], comma-separated, 0 for the clean run)", s)
	}
	return out, nil
}
