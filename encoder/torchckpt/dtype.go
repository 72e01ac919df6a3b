package torchckpt

import "fmt"

// DType is a PyTorch element type, by torch's name for it ("float32").
type DType string

// The element types of torch's storage classes.
const (
	Float32    DType = "float32"
	Float16    DType = "float16"
	BFloat16   DType = "bfloat16"
	Float64    DType = "float64"
	Int64      DType = "int64"
	Int32      DType = "int32"
	Int16      DType = "int16"
	Int8       DType = "int8"
	Uint8      DType = "uint8"
	Bool       DType = "bool"
	Complex64  DType = "complex64"
	Complex128 DType = "complex128"
	QInt8      DType = "qint8"
	QUInt8     DType = "quint8"
	QInt32     DType = "qint32"
	QUInt4x2   DType = "quint4x2"
	QUInt2x4   DType = "quint2x4"
)

// storageTypes maps torch's storage classes (torch.FloatStorage, ...) to
// their element types: the only classes besides allowedGlobals a
// checkpoint may name. torch.UntypedStorage holds bytes.
var storageTypes = map[string]DType{
	"FloatStorage":         Float32,
	"HalfStorage":          Float16,
	"BFloat16Storage":      BFloat16,
	"DoubleStorage":        Float64,
	"LongStorage":          Int64,
	"IntStorage":           Int32,
	"ShortStorage":         Int16,
	"CharStorage":          Int8,
	"ByteStorage":          Uint8,
	"UntypedStorage":       Uint8,
	"BoolStorage":          Bool,
	"ComplexFloatStorage":  Complex64,
	"ComplexDoubleStorage": Complex128,
	"QInt8Storage":         QInt8,
	"QUInt8Storage":        QUInt8,
	"QInt32Storage":        QInt32,
	"QUInt4x2Storage":      QUInt4x2,
	"QUInt2x4Storage":      QUInt2x4,
}

var dtypeSizes = map[DType]int64{
	Float32: 4, Float16: 2, BFloat16: 2, Float64: 8,
	Int64: 8, Int32: 4, Int16: 2, Int8: 1, Uint8: 1, Bool: 1,
	Complex64: 8, Complex128: 16, QInt8: 1, QUInt8: 1, QInt32: 4, QUInt4x2: 1, QUInt2x4: 1,
}

// Size returns the size in bytes of one element, or 0 for an unknown
// dtype.
func (d DType) Size() int64 { return dtypeSizes[d] }

// Float reports whether Read converts tensors of this dtype to float32:
// float32, float16, bfloat16 and float64 (rounded to nearest).
func (d DType) Float() bool { return d == Float32 || d == Float16 || d == BFloat16 || d == Float64 }

// storage is one storage of a checkpoint, as its persistent ids describe
// it: the root storage whose bytes the file holds under key, or (the
// legacy format's views) a range of one.
type storage struct {
	key   string
	dtype DType
	numel int64 // elements
	// viewOf, when not nil, is the root storage this one is a view of,
	// from element viewOffset on.
	viewOf     *storage
	viewOffset int64
	// dataOff is the file offset of a root storage's bytes once the
	// format has found them (-1 before).
	dataOff int64
}

// root returns the root storage of s and s's first element in it.
func (s *storage) root() (*storage, int64) {
	if s.viewOf != nil {
		return s.viewOf, s.viewOffset
	}
	return s, 0
}

// maxDims bounds a tensor's rank.
const maxDims = 64

// tensorValue is a tensor the pickle rebuilt: a strided view of a
// storage.
type tensorValue struct {
	st     *storage
	offset int64 // in elements of st
	shape  []int
	stride []int64
	numel  int64
}

// newTensorValue checks _rebuild_tensor's (storage, storage_offset,
// size, stride) and returns the tensor: every element it addresses lies
// inside the storage.
func newTensorValue(args tuple) (*tensorValue, error) {
	st, ok := args[0].(*storage)
	if !ok {
		return nil, fmt.Errorf("the storage is a %s, expected a storage (persistent id)", typeName(args[0]))
	}
	off, ok := args[1].(int64)
	if !ok || off < 0 {
		return nil, fmt.Errorf("storage_offset %v is not a non-negative int", args[1])
	}
	size, err := intTuple(args[2], "size")
	if err != nil {
		return nil, err
	}
	stride, err := intTuple(args[3], "stride")
	if err != nil {
		return nil, err
	}
	if len(size) != len(stride) {
		return nil, fmt.Errorf("size %v and stride %v differ in length", size, stride)
	}
	t := &tensorValue{st: st, offset: off, shape: make([]int, len(size)), stride: stride, numel: 1}
	// numel is capped so that it cannot overflow; a tensor larger than
	// its file allows is refused when read.
	const cap = 1 << 50
	for i, d := range size {
		t.shape[i] = int(d)
		if d != 0 && t.numel > cap/d {
			return nil, fmt.Errorf("size %v is too large", size)
		}
		t.numel *= d
	}
	if t.numel == 0 {
		return t, nil
	}
	bad := fmt.Errorf("size %v with stride %v at storage_offset %d addresses elements past the storage's %d", size, stride, off, st.numel)
	if off >= st.numel {
		return nil, bad
	}
	last := off // the last element addressed
	for i, d := range size {
		if d <= 1 || stride[i] == 0 {
			continue
		}
		if d-1 > (st.numel-1-last)/stride[i] {
			return nil, bad
		}
		last += (d - 1) * stride[i]
	}
	return t, nil
}

// intTuple returns v as non-negative ints: a tensor's size or stride.
func intTuple(v any, what string) ([]int64, error) {
	t, ok := v.(tuple)
	if !ok {
		return nil, fmt.Errorf("%s is a %s, expected a tuple of ints", what, typeName(v))
	}
	if len(t) > maxDims {
		return nil, fmt.Errorf("%s has %d dimensions, more than %d", what, len(t), maxDims)
	}
	out := make([]int64, len(t))
	for i, x := range t {
		n, ok := x.(int64)
		if !ok || n < 0 {
			return nil, fmt.Errorf("%s %v: element %d is not a non-negative int", what, v, i)
		}
		out[i] = n
	}
	return out, nil
}

// contiguous reports whether t's elements are its storage's, in
// row-major order, from its offset on.
func (t *tensorValue) contiguous() bool {
	want := int64(1)
	for i := len(t.shape) - 1; i >= 0; i-- {
		if t.shape[i] != 1 && t.stride[i] != want {
			return false
		}
		want *= int64(t.shape[i])
	}
	return true
}

// span returns the number of storage elements from t's offset to the
// last element it addresses, inclusive (0 for an empty tensor).
func (t *tensorValue) span() int64 {
	if t.numel == 0 {
		return 0
	}
	n := int64(1)
	for i, d := range t.shape {
		n += int64(d-1) * t.stride[i]
	}
	return n
}
