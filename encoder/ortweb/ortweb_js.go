//go:build js && wasm

package ortweb

import (
	"errors"
	"fmt"
	"sync"
	"syscall/js"
	"time"

	"github.com/dreval/dreval/internal/jsvalue"
)

// Runtime is onnxruntime-web: the namespace object its scripts define
// (the global ort of ort.wasm.min.js or ort.webgpu.min.js in a worker,
// what require returns under node), with its environment already set
// (ort.env.wasm: the WebAssembly binary, the number of threads).
type Runtime struct {
	ort js.Value
	// EP is the execution provider sessions are created with: "wasm"
	// (WebAssembly, SIMD, threads when the page is cross-origin isolated)
	// or "webgpu".
	EP string
	// Version is onnxruntime-web's version ("1.30.0").
	Version string
}

// NewRuntime returns the runtime of the namespace object ort, creating
// sessions with the execution provider ep ("wasm" or "webgpu").
func NewRuntime(ort js.Value, ep string) (*Runtime, error) {
	if ort.IsUndefined() || ort.IsNull() || ort.Get("InferenceSession").Type() != js.TypeFunction {
		return nil, errors.New("onnxruntime-web is not loaded (no ort.InferenceSession)")
	}
	if ep != "wasm" && ep != "webgpu" {
		return nil, fmt.Errorf("execution provider %q: want wasm or webgpu", ep)
	}
	rt := &Runtime{ort: ort, EP: ep}
	if v := ort.Get("env").Get("versions").Get("web"); v.Type() == js.TypeString {
		rt.Version = v.String()
	}
	return rt, nil
}

// Threads returns the threads onnxruntime-web runs each session on: its
// ort.env.wasm.numThreads, which it sets back to 1 when the page is not
// cross-origin isolated (threads need SharedArrayBuffer). It is final
// once a session exists.
func (rt *Runtime) Threads() int {
	n := rt.ort.Get("env").Get("wasm").Get("numThreads")
	if n.Type() != js.TypeNumber || n.Int() < 1 {
		return 1
	}
	return n.Int()
}

// JS returns the graph's bytes as a JavaScript Uint8Array, each piece
// copied once.
func (g *Graph) JS() js.Value {
	u8 := js.Global().Get("Uint8Array").New(g.Size)
	off := 0
	for _, p := range g.Parts {
		js.CopyBytesToJS(u8.Call("subarray", off, off+len(p)), p)
		off += len(p)
	}
	return u8
}

// Session is one onnxruntime-web InferenceSession. Its runs are
// serialized.
type Session struct {
	rt   *Runtime
	s    js.Value
	plan *Plan
	mu   sync.Mutex
	// busy is the time spent in the session's runs, from the call to
	// the settled promise (what onnxruntime-web takes, against what the
	// batch takes in all: feeds, copies, the head).
	busy time.Duration
}

// Busy returns the time the session has spent running batches.
func (s *Session) Busy() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy
}

// Open creates a session from model, the bytes of an ONNX file (a
// Uint8Array or an ArrayBuffer), and checks its inputs and outputs
// (NewPlan). The session optimizes the graph as it opens ("all"), unless
// ONNX Runtime optimized it offline (optimized: ort.Optimize, which
// "dreval site" applies to the graph it serves): then it opens the graph
// as it is, sooner, for the same products.
func (rt *Runtime) Open(model js.Value, optimized bool) (*Session, error) {
	level := "all"
	if optimized {
		level = "disabled"
	}
	opts := map[string]any{
		"executionProviders":     []any{rt.EP},
		"graphOptimizationLevel": level,
		"logSeverityLevel":       3,
	}
	s, err := jsvalue.Await(rt.ort.Get("InferenceSession").Call("create", model, opts))
	if err != nil {
		return nil, fmt.Errorf("onnxruntime-web (%s) cannot open the graph: %w", rt.EP, err)
	}
	plan, err := NewPlan(values(s, "inputNames", "inputMetadata"), values(s, "outputNames", "outputMetadata"))
	if err != nil {
		s.Call("release")
		return nil, err
	}
	return &Session{rt: rt, s: s, plan: plan}, nil
}

// values reads a session's input or output names and what its metadata
// says of each (type, rank).
func values(s js.Value, names, meta string) []Value {
	n := s.Get(names)
	md := s.Get(meta)
	var out []Value
	for i := 0; i < n.Length(); i++ {
		v := Value{Name: n.Index(i).String(), Tensor: true, Rank: -1}
		if md.Type() == js.TypeObject && md.Length() > i {
			m := md.Index(i)
			v.Tensor = m.Get("isTensor").Truthy()
			if t := m.Get("type"); t.Type() == js.TypeString {
				v.Type = t.String()
			}
			if sh := m.Get("shape"); sh.Type() == js.TypeObject {
				v.Rank = sh.Length()
			}
		}
		out = append(out, v)
	}
	return out
}

// Plan returns how the session is fed and read.
func (s *Session) Plan() *Plan { return s.plan }

// Close releases the session.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s.IsUndefined() {
		return nil
	}
	_, err := jsvalue.Await(s.s.Call("release"))
	s.s = js.Undefined()
	return err
}

// Forward runs the session on one batch, padded as pad says, and returns
// each sequence's token vectors (len(seqs[i]) rows of dim values).
func (s *Session) Forward(seqs [][]int32, pad Padding, dim int) ([][]float32, error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	width, data := s.plan.Feeds(seqs, pad)
	feeds := map[string]any{}
	tensor := s.rt.ort.Get("Tensor")
	shape := []any{len(seqs), width}
	for i, in := range s.plan.Inputs {
		u8 := jsvalue.ToJS(data[i])
		typ, arr := "int64", "BigInt64Array"
		if in.Int32 {
			typ, arr = "int32", "Int32Array"
		}
		feeds[in.Name] = tensor.New(typ, js.Global().Get(arr).New(u8.Get("buffer")), shape)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s.IsUndefined() {
		return nil, errors.New("onnxruntime-web: the session is closed")
	}
	t0 := time.Now()
	res, err := jsvalue.Await(s.s.Call("run", feeds, []any{s.plan.Output}))
	s.busy += time.Since(t0)
	if err != nil {
		return nil, fmt.Errorf("onnxruntime-web: run on %d sequences of up to %d tokens: %w", len(seqs), width, err)
	}
	out := res.Get(s.plan.Output)
	defer out.Call("dispose")
	dims := out.Get("dims")
	if dims.Length() != 3 || dims.Index(0).Int() != len(seqs) || dims.Index(1).Int() != width || dims.Index(2).Int() != dim {
		return nil, fmt.Errorf("onnxruntime-web: %s has shape %s, want [%d %d %d]", s.plan.Output, js.Global().Get("JSON").Call("stringify", dims).String(), len(seqs), width, dim)
	}
	arr := out.Get("data")
	raw := jsvalue.Bytes(js.Global().Get("Uint8Array").New(arr.Get("buffer"), arr.Get("byteOffset"), arr.Get("byteLength")))
	lens := make([]int, len(seqs))
	for i, q := range seqs {
		lens[i] = len(q)
	}
	return s.plan.Hidden(raw, lens, width, dim)
}
