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

func TestHalfToFloat(t *testing.T) {
	for _, c := range []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x7bff, 65504}, {0x0001, 5.9604645e-08},
		{0x3555, 0.33325195}, {0x7c00, float32(math.Inf(1))}, {0xfc00, float32(math.Inf(-1))},
	} {
		if got := ToFloat32(c.h); got != c.want {
			t.Errorf("ToFloat32(%#04x) = %v, want %v", c.h, got, c.want)
		}
	}
	if v := ToFloat32(0x7e00); v == v {
		t.Errorf("ToFloat32(NaN) = %v", v)
	}
}

func TestFloatToHalf(t *testing.T) {
	// Every half but NaNs survives the round trip exactly.
	for h := 0; h < 1<<16; h++ {
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			continue
		}
		if got := FromFloat32(ToFloat32(uint16(h))); got != uint16(h) {
			t.Fatalf("FromFloat32(ToFloat32(%#04x)) = %#04x", h, got)
		}
	}
	for _, tt := range []struct {
		f    float32
		want uint16
	}{
		{1 + 1.0/2048, 0x3c00},        // a tie, to the even 1.0
		{1 + 3.0/2048, 0x3c02},        // a tie, to the even 1+2/1024
		{1 + 1.0/2048 + 1e-7, 0x3c01}, // above the tie
		{65504, 0x7bff},               // the largest half
		{65519.99, 0x7bff},            // below the midpoint to infinity
		{65520, 0x7c00},               // the midpoint, to the even infinity
		{-1e30, 0xfc00},               // beyond the range
		{5.9604645e-08, 0x0001},       // the smallest subnormal
		{2.9802322e-08, 0x0000},       // half of it: a tie, to the even zero
		{2.9802326e-08, 0x0001},       // just above
		{1023.5 / (1 << 24), 0x0400},  // between the largest subnormal and the smallest normal: a tie, to the even normal
		{1023.0 / (1 << 24), 0x03ff},  // the largest subnormal
	} {
		if got := FromFloat32(tt.f); got != tt.want {
			t.Errorf("FromFloat32(%g) = %#04x, want %#04x", tt.f, got, tt.want)
		}
	}
	if got := FromFloat32(float32(math.NaN())); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
		t.Errorf("FromFloat32(NaN) = %#04x, not a NaN", got)
	}
}
