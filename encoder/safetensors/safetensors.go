// Package safetensors reads and writes the safetensors weight format
// (https://huggingface.co/docs/safetensors) into and from tensor.Set.
//
// A file is an 8-byte little-endian header length N, N bytes of JSON
// mapping each tensor name to its dtype, shape and data_offsets (relative to
// the end of the header), and the tensor data. Read validates the header
// completely before it converts anything: every dtype is known, every shape
// is non-negative, every byte range lies inside the file, matches
// shape × dtype size, and overlaps no other tensor.
//
// F32, F16 and BF16 tensors are converted to float32 as they are read,
// tensor by tensor, so the raw bytes are never held in memory beside the
// converted weights: on a little-endian machine (amd64, arm64, js/wasm) an
// F32 tensor is read straight into its float32s in one ReadAt, F16 and
// BF16 through a small buffer. Integer and boolean tensors (such
// as BERT's "embeddings.position_ids") are validated but not converted; File
// lists them in Skipped so no data disappears silently.
package safetensors

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"unsafe"

	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/internal/float16"
)

// MaxHeaderSize bounds the JSON header (100 MB, the reference
// implementation's limit), so a corrupt length cannot make Read allocate
// without bound.
const MaxHeaderSize = 100 << 20

// DType is a safetensors element type name, such as "F16".
type DType string

// The element types.
const (
	F64  DType = "F64"
	F32  DType = "F32"
	F16  DType = "F16"
	BF16 DType = "BF16"
	I64  DType = "I64"
	I32  DType = "I32"
	I16  DType = "I16"
	I8   DType = "I8"
	U64  DType = "U64"
	U32  DType = "U32"
	U16  DType = "U16"
	U8   DType = "U8"
	Bool DType = "BOOL"
)

var dtypeSizes = map[DType]int64{
	F64: 8, F32: 4, F16: 2, BF16: 2,
	I64: 8, I32: 4, I16: 2, I8: 1,
	U64: 8, U32: 4, U16: 2, U8: 1, Bool: 1,
	"F8_E4M3": 1, "F8_E5M2": 1,
}

// Size returns the size in bytes of one element, or 0 for an unknown dtype.
func (d DType) Size() int64 { return dtypeSizes[d] }

// Float reports whether Read converts tensors of this dtype to float32.
func (d DType) Float() bool { return d == F32 || d == F16 || d == BF16 }

// Entry describes one tensor in a file's header.
type Entry struct {
	Name  string
	DType DType
	Shape []int
	// Begin and End are byte offsets relative to the start of the data
	// section (just after the header).
	Begin, End int64
}

// Header is a validated safetensors header.
type Header struct {
	Entries  []Entry // sorted by Begin
	Metadata map[string]string
	// DataStart is the absolute file offset of the data section.
	DataStart int64
}

// File is the content of a safetensors file.
type File struct {
	Tensors  tensor.Set
	Metadata map[string]string
	// Skipped names the tensors whose dtype is not converted (integers,
	// booleans, F64, F8), with their dtype, for example
	// "embeddings.position_ids (I64)".
	Skipped []string
}

type rawEntry struct {
	DType       DType   `json:"dtype"`
	Shape       []int64 `json:"shape"`
	DataOffsets []int64 `json:"data_offsets"`
}

