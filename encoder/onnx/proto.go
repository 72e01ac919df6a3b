package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The ONNX file format is a protocol buffer (onnx.proto, proto2 syntax).
// This file holds a minimal codec for the part of it a BERT graph uses,
// written with encoding/binary so that the package adds no dependency and
// stays small when compiled to WebAssembly. Unknown fields are skipped, as
// protobuf readers must; repeated scalars are accepted packed or unpacked.

// Protobuf wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// Graphs nested in attributes (If, Loop) are skipped unread, so decoding
// never recurses deeper than the fixed ModelProto > GraphProto > NodeProto >
// AttributeProto > TensorProto chain.

var errTruncated = errors.New("truncated protobuf data")

// field is one decoded protobuf field: num and wire type, with the value in
// v (varint, fixed32, fixed64) or in b (length-delimited).
type field struct {
	num  int
	wire int
	v    uint64
	b    []byte
}

// eachField calls f for every field of the encoded message b, in order.
// what names the message in errors.
func eachField(b []byte, what string, f func(fl field) error) error {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return fmt.Errorf("%s: bad field tag: %w", what, errTruncated)
		}
		b = b[n:]
		fl := field{num: int(tag >> 3), wire: int(tag & 7)}
		if tag>>3 == 0 || tag>>3 > math.MaxInt32 {
			return fmt.Errorf("%s: invalid field number %d", what, tag>>3)
		}
		switch fl.wire {
		case wireVarint:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return fmt.Errorf("%s: field %d: bad varint: %w", what, fl.num, errTruncated)
			}
			fl.v, b = v, b[n:]
		case wireFixed64:
			if len(b) < 8 {
				return fmt.Errorf("%s: field %d: %w", what, fl.num, errTruncated)
			}
			fl.v, b = binary.LittleEndian.Uint64(b), b[8:]
		case wireFixed32:
			if len(b) < 4 {
				return fmt.Errorf("%s: field %d: %w", what, fl.num, errTruncated)
			}
			fl.v, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		case wireBytes:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return fmt.Errorf("%s: field %d: length-delimited value runs past the end: %w", what, fl.num, errTruncated)
			}
			fl.b, b = b[n:n+int(l)], b[n+int(l):]
		default:
			return fmt.Errorf("%s: field %d has unsupported wire type %d (not a protobuf message?)", what, fl.num, fl.wire)
		}
		if err := f(fl); err != nil {
			return err
		}
	}
	return nil
}

// str returns the field as a string, checking its wire type.
func (fl field) str(what string) (string, error) {
	if fl.wire != wireBytes {
		return "", fmt.Errorf("%s: field %d should be a string, has wire type %d", what, fl.num, fl.wire)
	}
	return string(fl.b), nil
}

// msg returns the field as an embedded message, checking its wire type.
func (fl field) msg(what string) ([]byte, error) {
	if fl.wire != wireBytes {
		return nil, fmt.Errorf("%s: field %d should be a message, has wire type %d", what, fl.num, fl.wire)
	}
	return fl.b, nil
}

// int returns a varint field as int64 (two's complement, as int64 fields are
// encoded).
func (fl field) int(what string) (int64, error) {
	if fl.wire != wireVarint {
		return 0, fmt.Errorf("%s: field %d should be an integer, has wire type %d", what, fl.num, fl.wire)
	}
	return int64(fl.v), nil
}

// ints appends a repeated int64 field, packed or not, to dst.
func (fl field) ints(dst []int64, what string) ([]int64, error) {
	switch fl.wire {
	case wireVarint:
		return append(dst, int64(fl.v)), nil
	case wireBytes:
		b := fl.b
		for len(b) > 0 {
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, fmt.Errorf("%s: field %d: bad packed varint: %w", what, fl.num, errTruncated)
			}
			dst, b = append(dst, int64(v)), b[n:]
		}
		return dst, nil
	}
	return nil, fmt.Errorf("%s: field %d should be integers, has wire type %d", what, fl.num, fl.wire)
}

// floats appends a repeated float field, packed or not, to dst.
func (fl field) floats(dst []float32, what string) ([]float32, error) {
	switch fl.wire {
	case wireFixed32:
		return append(dst, math.Float32frombits(uint32(fl.v))), nil
	case wireBytes:
		if len(fl.b)%4 != 0 {
			return nil, fmt.Errorf("%s: field %d: packed floats of %d bytes, not a multiple of 4", what, fl.num, len(fl.b))
		}
		for i := 0; i < len(fl.b); i += 4 {
			dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(fl.b[i:])))
		}
		return dst, nil
	}
	return nil, fmt.Errorf("%s: field %d should be floats, has wire type %d", what, fl.num, fl.wire)
}

// encoder appends protobuf fields to a byte slice.
type encoder struct{ b []byte }

func (e *encoder) tag(num, wire int) { e.b = binary.AppendUvarint(e.b, uint64(num)<<3|uint64(wire)) }

func (e *encoder) varint(num int, v int64) {
	e.tag(num, wireVarint)
	e.b = binary.AppendUvarint(e.b, uint64(v))
}

func (e *encoder) bytes(num int, b []byte) {
	e.tag(num, wireBytes)
	e.b = binary.AppendUvarint(e.b, uint64(len(b)))
	e.b = append(e.b, b...)
}

func (e *encoder) str(num int, s string) {
	e.tag(num, wireBytes)
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *encoder) float(num int, f float32) {
	e.tag(num, wireFixed32)
	e.b = binary.LittleEndian.AppendUint32(e.b, math.Float32bits(f))
}

// message encodes a nested message written by f.
func (e *encoder) message(num int, f func(*encoder)) {
	var sub encoder
	f(&sub)
	e.bytes(num, sub.b)
}
