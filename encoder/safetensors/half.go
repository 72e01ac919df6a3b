package safetensors

import (
	"sync"

	"github.com/dreval/dreval/internal/float16"
)

// halfTable holds float16.ToFloat32 of every binary16 bit pattern, made on
// first use: a large F16 tensor converts by looking each element up
// (readFloats), several times faster than computing it, most under
// js/wasm, where the browser's static model has 7.8 million of them.
var halfTable = sync.OnceValue(func() *[1 << 16]float32 {
	t := new([1 << 16]float32)
	for h := range t {
		t[h] = float16.ToFloat32(uint16(h))
	}
	return t
})

// halfTableMin is the number of F16 elements from which readFloats
// converts through halfTable: its 65,536 entries cost as many
// conversions to make.
const halfTableMin = 1 << 16
