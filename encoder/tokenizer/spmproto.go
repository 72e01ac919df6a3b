package tokenizer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// A SentencePiece .model file is a ModelProto message (protocol buffers,
// proto2; sentencepiece_model.proto): repeated pieces (1), trainer_spec (2),
// normalizer_spec (3), self_test_data (4), denormalizer_spec (5). This file
// reads the fields tokenization needs and keeps every piece's bytes, so a
// tampered model can be written back with everything else unchanged.

// Piece types of ModelProto.SentencePiece.
const (
	spmNormal      = 1
	spmUnknown     = 2
	spmControl     = 3
	spmUserDefined = 4
	spmUnused      = 5
	spmByte        = 6
)

// Model types of TrainerSpec.
const (
	spmUnigram = 1
	spmBPE     = 2
	spmWord    = 3
	spmChar    = 4
)

// spmProto is what a .model file says.
type spmProto struct {
	pieces []spmPiece
	rest   []protoField // the top-level fields other than pieces, in order

	modelType     int64
	byteFallback  bool
	treatWSSuffix bool
	allowWSOnly   bool
	unkSurface    string
	unkID, bosID  int64
	eosID, padID  int64
	norm, denorm  spmNormSpec
	hasDenorm     bool
}

// spmPiece is one piece.
type spmPiece struct {
	piece string
	score float32
	typ   int64
	raw   []byte // the message's bytes
}

// spmNormSpec is a NormalizerSpec.
type spmNormSpec struct {
	name           string
	charsmap       []byte
	addDummyPrefix bool
	removeExtraWS  bool
	escapeWS       bool
}

// protoField is one field of a message: its tag and its encoded bytes (tag
// included).
type protoField struct {
	num  int
	data []byte
}

// protoReader reads protocol-buffer wire format.
type protoReader struct {
	b   []byte
	pos int
}

var errTruncated = errors.New("truncated message")

func (r *protoReader) varint() (uint64, error) {
	v, n := binary.Uvarint(r.b[r.pos:])
	if n <= 0 {
		return 0, errTruncated
	}
	r.pos += n
	return v, nil
}

// next reads one field: its number, wire type, and value (varint value,
// fixed bits, or the bytes of a length-delimited field).
func (r *protoReader) next() (num int, wire int, v uint64, data []byte, err error) {
	key, err := r.varint()
	if err != nil {
		return 0, 0, 0, nil, err
	}
	num, wire = int(key>>3), int(key&7)
	if num <= 0 {
		return 0, 0, 0, nil, fmt.Errorf("field number %d", num)
	}
	switch wire {
	case 0:
		v, err = r.varint()
	case 1:
		if r.pos+8 > len(r.b) {
			return 0, 0, 0, nil, errTruncated
		}
		v = binary.LittleEndian.Uint64(r.b[r.pos:])
		r.pos += 8
	case 2:
		var n uint64
		if n, err = r.varint(); err != nil {
			return 0, 0, 0, nil, err
		}
		if n > uint64(len(r.b)-r.pos) {
			return 0, 0, 0, nil, errTruncated
		}
		data = r.b[r.pos : r.pos+int(n)]
		r.pos += int(n)
	case 5:
		if r.pos+4 > len(r.b) {
			return 0, 0, 0, nil, errTruncated
		}
		v = uint64(binary.LittleEndian.Uint32(r.b[r.pos:]))
		r.pos += 4
	default:
		return 0, 0, 0, nil, fmt.Errorf("field %d has wire type %d (groups are not supported)", num, wire)
	}
	return num, wire, v, data, err
}

// int32Of reads a varint field as proto's int32 (negative values are
// sign-extended to 64 bits on the wire).
func int32Of(v uint64) int64 { return int64(int32(v)) }

