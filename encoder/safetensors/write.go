package safetensors

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/internal/float16"
)

// Write writes every tensor of s to w as a safetensors file with elements of
// type dt (F32 or F16; F16 rounds to nearest even). Tensors are stored in
// name order; metadata may be nil.
func Write(w io.Writer, s tensor.Set, dt DType, metadata map[string]string) error {
	if dt != F32 && dt != F16 {
		return fmt.Errorf("safetensors: writing dtype %q is not supported (use F32 or F16)", dt)
	}
	es := dt.Size()
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	names := s.Names()
	var off int64
	for _, n := range names {
		t := s[n]
		if len(t.Data) != tensor.Numel(t.Shape) {
			return fmt.Errorf("safetensors: tensor %q holds %d values, its shape %v needs %d", n, len(t.Data), t.Shape, tensor.Numel(t.Shape))
		}
		size := int64(len(t.Data)) * es
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		header[n] = map[string]any{"dtype": dt, "shape": shape, "data_offsets": []int64{off, off + size}}
		off += size
	}
	hb, err := json.Marshal(header)
	if err != nil {
		return err
	}
	// Pad the header with spaces to a multiple of 8 bytes, as the reference
	// implementation does, so the data section is aligned.
	for len(hb)%8 != 0 {
		hb = append(hb, ' ')
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var b8 [8]byte
	binary.LittleEndian.PutUint64(b8[:], uint64(len(hb)))
	bw.Write(b8[:])
	bw.Write(hb)
	for _, n := range names {
		for _, v := range s[n].Data {
			if dt == F32 {
				binary.LittleEndian.PutUint32(b8[:4], math.Float32bits(v))
				bw.Write(b8[:4])
			} else {
				binary.LittleEndian.PutUint16(b8[:2], float16.FromFloat32(v))
				bw.Write(b8[:2])
			}
		}
	}
	return bw.Flush()
}