// ReadHeader reads and validates the header of a safetensors file of the
// given size. name is used in error messages (usually the path).
func ReadHeader(r io.ReaderAt, size int64, name string) (*Header, error) {
	var lenBuf [8]byte
	if size < 8 {
		return nil, fmt.Errorf("%s: file is %d bytes, too short for a safetensors header", name, size)
	}
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return nil, fmt.Errorf("%s: reading header length: %w", name, err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > MaxHeaderSize {
		return nil, fmt.Errorf("%s: header length %d exceeds the limit of %d bytes (not a safetensors file?)", name, n, MaxHeaderSize)
	}
	if int64(n) > size-8 {
		return nil, fmt.Errorf("%s: header length %d runs past the end of the %d-byte file (truncated?)", name, n, size)
	}
	hbuf := make([]byte, n)
	if _, err := r.ReadAt(hbuf, 8); err != nil {
		return nil, fmt.Errorf("%s: reading header: %w", name, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hbuf, &raw); err != nil {
		return nil, fmt.Errorf("%s: header is not a JSON object: %w", name, err)
	}
	h := &Header{DataStart: 8 + int64(n)}
	dataLen := size - h.DataStart
	for key, msg := range raw {
		if key == "__metadata__" {
			if err := json.Unmarshal(msg, &h.Metadata); err != nil {
				return nil, fmt.Errorf("%s: __metadata__ must map strings to strings: %w", name, err)
			}
			continue
		}
		var re rawEntry
		if err := json.Unmarshal(msg, &re); err != nil {
			return nil, fmt.Errorf("%s: tensor %q: bad header entry: %w", name, key, err)
		}
		e, err := checkEntry(key, re, dataLen)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		h.Entries = append(h.Entries, e)
	}
	sort.Slice(h.Entries, func(i, j int) bool {
		a, b := h.Entries[i], h.Entries[j]
		if a.Begin != b.Begin {
			return a.Begin < b.Begin
		}
		return a.End < b.End
	})
	for i := 1; i < len(h.Entries); i++ {
		p, e := h.Entries[i-1], h.Entries[i]
		if e.Begin < p.End {
			return nil, fmt.Errorf("%s: tensors %q [%d,%d) and %q [%d,%d) overlap", name, p.Name, p.Begin, p.End, e.Name, e.Begin, e.End)
		}
	}
	return h, nil
}

func checkEntry(key string, re rawEntry, dataLen int64) (Entry, error) {
	es := re.DType.Size()
	if es == 0 {
		return Entry{}, fmt.Errorf("tensor %q: unknown dtype %q", key, re.DType)
	}
	if len(re.DataOffsets) != 2 {
		return Entry{}, fmt.Errorf("tensor %q: data_offsets must hold 2 numbers, got %d", key, len(re.DataOffsets))
	}
	begin, end := re.DataOffsets[0], re.DataOffsets[1]
	if begin < 0 || end < begin {
		return Entry{}, fmt.Errorf("tensor %q: bad data_offsets [%d, %d]", key, begin, end)
	}
	if end > dataLen {
		return Entry{}, fmt.Errorf("tensor %q: data_offsets [%d, %d] run past the end of the data (%d bytes; truncated file?)", key, begin, end, dataLen)
	}
	shape := make([]int, len(re.Shape))
	numel := int64(1)
	for i, d := range re.Shape {
		if d < 0 {
			return Entry{}, fmt.Errorf("tensor %q: negative dimension in shape %v", key, re.Shape)
		}
		if d > 0 && numel > math.MaxInt32*int64(256)/d {
			return Entry{}, fmt.Errorf("tensor %q: shape %v is too large", key, re.Shape)
		}
		numel *= d
		shape[i] = int(d)
	}
	if numel*es != end-begin {
		return Entry{}, fmt.Errorf("tensor %q: shape %v of %s needs %d bytes, data_offsets [%d, %d] hold %d", key, re.Shape, re.DType, numel*es, begin, end, end-begin)
	}
	return Entry{Name: key, DType: re.DType, Shape: shape, Begin: begin, End: end}, nil
}

// Read reads a safetensors file of the given size from r. name is used in
// error messages (usually the path).
func Read(r io.ReaderAt, size int64, name string) (*File, error) {
	h, err := ReadHeader(r, size, name)
	if err != nil {
		return nil, err
	}
	f := &File{Tensors: tensor.Set{}, Metadata: h.Metadata}
	buf := make([]byte, 1<<16)
	for _, e := range h.Entries {
		if !e.DType.Float() {
			f.Skipped = append(f.Skipped, fmt.Sprintf("%s (%s)", e.Name, e.DType))
			continue
		}
		t := &tensor.Tensor{Shape: e.Shape, Data: make([]float32, tensor.Numel(e.Shape))}
		if err := readFloats(r, h.DataStart+e.Begin, e.DType, t.Data, buf); err != nil {
			return nil, fmt.Errorf("%s: tensor %q: %w", name, e.Name, err)
		}
		f.Tensors[e.Name] = t
	}
	return f, nil
}

// ReadTensors reads, of a safetensors file of the given size, the float
// tensors whose names keep returns true for, without converting the
// others: a model's head weights beside its transformer's. name is used
// in error messages.
func ReadTensors(r io.ReaderAt, size int64, name string, keep func(tensor string) bool) (tensor.Set, error) {
	h, err := ReadHeader(r, size, name)
	if err != nil {
		return nil, err
	}
	out := tensor.Set{}
	buf := make([]byte, 1<<16)
	for _, e := range h.Entries {
		if !keep(e.Name) {
			continue
		}
		if !e.DType.Float() {
			return nil, fmt.Errorf("%s: tensor %q is %s, not a float tensor", name, e.Name, e.DType)
		}
		t := &tensor.Tensor{Shape: e.Shape, Data: make([]float32, tensor.Numel(e.Shape))}
		if err := readFloats(r, h.DataStart+e.Begin, e.DType, t.Data, buf); err != nil {
			return nil, fmt.Errorf("%s: tensor %q: %w", name, e.Name, err)
		}
		out[e.Name] = t
	}
	return out, nil
}

// ReadFile reads the safetensors file at path.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	return Read(fh, st.Size(), path)
}

// littleEndian reports whether the machine stores a float32 as an F32
// tensor's bytes do.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// readFloats converts len(dst) elements of dtype starting at off into dst,
// reading through buf (F32 on a little-endian machine: straight into dst,
// the same bits as decoding each element).
func readFloats(r io.ReaderAt, off int64, dt DType, dst []float32, buf []byte) error {
	if dt == F32 && littleEndian && len(dst) > 0 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*len(dst))
		if _, err := r.ReadAt(b, off); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		return nil
	}
	es := int(dt.Size())
	per := len(buf) / es
	for done := 0; done < len(dst); {
		n := min(per, len(dst)-done)
		b := buf[:n*es]
		if _, err := r.ReadAt(b, off+int64(done*es)); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		out := dst[done : done+n]
		switch dt {
		case F32:
			for i := range out {
				out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
		case F16:
			if len(dst) >= halfTableMin {
				t := halfTable()
				if littleEndian {
					halvesByTable(out, unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(out)), t)
					break
				}
				for i := range out {
					out[i] = t[binary.LittleEndian.Uint16(b[2*i:])]
				}
				break
			}
			for i := range out {
				out[i] = float16.ToFloat32(binary.LittleEndian.Uint16(b[2*i:]))
			}
		case BF16:
			for i := range out {
				out[i] = float16.BFloat16ToFloat32(binary.LittleEndian.Uint16(b[2*i:]))
			}
		}
		done += n
	}
	return nil
}

// halvesByTable sets out[i] to t[hs[i]]. It is a function of its own,
// called once per buffer, and never inlined: V8 compiles a WebAssembly
// function with its baseline compiler first and its optimizing one only
// for later calls, so a loop over a whole table in one call would run
// as baseline code throughout (reading the static model's 7.8 million
// halves cold under node: 104-139 ms inlined, 55-65 ms so).
//
//go:noinline
func halvesByTable(out []float32, hs []uint16, t *[1 << 16]float32) {
	for i, h := range hs {
		out[i] = t[h]
	}
}
