// Package float16 converts between float32 and IEEE 754 binary16 (half
// precision) and bfloat16, exactly and with round-to-nearest-even: the
// one implementation that the weight formats (safetensors, PyTorch
// checkpoints, ONNX graphs), ONNX Runtime's float16 inputs and outputs,
// the float16 rewriting of graphs and float16 .npy files share.
package float16

import "math"

// ToFloat32 converts binary16 bits to float32, exactly: every binary16
// value, subnormals, infinities and NaN included, has a float32 equal to
// it.
func ToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0: // zero
		return math.Float32frombits(sign)
	}
	// Subnormal: mant * 2^-24, exact in float32.
	f := float32(mant) * (1.0 / (1 << 24))
	if sign != 0 {
		f = -f
	}
	return f
}

// FromFloat32 rounds f to the nearest binary16 value (ties to even), as a
// cast to float16 does: finite values beyond the largest half (65504)
// become infinities, tiny ones subnormals or zero, and NaN stays NaN (the
// quiet NaN 0x7e00 with f's sign).
func FromFloat32(f float32) uint16 {
	h, _ := Round(f)
	return h
}

// Round is FromFloat32 that also reports whether a finite f stayed
// finite: ok is false when it rounded to an infinity.
func Round(f float32) (h uint16, ok bool) {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff { // Inf or NaN
		if mant != 0 {
			return sign | 0x7e00, true
		}
		return sign | 0x7c00, true
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00, false
	}
	if e <= 0 {
		// Subnormal half (or zero): m * 2^-24 with the implicit bit
		// restored, shifted right by 1-e more.
		if e < -10 {
			return sign, true
		}
		m := mant | 0x800000
		shift := uint(14 - e)
		r := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r), true
	}
	r := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++ // may carry into the exponent, up to infinity: still right
	}
	return sign | uint16(r), r < 0x7c00
}

// BFloat16ToFloat32 converts bfloat16 bits (the upper half of a float32)
// to float32, exactly.
func BFloat16ToFloat32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }
