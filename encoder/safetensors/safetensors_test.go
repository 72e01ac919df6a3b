package safetensors

import (
	"bytes"
	"encoding/binary"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/internal/float16"
	"github.com/dreval/dreval/internal/sharedtest"
)

// build assembles a safetensors file from a raw JSON header and data.
func build(header string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

func read(b []byte) (*File, error) {
	return Read(bytes.NewReader(b), int64(len(b)), "test.safetensors")
}

func TestHalfRoundTripsEveryValue(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		f := float16.ToFloat32(h)
		if f != f { // NaN
			if g := float16.ToFloat32(float16.FromFloat32(f)); g == g {
				t.Fatalf("NaN %#04x came back as %v", h, g)
			}
			continue
		}
		if got := float16.FromFloat32(f); got != h {
			t.Fatalf("half %#04x -> %v -> %#04x", h, f, got)
		}
	}
}

func TestFloat32ToHalfRounds(t *testing.T) {
	for _, c := range []struct {
		in   float32
		want float32
	}{
		{1, 1},
		{65504, 65504},
		{1e6, float32(math.Inf(1))},
		{-1e6, float32(math.Inf(-1))},
		{1 + 1.0/2048, 1},            // halfway, rounds to even (down)
		{1 + 3.0/2048, 1 + 4.0/2048}, // halfway, rounds to even (up)
		{5.960464477539063e-08, 5.960464477539063e-08}, // smallest subnormal
		{1e-9, 0},
	} {
		if got := float16.ToFloat32(float16.FromFloat32(c.in)); got != c.want {
			t.Errorf("%v -> %v, want %v", c.in, got, c.want)
		}
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	s := tensor.Set{
		"a.weight": {Shape: []int{2, 3}, Data: []float32{1, -2, 0.5, 3.25, 0, -0.125}},
		"b.bias":   {Shape: []int{3}, Data: []float32{7, 8, 9}},
		"scalar":   {Shape: []int{}, Data: []float32{42}},
		"empty":    {Shape: []int{0, 4}, Data: []float32{}},
	}
	for _, dt := range []DType{F32, F16} {
		var b bytes.Buffer
		if err := Write(&b, s, dt, map[string]string{"format": "pt"}); err != nil {
			t.Fatal(err)
		}
		f, err := read(b.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		if f.Metadata["format"] != "pt" {
			t.Errorf("%s: metadata %v", dt, f.Metadata)
		}
		if len(f.Tensors) != len(s) {
			t.Fatalf("%s: read %d tensors, wrote %d", dt, len(f.Tensors), len(s))
		}
		for name, want := range s {
			got, err := f.Tensors.Get(name, want.Shape...)
			if err != nil {
				t.Fatalf("%s: %v", dt, err)
			}
			for i := range want.Data {
				if got.Data[i] != want.Data[i] {
					t.Errorf("%s: %s[%d] = %v, want %v", dt, name, i, got.Data[i], want.Data[i])
				}
			}
		}
	}
}

func TestWriteRejectsBadInput(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, tensor.Set{}, BF16, nil); err == nil {
		t.Error("BF16 writing accepted")
	}
	bad := tensor.Set{"x": {Shape: []int{2, 2}, Data: []float32{1}}}
	if err := Write(&b, bad, F32, nil); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("misshapen tensor: %v", err)
	}
}

func TestReadBF16AndSkipsIntegers(t *testing.T) {
	data := []byte{0x80, 0x3f, 0x00, 0xc0} // bf16 1.0, -2.0
	data = append(data, 1, 0, 0, 0, 0, 0, 0, 0)
	f, err := read(build(`{"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},"ids":{"dtype":"I64","shape":[1],"data_offsets":[4,12]}}`, data))
	if err != nil {
		t.Fatal(err)
	}
	w, err := f.Tensors.Get("w", 2)
	if err != nil {
		t.Fatal(err)
	}
	if w.Data[0] != 1 || w.Data[1] != -2 {
		t.Errorf("bf16 read as %v", w.Data)
	}
	if len(f.Skipped) != 1 || f.Skipped[0] != "ids (I64)" {
		t.Errorf("Skipped = %v", f.Skipped)
	}
}