// parseSPM reads a ModelProto.
func parseSPM(b []byte) (*spmProto, error) {
	p := &spmProto{
		modelType: spmUnigram, unkSurface: " \u2047 ",
		unkID: 0, bosID: 1, eosID: 2, padID: -1,
		norm: spmNormSpec{addDummyPrefix: true, removeExtraWS: true, escapeWS: true},
	}
	r := &protoReader{b: b}
	for r.pos < len(b) {
		start := r.pos
		num, wire, _, data, err := r.next()
		if err != nil {
			return nil, fmt.Errorf("ModelProto at byte %d: %v", start, err)
		}
		field := protoField{num, b[start:r.pos]}
		switch {
		case num == 1 && wire == 2:
			pc, err := parsePiece(data)
			if err != nil {
				return nil, fmt.Errorf("pieces[%d]: %v", len(p.pieces), err)
			}
			p.pieces = append(p.pieces, pc)
			continue
		case num == 2 && wire == 2:
			if err := p.parseTrainer(data); err != nil {
				return nil, fmt.Errorf("trainer_spec: %v", err)
			}
		case num == 3 && wire == 2:
			if err := parseNormSpec(data, &p.norm); err != nil {
				return nil, fmt.Errorf("normalizer_spec: %v", err)
			}
		case num == 5 && wire == 2:
			p.hasDenorm = true
			p.denorm = spmNormSpec{addDummyPrefix: true, removeExtraWS: true, escapeWS: true}
			if err := parseNormSpec(data, &p.denorm); err != nil {
				return nil, fmt.Errorf("denormalizer_spec: %v", err)
			}
		}
		p.rest = append(p.rest, field)
	}
	if len(p.pieces) == 0 {
		return nil, errors.New("no pieces (not a SentencePiece model?)")
	}
	return p, nil
}

func parsePiece(b []byte) (spmPiece, error) {
	pc := spmPiece{typ: spmNormal, raw: b}
	r := &protoReader{b: b}
	for r.pos < len(b) {
		num, wire, v, data, err := r.next()
		if err != nil {
			return pc, err
		}
		switch {
		case num == 1 && wire == 2:
			pc.piece = string(data)
		case num == 2 && wire == 5:
			pc.score = math.Float32frombits(uint32(v))
		case num == 3 && wire == 0:
			pc.typ = int32Of(v)
		}
	}
	return pc, nil
}

func (p *spmProto) parseTrainer(b []byte) error {
	r := &protoReader{b: b}
	for r.pos < len(b) {
		num, wire, v, data, err := r.next()
		if err != nil {
			return err
		}
		if wire == 0 {
			switch num {
			case 3:
				p.modelType = int32Of(v)
			case 24:
				p.treatWSSuffix = v != 0
			case 26:
				p.allowWSOnly = v != 0
			case 35:
				p.byteFallback = v != 0
			case 40:
				p.unkID = int32Of(v)
			case 41:
				p.bosID = int32Of(v)
			case 42:
				p.eosID = int32Of(v)
			case 43:
				p.padID = int32Of(v)
			}
		}
		if wire == 2 && num == 44 {
			p.unkSurface = string(data)
		}
	}
	return nil
}

func parseNormSpec(b []byte, s *spmNormSpec) error {
	r := &protoReader{b: b}
	for r.pos < len(b) {
		num, wire, v, data, err := r.next()
		if err != nil {
			return err
		}
		switch {
		case num == 1 && wire == 2:
			s.name = string(data)
		case num == 2 && wire == 2:
			s.charsmap = data
		case num == 3 && wire == 0:
			s.addDummyPrefix = v != 0
		case num == 4 && wire == 0:
			s.removeExtraWS = v != 0
		case num == 5 && wire == 0:
			s.escapeWS = v != 0
		}
	}
	return nil
}

// encode writes the model back: the pieces (their original bytes, in their
// possibly swapped order) then the other fields as they were.
func (p *spmProto) encode() []byte {
	var out []byte
	for _, pc := range p.pieces {
		out = binary.AppendUvarint(out, 1<<3|2)
		out = binary.AppendUvarint(out, uint64(len(pc.raw)))
		out = append(out, pc.raw...)
	}
	for _, f := range p.rest {
		out = append(out, f.data...)
	}
	return out
}
