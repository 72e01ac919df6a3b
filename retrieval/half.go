package retrieval

import "math"

// halfToFloat32 converts an IEEE 754 binary16 value to float32 exactly.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: mant * 2^-24, exact in float32
		f := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

// float32ToHalf rounds f to the nearest binary16 value (ties to even). ok
// is false when a finite f is too large and rounds to infinity.
func float32ToHalf(f float32) (h uint16, ok bool) {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	exp := int(bits>>23) & 0xff
	mant := bits & 0x7fffff
	if exp == 0xff { // Inf or NaN; keep NaNs NaN
		if mant != 0 {
			return sign | 0x7e00 | uint16(mant>>13), true
		}
		return sign | 0x7c00, true
	}
	e := exp - 127 + 15
	if e <= 0 { // subnormal half or zero
		if e < -10 {
			return sign, true
		}
		m := mant | 0x800000
		shift := uint(14 - e)
		r := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && r&1 == 1 {
			r++
		}
		return sign | uint16(r), true
	}
	r := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && r&1 == 1 {
		r++
	}
	if r >= 0x7c00 {
		return sign | 0x7c00, false
	}
	return sign | uint16(r), true
}
