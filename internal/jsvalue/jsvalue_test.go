//go:build js && wasm

package jsvalue

import (
	"reflect"
	"syscall/js"
	"testing"
)

// TestRoundTrip: a tree crosses to JavaScript and back as itself (its
// numbers float64), an ArrayBuffer comes back as bytes, and a rejected
// promise is an error with the Error's message.
func TestRoundTrip(t *testing.T) {
	tree := map[string]any{"s": "é", "n": 2.5, "b": true, "z": nil, "bin": []byte{1, 2},
		"list": []any{"a", 1.0, map[string]any{"deep": []byte{}}}}
	if got := FromJS(ToJS(tree)); !reflect.DeepEqual(got, tree) {
		t.Errorf("back %#v, want %#v", got, tree)
	}
	if got := FromJS(ToJS([]byte{7}).Get("buffer")); !reflect.DeepEqual(got, []byte{7}) {
		t.Errorf("an ArrayBuffer: %#v", got)
	}
	reject := js.Global().Get("Promise").Call("reject", js.Global().Get("Error").New("no"))
	if _, err := Await(reject); err == nil || err.Error() != "no" {
		t.Errorf("a rejection: %v", err)
	}
}