func TestReadErrors(t *testing.T) {
	f32x2 := make([]byte, 8)
	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"short", []byte{1, 2, 3}, "too short"},
		{"header past end", build(`{}`, nil)[:9], "runs past the end"},
		{"huge header", append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, 0), "exceeds the limit"},
		{"not json", build(`[1,2]`, nil), "not a JSON object"},
		{"unknown dtype", build(`{"w":{"dtype":"F7","shape":[2],"data_offsets":[0,8]}}`, f32x2), `tensor "w": unknown dtype "F7"`},
		{"truncated data", build(`{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, f32x2), `tensor "w": data_offsets [0, 16] run past the end`},
		{"size mismatch", build(`{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, f32x2), `tensor "w": shape [3] of F32 needs 12 bytes`},
		{"negative dim", build(`{"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, f32x2), "negative dimension"},
		{"bad offsets", build(`{"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}}`, f32x2), "bad data_offsets"},
		{"one offset", build(`{"w":{"dtype":"F32","shape":[2],"data_offsets":[0]}}`, f32x2), "must hold 2 numbers"},
		{"overlap", build(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, f32x2), "overlap"},
		{"bad metadata", build(`{"__metadata__":{"a":1}}`, nil), "__metadata__"},
		{"huge shape", build(`{"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, f32x2), "too large"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := read(c.file)
			if err == nil {
				t.Fatalf("no error, want one containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "test.safetensors") {
				t.Fatalf("error %q does not contain %q and the file name", err, c.want)
			}
		})
	}
}

func TestReadMiniLM(t *testing.T) {
	dir := sharedtest.ModelDir(t, "minilm")
	f, err := ReadFile(filepath.Join(dir, "model.fp16.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Tensors.Get("embeddings.word_embeddings.weight", 30522, 384); err != nil {
		t.Error(err)
	}
	if _, err := f.Tensors.Get("encoder.layer.5.output.dense.weight", 384, 1536); err != nil {
		t.Error(err)
	}
	if len(f.Skipped) != 1 || f.Skipped[0] != "embeddings.position_ids (I64)" {
		t.Errorf("Skipped = %v", f.Skipped)
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	Write(&b, tensor.Set{"a": {Shape: []int{2, 2}, Data: []float32{1, 2, 3, 4}}, "b": {Shape: []int{1}, Data: []float32{5}}}, F16, map[string]string{"k": "v"})
	f.Add(b.Bytes())
	f.Add(build(`{"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4}))
	f.Add(build(`{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4}))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := read(data)
		if err != nil {
			return
		}
		for name, tt := range file.Tensors {
			if len(tt.Data) != tensor.Numel(tt.Shape) {
				t.Fatalf("tensor %q: %d values for shape %v", name, len(tt.Data), tt.Shape)
			}
		}
		// Whatever was read must survive a write and a second read.
		var out bytes.Buffer
		if err := Write(&out, file.Tensors, F32, file.Metadata); err != nil {
			t.Fatal(err)
		}
		again, err := read(out.Bytes())
		if err != nil {
			t.Fatalf("rewritten file does not read: %v", err)
		}
		if len(again.Tensors) != len(file.Tensors) {
			t.Fatalf("rewritten file has %d tensors, want %d", len(again.Tensors), len(file.Tensors))
		}
	})
}

// f32Table is a safetensors file of one F32 tensor "w" of the given shape,
// with bit patterns that a decoder could change (signed zeros, subnormals,
// infinities, NaNs with payloads) among pseudo-random ones.
func f32Table(rows, cols int) ([]byte, []uint32) {
	special := []uint32{0, 0x80000000, 1, 0x807fffff, 0x7f800000, 0xff800000, 0x7fc00001, 0xffbfffff, 0x3f800000}
	bits := make([]uint32, rows*cols)
	x := uint32(2463534242)
	for i := range bits {
		if i < len(special) {
			bits[i] = special[i]
			continue
		}
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		bits[i] = x
	}
	data := make([]byte, 4*len(bits))
	for i, v := range bits {
		binary.LittleEndian.PutUint32(data[4*i:], v)
	}
	header := `{"w":{"dtype":"F32","shape":[` + strconv.Itoa(rows) + `,` + strconv.Itoa(cols) + `],"data_offsets":[0,` + strconv.Itoa(len(data)) + `]}}`
	return build(header, data), bits
}

// TestReadF32KeepsEveryBit: an F32 tensor reads to the same bits whether
// it is read in bulk (little-endian machines) or element by element (the
// path big-endian machines take), including NaN payloads and signed zeros,
// and a truncated file is refused either way.
func TestReadF32KeepsEveryBit(t *testing.T) {
	file, bits := f32Table(7, 333)
	defer func(le bool) { littleEndian = le }(littleEndian)
	for _, le := range []bool{true, false} {
		littleEndian = le
		f, err := read(file)
		if err != nil {
			t.Fatalf("little-endian path %t: %v", le, err)
		}
		w := f.Tensors["w"]
		if w == nil || len(w.Data) != len(bits) {
			t.Fatalf("little-endian path %t: tensor w is %+v", le, w)
		}
		for i, v := range w.Data {
			if got := math.Float32bits(v); got != bits[i] {
				t.Fatalf("little-endian path %t: element %d has bits %#08x, want %#08x", le, i, got, bits[i])
			}
		}
		// A reader that ends early (the header's size is a lie).
		short := file[:len(file)-3]
		if _, err := Read(bytes.NewReader(short), int64(len(file)), "short.safetensors"); err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
			t.Errorf("little-endian path %t: truncated reader gave %v, want unexpected EOF", le, err)
		}
	}
}

// BenchmarkReadF32 reads a static model's table (30522 x 256 F32, 31 MB)
// from memory: "bulk" as little-endian machines read it, "per-element" as
// every machine did before (and big-endian ones still do).
func BenchmarkReadF32(b *testing.B) {
	file, _ := f32Table(30522, 256)
	defer func(le bool) { littleEndian = le }(littleEndian)
	for _, c := range []struct {
		name string
		le   bool
	}{{"bulk", littleEndian}, {"per-element", false}} {
		b.Run(c.name, func(b *testing.B) {
			littleEndian = c.le
			b.SetBytes(int64(len(file)))
			for b.Loop() {
				if _, err := read(file); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// f16Tensor is a safetensors file of one F16 tensor holding every binary16
// bit pattern, reps times over.
func f16Tensor(reps int) ([]byte, []uint16) {
	halves := make([]uint16, reps<<16)
	for i := range halves {
		halves[i] = uint16(i)
	}
	data := make([]byte, 2*len(halves))
	for i, h := range halves {
		binary.LittleEndian.PutUint16(data[2*i:], h)
	}
	header := `{"w":{"dtype":"F16","shape":[` + strconv.Itoa(len(halves)) + `],"data_offsets":[0,` + strconv.Itoa(len(data)) + `]}}`
	return build(header, data), halves
}

// TestReadF16ByTable: a large F16 tensor, converted by table (the bytes
// read as uint16s in place on little-endian machines, decoded one by one
// on others), reads to the bits HalfToFloat32 gives for every binary16
// value (NaN payloads, signed zeros and subnormals included), as a small
// one, converted element by element, does.
func TestReadF16ByTable(t *testing.T) {
	defer func(le bool) { littleEndian = le }(littleEndian)
	for _, le := range []bool{littleEndian, false} {
		littleEndian = le
		for _, reps := range []int{1, 3} {
			file, halves := f16Tensor(reps)
			f, err := Read(bytes.NewReader(file), int64(len(file)), "f16.safetensors")
			if err != nil {
				t.Fatal(err)
			}
			got := f.Tensors["w"].Data
			for i, h := range halves {
				if g, w := math.Float32bits(got[i]), math.Float32bits(float16.ToFloat32(h)); g != w {
					t.Fatalf("little-endian path %t, %d elements: element %d (%#04x) reads as %#08x, want %#08x", le, len(halves), i, h, g, w)
				}
			}
		}
	}
	small := build(`{"w":{"dtype":"F16","shape":[3],"data_offsets":[0,6]}}`, []byte{0x01, 0x00, 0x01, 0x7e, 0x00, 0x80})
	f, err := Read(bytes.NewReader(small), int64(len(small)), "small.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range []uint16{0x0001, 0x7e01, 0x8000} {
		if g, w := math.Float32bits(f.Tensors["w"].Data[i]), math.Float32bits(float16.ToFloat32(h)); g != w {
			t.Errorf("small tensor: element %d reads as %#08x, want %#08x", i, g, w)
		}
	}
}

// BenchmarkReadF16 reads a table of the static model's size in F16
// (30522 x 256, 15 MB) from memory.
func BenchmarkReadF16(b *testing.B) {
	halves := make([]byte, 2*30522*256)
	x := uint32(2463534242)
	for i := 0; i < len(halves); i += 2 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		binary.LittleEndian.PutUint16(halves[i:], uint16(x))
	}
	file := build(`{"w":{"dtype":"F16","shape":[30522,256],"data_offsets":[0,`+strconv.Itoa(len(halves))+`]}}`, halves)
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(file), int64(len(file)), "f16.safetensors"); err != nil {
			b.Fatal(err)
		}
	}
}
