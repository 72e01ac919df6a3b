package wasmenc

import (
	"bytes"
	"testing"
)

func TestLEB128(t *testing.T) {
	for _, tc := range []struct {
		u    uint32
		want []byte
	}{
		{0, []byte{0}}, {127, []byte{0x7F}}, {128, []byte{0x80, 0x01}}, {624485, []byte{0xE5, 0x8E, 0x26}},
		{0xFFFFFFFF, []byte{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}},
	} {
		if got := appendU32(nil, tc.u); !bytes.Equal(got, tc.want) {
			t.Errorf("appendU32(%d) = % x, want % x", tc.u, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s    int32
		want []byte
	}{
		{0, []byte{0}}, {63, []byte{0x3F}}, {64, []byte{0xC0, 0x00}}, {-1, []byte{0x7F}}, {-64, []byte{0x40}},
		{-65, []byte{0xBF, 0x7F}}, {-123456, []byte{0xC0, 0xBB, 0x78}}, {-2147483648, []byte{0x80, 0x80, 0x80, 0x80, 0x78}},
	} {
		if got := appendS32(nil, tc.s); !bytes.Equal(got, tc.want) {
			t.Errorf("appendS32(%d) = % x, want % x", tc.s, got, tc.want)
		}
	}
}

// TestModule checks the layout of a module with one function: the
// sections in order, the export of the memory and the function, the
// locals grouped by type and the body as written.
func TestModule(t *testing.T) {
	f := &Func{Name: "add", Params: []ValType{I32, I32}, Results: []ValType{I32}}
	a, b := f.Local(I32), f.Local(F32)
	if a != 2 || b != 3 {
		t.Fatalf("locals %d, %d, want 2, 3", a, b)
	}
	f.LocalGet(0).LocalGet(1).I32Add().End()
	got := Module("mem", 1, f)
	want := []byte{
		0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00,
		1, 7, 1, 0x60, 2, 0x7F, 0x7F, 1, 0x7F, // type section
		3, 2, 1, 0, // function section
		5, 3, 1, 0x00, 1, // memory section: min 1, no max
		7, 13, 2, 3, 'm', 'e', 'm', 0x02, 0, 3, 'a', 'd', 'd', 0x00, 0, // exports
		10, 13, 1, 11, 2, 1, 0x7F, 1, 0x7D, 0x20, 0, 0x20, 1, 0x6A, 0x0B, // code
	}
	if !bytes.Equal(got, want) {
		t.Errorf("module\n% x\nwant\n% x", got, want)
	}
}
