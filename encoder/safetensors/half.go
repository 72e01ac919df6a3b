package safetensors

import (
	"math"
	"sync"
)

// HalfToFloat32 converts an IEEE 754 binary16 value to float32 exactly
// (every binary16 value, subnormals, infinities and NaN included, has a
// float32 equal to it). Package torchckpt converts PyTorch's float16
// storages with it too.
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		// Subnormal: normalise the mantissa.
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		mant &= 0x3ff
		return math.Float32frombits(sign | e<<23 | mant<<13)
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	default:
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	}
}

// halfTable holds HalfToFloat32 of every binary16 bit pattern, made on
// first use: a large F16 tensor converts by looking each element up
// (readFloats), several times faster than computing it, most under
// js/wasm, where the browser's static model has 7.8 million of them.
var halfTable = sync.OnceValue(func() *[1 << 16]float32 {
	t := new([1 << 16]float32)
	for h := range t {
		t[h] = HalfToFloat32(uint16(h))
	}
	return t
})

// halfTableMin is the number of F16 elements from which readFloats
// converts through halfTable: its 65,536 entries cost as many
// conversions to make.
const halfTableMin = 1 << 16

// float32ToHalf converts f to binary16, rounding to nearest even; values too
// large become ±Inf, NaN stays NaN.
func float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00 // quiet NaN
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// Subnormal or zero in binary16.
		if e < -10 {
			return sign
		}
		m := mant | 0x800000
		shift := uint32(14 - e)
		half := uint32(1) << (shift - 1)
		r := m >> shift
		rem := m & (1<<shift - 1)
		if rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++ // may carry into the exponent, which is the right result (up to Inf)
	}
	return sign | uint16(r)
}

// BFloat16ToFloat32 converts a bfloat16 value (the upper half of a
// float32) to float32 exactly.
func BFloat16ToFloat32(h uint16) float32 {
	return math.Float32frombits(uint32(h) << 16)
}
