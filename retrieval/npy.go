package retrieval

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/dreval/dreval/internal/float16"
	"github.com/dreval/dreval/internal/pylit"
)

// NumPy dtype strings accepted by WriteNPY.
const (
	Float32 = "<f4" // little-endian IEEE 754 binary32
	Float16 = "<f2" // little-endian IEEE 754 binary16
)

var npyMagic = []byte("\x93NUMPY")

// maxNPYHeader bounds the header length ReadNPY accepts (numpy's own
// limit for untrusted files is 10,000 bytes; real headers are < 200).
const maxNPYHeader = 1 << 16

// ReadNPYFile reads a .npy file written by numpy.save (format versions
// 1.0, 2.0 and 3.0) holding a C-ordered array of dtype float32 ('<f4' or
// '>f4') or float16 ('<f2' or '>f2', converted exactly to float32). A 2-D
// array of shape (n, d) becomes n rows of d values; a 1-D array of shape
// (d,) becomes a single row. Errors name the file and what was expected.
func ReadNPYFile(path string) (*Matrix, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return readNPY(f, path, size)
}

// ReadNPY reads a .npy array from r as ReadNPYFile does; name (usually the
// file's path) prefixes error messages. It allocates memory only for data
// actually present, so a header claiming a huge shape fails as truncated.
func ReadNPY(r io.Reader, name string) (*Matrix, error) {
	return readNPY(r, name, -1)
}

// npyHeader is the parsed header dictionary.
type npyHeader struct {
	descr   string
	fortran bool
	shape   []int
}

// readNPY reads from r; size is the total byte length when known, else -1.
func readNPY(r io.Reader, name string, size int64) (*Matrix, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...))
	}
	var pre [8]byte
	if n, err := io.ReadFull(r, pre[:]); err != nil {
		if n == 0 && err == io.EOF {
			return nil, fail("empty file, want a .npy array starting with \\x93NUMPY")
		}
		if err == io.ErrUnexpectedEOF {
			return nil, fail("truncated: %d bytes, too short for a .npy preamble", n)
		}
		return nil, fail("%v", err)
	}
	if !bytes.Equal(pre[:6], npyMagic) {
		return nil, fail("not a .npy file: starts with %q, want \\x93NUMPY", pre[:6])
	}
	major, minor := pre[6], pre[7]
	var hlen int
	var off int64
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fail("truncated .npy header length")
		}
		hlen, off = int(binary.LittleEndian.Uint16(b[:])), 10
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fail("truncated .npy header length")
		}
		l := binary.LittleEndian.Uint32(b[:])
		if l > maxNPYHeader {
			return nil, fail(".npy header length %d exceeds %d bytes", l, maxNPYHeader)
		}
		hlen, off = int(l), 12
	default:
		return nil, fail("unsupported .npy format version %d.%d, want 1.0, 2.0 or 3.0", major, minor)
	}
	if minor != 0 {
		return nil, fail("unsupported .npy format version %d.%d, want 1.0, 2.0 or 3.0", major, minor)
	}
	hb := make([]byte, hlen)
	if n, err := io.ReadFull(r, hb); err != nil {
		return nil, fail("truncated .npy header: %d of %d bytes", n, hlen)
	}
	off += int64(hlen)
	h, err := parseNPYHeader(string(hb))
	if err != nil {
		return nil, fail(".npy header %q: %v", strings.TrimSpace(string(hb)), err)
	}
	var size2, rows, dim int
	switch h.descr {
	case "<f4", ">f4":
		size2 = 4
	case "<f2", ">f2":
		size2 = 2
	default:
		return nil, fail("unsupported dtype %q, want float32 ('<f4') or float16 ('<f2'); convert with arr.astype('float32')", h.descr)
	}
	bigEndian := h.descr[0] == '>'
	if h.fortran {
		return nil, fail("array is stored in Fortran order, want C order: save np.ascontiguousarray(arr)")
	}
	switch len(h.shape) {
	case 1:
		rows, dim = 1, h.shape[0]
	case 2:
		rows, dim = h.shape[0], h.shape[1]
	default:
		return nil, fail("array has shape %s, want 2-D (rows, dim) or 1-D (dim,)", shapeString(h.shape))
	}
	if dim == 0 && rows > 0 {
		return nil, fail("shape %s holds vectors of dimension 0", shapeString(h.shape))
	}
	if dim != 0 && rows > math.MaxInt/size2/dim {
		return nil, fail("shape %s is too large", shapeString(h.shape))
	}
	n := rows * dim
	want := int64(n) * int64(size2)
	if size >= 0 && size-off != want {
		return nil, fail("shape %s of dtype %s needs %d data bytes after the %d-byte header, file has %d", shapeString(h.shape), h.descr, want, off, size-off)
	}
	m := &Matrix{Rows: rows, Dim: dim}
	if size >= 0 {
		m.Data = make([]float32, 0, n)
	} else {
		m.Data = make([]float32, 0, min(n, 1<<16))
	}
	buf := make([]byte, 1<<16)
	for len(m.Data) < n {
		chunk := min((n-len(m.Data))*size2, len(buf))
		got, err := io.ReadFull(r, buf[:chunk])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fail("truncated data: shape %s of dtype %s needs %d bytes, file has %d", shapeString(h.shape), h.descr, want, int64(len(m.Data)*size2+got))
		}
		if err != nil {
			return nil, fail("%v", err)
		}
		m.Data = appendDecoded(m.Data, buf[:chunk], size2, bigEndian)
	}
	if size < 0 {
		var extra [1]byte
		if k, _ := io.ReadFull(r, extra[:]); k > 0 {
			return nil, fail("data is longer than shape %s of dtype %s needs (%d bytes)", shapeString(h.shape), h.descr, want)
		}
	}
	return m, nil
}

