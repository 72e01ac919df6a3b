package float16

import (
	"math"
	"testing"
)

// TestRoundTrip checks every binary16 bit pattern: converting to float32
// and back gives the same bits (NaNs: a NaN), and ToFloat32 agrees with
// the value the bits denote.
func TestRoundTrip(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		f := ToFloat32(h)
		exp, mant := (h>>10)&0x1f, float64(h&0x3ff)
		var want float64
		switch {
		case exp == 0x1f && mant != 0:
			if !math.IsNaN(float64(f)) {
				t.Fatalf("%#04x: %v, want NaN", h, f)
			}
			if back := FromFloat32(f); back&0x7c00 != 0x7c00 || back&0x3ff == 0 {
				t.Fatalf("%#04x: NaN back to %#04x, not a NaN", h, back)
			}
			continue
		case exp == 0x1f:
			want = math.Inf(1)
		case exp == 0:
			want = mant * math.Pow(2, -24)
		default:
			want = (1 + mant/1024) * math.Pow(2, float64(exp)-15)
		}
		if h&0x8000 != 0 {
			want = -want
		}
		if float64(f) != want {
			t.Fatalf("%#04x: %v, want %v", h, f, want)
		}
		if back := FromFloat32(f); back != h {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, back)
		}
	}
}

// TestRounding checks ties to even, overflow and underflow.
func TestRounding(t *testing.T) {
	for _, c := range []struct {
		f  float32
		h  uint16
		ok bool
	}{
		{1, 0x3c00, true},
		{1 + 1.0/2048, 0x3c00, true},              // a tie: to even (down)
		{1 + 3.0/2048, 0x3c02, true},              // a tie: to even (up)
		{65504, 0x7bff, true},                     // the largest half
		{65520, 0x7c00, false},                    // rounds to infinity
		{float32(math.Inf(-1)), 0xfc00, true},     // infinity stays
		{float32(math.Pow(2, -25)), 0x0000, true}, // half the smallest subnormal: a tie to even zero
		{float32(math.Pow(2, -24)), 0x0001, true}, // the smallest subnormal
		{-0.0, 0x0000, true},
		{float32(math.Copysign(0, -1)), 0x8000, true},
	} {
		if h, ok := Round(c.f); h != c.h || ok != c.ok {
			t.Errorf("Round(%v) = %#04x, %v; want %#04x, %v", c.f, h, ok, c.h, c.ok)
		}
	}
	if got := BFloat16ToFloat32(0x3f80); got != 1 {
		t.Errorf("BFloat16ToFloat32(0x3f80) = %v, want 1", got)
	}
}
