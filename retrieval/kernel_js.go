//go:build js && wasm

package retrieval

import (
	"errors"
	"fmt"
	"sync"
	"syscall/js"
	"unsafe"
)

// Under js/wasm TopK scores with the SIMD module of kernel_wasm_module.go
// where the JavaScript engine runs WebAssembly SIMD (every current
// browser and Node): Go's compiler emits scalar float32 code only, about
// 1.3 GFLOP/s, where the module's f32x4 lanes are several times faster.
// Each search takes an instance of its own (its own memory), so
// concurrent searches never share one.

func init() {
	takeBlockKernel = takeSIMDKernel
}

// simd holds the compiled module (nil where it does not compile: no
// SIMD) and the instances not in use.
var simd struct {
	once   sync.Once
	module js.Value
	ok     bool
	mu     sync.Mutex
	free   []*simdKernel
}

// takeSIMDKernel returns an instance of the module for rows of dim
// values, or nil when dim is not a multiple of 8 or there is no SIMD.
func takeSIMDKernel(dim int) blockKernel {
	if dim <= 0 || dim%8 != 0 {
		return nil
	}
	simd.once.Do(func() {
		wa := js.Global().Get("WebAssembly")
		if wa.Type() != js.TypeObject {
			return
		}
		b := simdModule
		arr := js.Global().Get("Uint8Array").New(len(b))
		js.CopyBytesToJS(arr, b)
		if !wa.Call("validate", arr).Bool() {
			return
		}
		simd.module = wa.Get("Module").New(arr)
		simd.ok = true
	})
	if !simd.ok {
		return nil
	}
	simd.mu.Lock()
	defer simd.mu.Unlock()
	if n := len(simd.free); n > 0 {
		k := simd.free[n-1]
		simd.free = simd.free[:n-1]
		return k
	}
	inst := js.Global().Get("WebAssembly").Get("Instance").New(simd.module, js.Global().Get("Object").New())
	ex := inst.Get("exports")
	return &simdKernel{memory: ex.Get("memory"), dots: ex.Get("dots")}
}

// simdKernel is one instance of the module. Its memory holds the corpus
// chunk at offset 0, then the queries, then the scores.
type simdKernel struct {
	memory, dots js.Value
	out          []float32
}

func (k *simdKernel) release() {
	simd.mu.Lock()
	simd.free = append(simd.free, k)
	simd.mu.Unlock()
}

// wasmPage is WebAssembly's page size.
const wasmPage = 64 << 10

func (k *simdKernel) scores(q []float32, mq int, c []float32, nc, dim int, newCorpus bool) ([]float32, error) {
	if len(q) != mq*dim || len(c) != nc*dim {
		return nil, fmt.Errorf("simd kernel: %d query values for %d x %d, %d corpus values for %d x %d", len(q), mq, dim, len(c), nc, dim)
	}
	cb, qb, ob := 4*len(c), 4*len(q), 4*mq*nc
	qOff := align16(cb)
	oOff := align16(qOff + qb)
	need := oOff + ob
	if need > 1<<31 {
		return nil, errors.New("simd kernel: a block needs more than 2 GiB")
	}
	have := k.memory.Get("buffer").Get("byteLength").Int()
	if need > have {
		k.memory.Call("grow", (need-have+wasmPage-1)/wasmPage)
	}
	buf := k.memory.Get("buffer")
	u8 := js.Global().Get("Uint8Array")
	if newCorpus {
		js.CopyBytesToJS(u8.New(buf, 0, cb), floatBytes(c))
	}
	js.CopyBytesToJS(u8.New(buf, qOff, qb), floatBytes(q))
	k.dots.Invoke(qOff, mq, 0, nc, dim, oOff)
	if cap(k.out) < mq*nc {
		k.out = make([]float32, mq*nc)
	}
	out := k.out[:mq*nc]
	js.CopyBytesToGo(floatBytes(out), u8.New(buf, oOff, ob))
	return out, nil
}

func align16(n int) int { return (n + 15) &^ 15 }

// floatBytes views x's memory as bytes (js/wasm is little-endian, as the
// module reads them).
func floatBytes(x []float32) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), 4*len(x))
}
