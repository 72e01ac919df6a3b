// Package wasmenc writes small WebAssembly modules: one linear memory and
// functions whose bodies are built instruction by instruction, in the
// binary format of the WebAssembly core specification (version 2.0, with
// the fixed-width SIMD instructions). It knows only the instructions
// dreval's kernels use (package retrieval's dot-product kernel for the
// browser); each is named after its text-format mnemonic.
package wasmenc

// ValType is a value type.
type ValType byte

// The value types.
const (
	I32  ValType = 0x7F
	F32  ValType = 0x7D
	V128 ValType = 0x7B
)

// Func is a function under construction: its parameters, results, extra
// locals and body.
type Func struct {
	Name    string // exported under this name
	Params  []ValType
	Results []ValType
	locals  []ValType
	body    []byte
}

// Local declares a new local of type t and returns its index (after the
// parameters, which are locals 0 to len(Params)-1).
func (f *Func) Local(t ValType) uint32 {
	f.locals = append(f.locals, t)
	return uint32(len(f.Params) + len(f.locals) - 1)
}

func (f *Func) op(b ...byte) *Func   { f.body = append(f.body, b...); return f }
func (f *Func) u32(v uint32) *Func   { f.body = appendU32(f.body, v); return f }
func (f *Func) simd(op uint32) *Func { return f.op(0xFD).u32(op) }

// memarg appends a memory argument: alignment exponent and offset.
func (f *Func) memarg(align, offset uint32) *Func { return f.u32(align).u32(offset) }

// Block starts a block with no result.
func (f *Func) Block() *Func { return f.op(0x02, 0x40) }

// Loop starts a loop with no result.
func (f *Func) Loop() *Func { return f.op(0x03, 0x40) }

// End ends a block, a loop or the function's body.
func (f *Func) End() *Func { return f.op(0x0B) }

// Br branches to the enclosing label depth.
func (f *Func) Br(depth uint32) *Func { return f.op(0x0C).u32(depth) }

// BrIf branches to label depth when the i32 on the stack is not zero.
func (f *Func) BrIf(depth uint32) *Func { return f.op(0x0D).u32(depth) }

// LocalGet pushes local i.
func (f *Func) LocalGet(i uint32) *Func { return f.op(0x20).u32(i) }

// LocalSet pops into local i.
func (f *Func) LocalSet(i uint32) *Func { return f.op(0x21).u32(i) }

// LocalTee stores the top of the stack in local i, keeping it.
func (f *Func) LocalTee(i uint32) *Func { return f.op(0x22).u32(i) }

// I32Const pushes v.
func (f *Func) I32Const(v int32) *Func { f.op(0x41); f.body = appendS32(f.body, v); return f }

// I32Add, I32Sub, I32Mul and I32Shl are the i32 arithmetic instructions.
func (f *Func) I32Add() *Func { return f.op(0x6A) }

// I32Sub subtracts.
func (f *Func) I32Sub() *Func { return f.op(0x6B) }

// I32Mul multiplies.
func (f *Func) I32Mul() *Func { return f.op(0x6C) }

// I32Shl shifts left.
func (f *Func) I32Shl() *Func { return f.op(0x74) }

// I32LtU compares unsigned: 1 when a < b.
func (f *Func) I32LtU() *Func { return f.op(0x49) }

// I32GeU compares unsigned: 1 when a >= b.
func (f *Func) I32GeU() *Func { return f.op(0x4F) }

// I32GtU compares unsigned: 1 when a > b.
func (f *Func) I32GtU() *Func { return f.op(0x4B) }

// F32Add adds two f32.
func (f *Func) F32Add() *Func { return f.op(0x92) }

// F32Store stores an f32 at the address on the stack plus offset.
func (f *Func) F32Store(offset uint32) *Func { return f.op(0x38).memarg(2, offset) }

// V128Load loads 16 bytes from the address on the stack plus offset.
func (f *Func) V128Load(offset uint32) *Func { return f.simd(0x00).memarg(4, offset) }

// F32x4Splat makes a vector of four copies of an f32.
func (f *Func) F32x4Splat() *Func { return f.simd(0x13) }

// F32x4ExtractLane pushes lane l of a vector.
func (f *Func) F32x4ExtractLane(l byte) *Func { return f.simd(0x1F).op(l) }

// F32x4Add adds lane-wise.
func (f *Func) F32x4Add() *Func { return f.simd(0xE4) }

// F32x4Mul multiplies lane-wise.
func (f *Func) F32x4Mul() *Func { return f.simd(0xE6) }

// F32Const pushes v's bits as an f32 constant.
func (f *Func) F32Const(bits uint32) *Func {
	return f.op(0x43, byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24))
}

// Module returns the binary module exporting a memory named memory (min
// pages of 64 KiB, growable) and funcs under their names.
func Module(memory string, min uint32, funcs ...*Func) []byte {
	out := []byte{0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00}
	// Types: one per function.
	var types []byte
	types = appendU32(types, uint32(len(funcs)))
	for _, f := range funcs {
		types = append(types, 0x60)
		types = appendVec(types, f.Params)
		types = appendVec(types, f.Results)
	}
	out = section(out, 1, types)
	var fn []byte
	fn = appendU32(fn, uint32(len(funcs)))
	for i := range funcs {
		fn = appendU32(fn, uint32(i))
	}
	out = section(out, 3, fn)
	mem := appendU32(nil, 1)
	mem = append(mem, 0x00)
	mem = appendU32(mem, min)
	out = section(out, 5, mem)
	var ex []byte
	ex = appendU32(ex, uint32(len(funcs)+1))
	ex = appendName(ex, memory)
	ex = append(ex, 0x02)
	ex = appendU32(ex, 0)
	for i, f := range funcs {
		ex = appendName(ex, f.Name)
		ex = append(ex, 0x00)
		ex = appendU32(ex, uint32(i))
	}
	out = section(out, 7, ex)
	var code []byte
	code = appendU32(code, uint32(len(funcs)))
	for _, f := range funcs {
		var body []byte
		// Locals in runs of one type.
		var runs [][2]uint32
		for _, t := range f.locals {
			if n := len(runs); n > 0 && runs[n-1][1] == uint32(t) {
				runs[n-1][0]++
			} else {
				runs = append(runs, [2]uint32{1, uint32(t)})
			}
		}
		body = appendU32(body, uint32(len(runs)))
		for _, r := range runs {
			body = appendU32(body, r[0])
			body = append(body, byte(r[1]))
		}
		body = append(body, f.body...)
		code = appendU32(code, uint32(len(body)))
		code = append(code, body...)
	}
	return section(out, 10, code)
}

func section(out []byte, id byte, content []byte) []byte {
	out = append(out, id)
	out = appendU32(out, uint32(len(content)))
	return append(out, content...)
}

func appendVec(b []byte, ts []ValType) []byte {
	b = appendU32(b, uint32(len(ts)))
	for _, t := range ts {
		b = append(b, byte(t))
	}
	return b
}

func appendName(b []byte, s string) []byte {
	b = appendU32(b, uint32(len(s)))
	return append(b, s...)
}

// appendU32 appends v in unsigned LEB128.
func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7F)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// appendS32 appends v in signed LEB128.
func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7F)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