// appendDecoded appends the float values encoded in b to dst.
func appendDecoded(dst []float32, b []byte, size int, bigEndian bool) []float32 {
	n := len(b) / size
	dst = slices.Grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	switch {
	case size == 4 && !bigEndian:
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case size == 4:
		for i := range out {
			out[i] = math.Float32frombits(binary.BigEndian.Uint32(b[4*i:]))
		}
	case !bigEndian:
		for i := range out {
			out[i] = float16.ToFloat32(binary.LittleEndian.Uint16(b[2*i:]))
		}
	default:
		for i := range out {
			out[i] = float16.ToFloat32(binary.BigEndian.Uint16(b[2*i:]))
		}
	}
	return dst[:len(dst)+n]
}

func shapeString(shape []int) string {
	var sb strings.Builder
	sb.WriteByte('(')
	for i, d := range shape {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		sb.WriteByte(',')
	}
	sb.WriteByte(')')
	return sb.String()
}

// parseNPYHeader parses the Python dict literal of a .npy header, such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }, with the
// Python-literal parser the DPR answer lists use (package pylit).
func parseNPYHeader(s string) (npyHeader, error) {
	p := pylit.NewParser(s)
	var h npyHeader
	p.Space()
	if !p.Eat('{') {
		return h, errors.New("not a Python dict: want '{'")
	}
	seen := map[string]bool{}
	for {
		p.Space()
		if p.Eat('}') {
			break
		}
		key, err := p.StringLit()
		if err != nil {
			return h, fmt.Errorf("dict key: %v", atByte(err))
		}
		if seen[key] {
			return h, fmt.Errorf("key %q appears twice", key)
		}
		seen[key] = true
		p.Space()
		if !p.Eat(':') {
			return h, fmt.Errorf("want ':' after key %q", key)
		}
		p.Space()
		switch key {
		case "descr":
			if h.descr, err = p.StringLit(); err != nil {
				return h, fmt.Errorf("descr: %v (structured dtypes are not supported)", atByte(err))
			}
		case "fortran_order":
			if h.fortran, err = p.Bool(); err != nil {
				return h, fmt.Errorf("fortran_order: %v", atByte(err))
			}
		case "shape":
			if h.shape, err = p.IntTuple(); err != nil {
				return h, fmt.Errorf("shape: %v", atByte(err))
			}
		default:
			return h, fmt.Errorf("unexpected key %q, want only 'descr', 'fortran_order' and 'shape'", key)
		}
		p.Space()
		if p.Eat(',') {
			continue
		}
		if p.Eat('}') {
			break
		}
		return h, fmt.Errorf("want ',' or '}' at byte %d", p.Offset())
	}
	if rest := strings.TrimSpace(p.Rest()); rest != "" {
		return h, fmt.Errorf("unexpected text %q after the dict", rest)
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("missing key %q", k)
		}
	}
	return h, nil
}

// atByte writes a pylit error as the header's messages put it: what was
// wanted, then where ("want a tuple at byte 40").
func atByte(err error) string {
	var pe *pylit.Error
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s at byte %d", pe.Msg, pe.Offset)
	}
	return err.Error()
}

// WriteNPYFile writes m to path as a .npy file (format 1.0, or 2.0 for a
// header over 65535 bytes) of the given dtype, Float32 or Float16. A 1-row
// matrix is still written with the 2-D shape (1, dim).
func WriteNPYFile(path string, m *Matrix, dtype string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteNPY(f, m, dtype); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// WriteNPY writes m to w in .npy format with dtype Float32 or Float16.
// Writing Float16 rounds to nearest even and fails on a finite value too
// large for float16 (|v| >= 65520) instead of storing infinity.
func WriteNPY(w io.Writer, m *Matrix, dtype string) error {
	if err := m.check("npy"); err != nil {
		return err
	}
	size := 4
	switch dtype {
	case Float32:
	case Float16:
		size = 2
	default:
		return fmt.Errorf("cannot write dtype %q, want %q or %q", dtype, Float32, Float16)
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }", dtype, m.Rows, m.Dim)
	major, pre := byte(1), 10
	total := pre + len(dict) + 1
	pad := (64 - total%64) % 64
	if len(dict)+1+pad > math.MaxUint16 {
		major, pre = 2, 12
		total = pre + len(dict) + 1
		pad = (64 - total%64) % 64
	}
	hdr := make([]byte, 0, total+pad)
	hdr = append(hdr, npyMagic...)
	hdr = append(hdr, major, 0)
	hl := len(dict) + pad + 1
	if major == 1 {
		hdr = binary.LittleEndian.AppendUint16(hdr, uint16(hl))
	} else {
		hdr = binary.LittleEndian.AppendUint32(hdr, uint32(hl))
	}
	hdr = append(hdr, dict...)
	hdr = append(hdr, bytes.Repeat([]byte{' '}, pad)...)
	hdr = append(hdr, '\n')
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.Write(hdr); err != nil {
		return err
	}
	var b [4]byte
	for i, v := range m.Data {
		if size == 4 {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		} else {
			h, ok := float16.Round(v)
			if !ok {
				return fmt.Errorf("row %d column %d: %v does not fit float16 (max 65504)", i/max(m.Dim, 1), i%max(m.Dim, 1), v)
			}
			binary.LittleEndian.PutUint16(b[:], h)
		}
		if _, err := bw.Write(b[:size]); err != nil {
			return err
		}
	}
	return bw.Flush()
}
