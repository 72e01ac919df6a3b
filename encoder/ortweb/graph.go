package ortweb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/modelfiles"
)

// Graph is an ONNX model file in pieces: the concatenation of Parts is
// the file. A graph exported from weights comes as its structure (nodes,
// inputs, outputs, opsets: package onnx's codec) with each weight tensor's
// bytes as a piece of its own, spliced into the graph message, so that
// the weights are never copied into one Go buffer: whoever assembles the
// file (JavaScript memory, for onnxruntime-web) copies each piece once.
// The file is the model bert.ExportONNX builds, its initializers after its
// nodes and outputs (their order in a GraphProto does not matter).
type Graph struct {
	Parts [][]byte
	// Size is the file's length in bytes.
	Size int
	// Source says where the graph came from, for messages: "model.onnx"
	// or "exported from model.safetensors".
	Source string
}

// Bytes returns the whole file (a copy; for tests and small graphs).
func (g *Graph) Bytes() []byte {
	out := make([]byte, 0, g.Size)
	for _, p := range g.Parts {
		out = append(out, p...)
	}
	return out
}

// BuildGraph returns the ONNX graph of the transformer the settings s
// describe, as the native ort engine would run it: the transformer
// folder's model.onnx when it has one (the ort engine runs that graph),
// else the standard graph bert.ExportONNX writes from its weights (what
// "dreval model export-onnx" writes next to them), with producer as
// the producer version.
func BuildGraph(s *transformer.Settings, producer string) (*Graph, error) {
	t := s.Transformer
	if ok, err := t.Exists(modelfiles.ONNX); err != nil {
		return nil, err
	} else if ok {
		b, err := t.ReadFile(modelfiles.ONNX)
		if err != nil {
			return nil, err
		}
		return &Graph{Parts: [][]byte{b}, Size: len(b), Source: modelfiles.ONNX}, nil
	}
	if s.Weights == "" {
		return nil, fmt.Errorf("%s has no weights to export a graph from", t.Name())
	}
	w, err := transformer.ReadWeights(t, s.Weights, nil)
	if err != nil {
		return nil, err
	}
	prefix, err := bert.DetectPrefix(s.Config, w.Tensors)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Path(s.Weights), err)
	}
	for _, sk := range w.Skipped {
		name, _, _ := strings.Cut(sk, " ")
		if strings.HasPrefix(name, prefix) && !bert.IsBuffer(name) {
			return nil, fmt.Errorf("%s: tensor %s has a type the export cannot write", t.Path(s.Weights), sk)
		}
	}
	m, err := bert.ExportONNX(w.Tensors, s.Config, bert.ONNXOptions{ProducerVersion: producer, Prefix: prefix})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Path(s.Weights), err)
	}
	w = nil // the export holds its own copy of the weights
	inits := m.Graph.Initializers
	m.Graph.Initializers = nil
	pre, graph, post, err := splitGraphField(m.Marshal())
	if err != nil {
		return nil, err
	}
	var pieces [][]byte
	graphLen := len(graph)
	for _, it := range inits {
		head, err := initializerHead(it)
		if err != nil {
			return nil, err
		}
		pieces = append(pieces, head, it.RawData)
		graphLen += len(head) + len(it.RawData)
	}
	field := appendTag(nil, fieldModelGraph, wireBytes)
	field = binary.AppendUvarint(field, uint64(graphLen))
	g := &Graph{Source: "exported from " + s.Weights}
	g.Parts = append([][]byte{pre, field, graph}, pieces...)
	g.Parts = append(g.Parts, post)
	for _, p := range g.Parts {
		g.Size += len(p)
	}
	return g, nil
}

// Field numbers of onnx.proto that initializerPiece writes (package
// onnx's codec writes the rest of the file).
const (
	fieldModelGraph       = 7 // ModelProto.graph
	fieldGraphInitializer = 5 // GraphProto.initializer
	fieldTensorDims       = 1 // TensorProto.dims
	fieldTensorDataType   = 2 // TensorProto.data_type
	fieldTensorName       = 8 // TensorProto.name
	fieldTensorRawData    = 9 // TensorProto.raw_data
	wireVarint, wireBytes = 0, 2
)

// initializerHead returns the bytes of GraphProto field initializer
// holding t, up to its raw data, which follow it in the file.
func initializerHead(t *onnx.Tensor) ([]byte, error) {
	if t.RawData == nil || len(t.FloatData) > 0 || len(t.Int32Data) > 0 || len(t.Int64Data) > 0 || t.External {
		return nil, errors.New("ortweb: the export wrote an initializer without raw data") // bert.ExportONNX writes raw data only
	}
	var tensor []byte
	for _, d := range t.Dims {
		tensor = appendTag(tensor, fieldTensorDims, wireVarint)
		tensor = binary.AppendUvarint(tensor, uint64(d))
	}
	tensor = appendTag(tensor, fieldTensorDataType, wireVarint)
	tensor = binary.AppendUvarint(tensor, uint64(t.DataType))
	tensor = appendTag(tensor, fieldTensorName, wireBytes)
	tensor = binary.AppendUvarint(tensor, uint64(len(t.Name)))
	tensor = append(tensor, t.Name...)
	tensor = appendTag(tensor, fieldTensorRawData, wireBytes)
	tensor = binary.AppendUvarint(tensor, uint64(len(t.RawData)))
	head := appendTag(nil, fieldGraphInitializer, wireBytes)
	head = binary.AppendUvarint(head, uint64(len(tensor)+len(t.RawData)))
	return append(head, tensor...), nil
}

// splitGraphField splits the bytes of a ModelProto into what comes
// before its graph field, the graph's bytes (the field's payload), and
// what comes after.
func splitGraphField(model []byte) (pre, graph, post []byte, err error) {
	for off := 0; off < len(model); {
		start := off
		tag, n := binary.Uvarint(model[off:])
		if n <= 0 {
			return nil, nil, nil, errors.New("ortweb: bad tag in the exported model")
		}
		off += n
		field, wire := int(tag>>3), int(tag&7)
		switch wire {
		case wireVarint:
			_, n = binary.Uvarint(model[off:])
			if n <= 0 {
				return nil, nil, nil, errors.New("ortweb: bad varint in the exported model")
			}
			off += n
		case wireBytes:
			l, n := binary.Uvarint(model[off:])
			if n <= 0 || uint64(len(model)-off-n) < l {
				return nil, nil, nil, errors.New("ortweb: bad length in the exported model")
			}
			off += n
			if field == fieldModelGraph {
				return model[:start], model[off : off+int(l)], model[off+int(l):], nil
			}
			off += int(l)
		case 1: // fixed64
			off += 8
		case 5: // fixed32
			off += 4
		default:
			return nil, nil, nil, fmt.Errorf("ortweb: wire type %d in the exported model", wire)
		}
	}
	return nil, nil, nil, errors.New("ortweb: the exported model has no graph")
}

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}
