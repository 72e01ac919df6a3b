//go:build js && wasm

// Package jsvalue moves values between Go and JavaScript under js/wasm:
// promises awaited, bytes copied, and the trees of plain values that
// messages are (package browser's Encode and DecodeRequest) converted to
// and from JavaScript objects.
package jsvalue

import (
	"errors"
	"syscall/js"
)

// Await waits for promise p to settle: its value, or its rejection as an
// error (the Error's message). A value that is no promise is its own
// value. The calling goroutine blocks; the JavaScript event loop runs.
func Await(p js.Value) (js.Value, error) {
	if p.Type() != js.TypeObject || p.Get("then").Type() != js.TypeFunction {
		return p, nil
	}
	ch := make(chan func() (js.Value, error), 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- func() (js.Value, error) { return args[0], nil }
		return nil
	})
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "rejected"
		switch a := args[0]; {
		case a.Type() == js.TypeObject && a.Get("message").Type() == js.TypeString:
			msg = a.Get("message").String()
		case a.Type() == js.TypeString:
			msg = a.String()
		case a.Type() == js.TypeObject:
			msg = a.Call("toString").String()
		}
		ch <- func() (js.Value, error) { return js.Value{}, errors.New(msg) }
		return nil
	})
	defer then.Release()
	defer catch.Release()
	p.Call("then", then, catch)
	return (<-ch)()
}

// Uint8Array returns a Uint8Array of buf (an ArrayBuffer: no copy).
func Uint8Array(buf js.Value) js.Value { return js.Global().Get("Uint8Array").New(buf) }

// Bytes copies Uint8Array v into Go.
func Bytes(v js.Value) []byte {
	b := make([]byte, v.Length())
	js.CopyBytesToGo(b, v)
	return b
}

// ToJS returns tree x as a JavaScript value: a map[string]any an object,
// a []any an array, a []byte a new Uint8Array, the rest as js.ValueOf
// makes it.
func ToJS(x any) js.Value {
	switch v := x.(type) {
	case map[string]any:
		o := js.Global().Get("Object").New()
		for k, e := range v {
			o.Set(k, ToJS(e))
		}
		return o
	case []any:
		a := js.Global().Get("Array").New(len(v))
		for i, e := range v {
			a.SetIndex(i, ToJS(e))
		}
		return a
	case []byte:
		a := js.Global().Get("Uint8Array").New(len(v))
		js.CopyBytesToJS(a, v)
		return a
	}
	return js.ValueOf(x)
}

// FromJS returns JavaScript value v as a tree: an object a
// map[string]any, an array a []any, a Uint8Array or an ArrayBuffer a
// []byte, a number a float64, null and undefined nil.
func FromJS(v js.Value) any {
	switch v.Type() {
	case js.TypeString:
		return v.String()
	case js.TypeNumber:
		return v.Float()
	case js.TypeBoolean:
		return v.Bool()
	case js.TypeObject:
		switch {
		case v.InstanceOf(js.Global().Get("Uint8Array")):
			return Bytes(v)
		case v.InstanceOf(js.Global().Get("ArrayBuffer")):
			return Bytes(Uint8Array(v))
		case js.Global().Get("Array").Call("isArray", v).Bool():
			out := make([]any, v.Length())
			for i := range out {
				out[i] = FromJS(v.Index(i))
			}
			return out
		}
		keys := js.Global().Get("Object").Call("keys", v)
		out := make(map[string]any, keys.Length())
		for i := range keys.Length() {
			k := keys.Index(i).String()
			out[k] = FromJS(v.Get(k))
		}
		return out
	}
	return nil
}
