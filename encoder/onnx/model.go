package onnx

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/dreval/dreval/internal/float16"
)

// Model is the part of an ONNX ModelProto that dreval reads and writes.
type Model struct {
	IRVersion       int64
	ProducerName    string
	ProducerVersion string
	// Opsets maps an operator-set domain ("" is the default ONNX domain) to
	// its version.
	Opsets map[string]int64
	Graph  *Graph
}

// Graph is an ONNX GraphProto: nodes in topological order, named constant
// tensors (initializers), and typed inputs and outputs.
type Graph struct {
	Name         string
	Nodes        []*Node
	Initializers []*Tensor
	Inputs       []*ValueInfo
	Outputs      []*ValueInfo
	// sparse is set when the graph has sparse initializers, which dreval
	// does not support.
	sparse bool
}

// HasSparse reports whether the graph has sparse initializers, which
// dreval's readers do not support.
func (g *Graph) HasSparse() bool { return g.sparse }

// Node is one operator application.
type Node struct {
	Name    string
	OpType  string
	Domain  string
	Inputs  []string
	Outputs []string
	Attrs   []*Attribute
}

// Attribute types (AttributeProto.AttributeType).
const (
	AttrFloat  = 1
	AttrInt    = 2
	AttrString = 3
	AttrTensor = 4
	AttrGraph  = 5
	AttrFloats = 6
	AttrInts   = 7
)

// Attribute is a node attribute. Only the scalar, list and tensor kinds
// are kept; Type says which field is meaningful.
type Attribute struct {
	Name   string
	Type   int
	F      float32
	I      int64
	S      string
	T      *Tensor
	Floats []float32
	Ints   []int64
}

// Tensor element types (TensorProto.DataType).
const (
	Float   = 1
	Uint8   = 2
	Int8    = 3
	Int32   = 6
	Int64   = 7
	Bool    = 9
	Float16 = 10
	Double  = 11
)

// dataTypeNames names the element types in error messages.
var dataTypeNames = map[int]string{
	1: "FLOAT", 2: "UINT8", 3: "INT8", 4: "UINT16", 5: "INT16", 6: "INT32",
	7: "INT64", 8: "STRING", 9: "BOOL", 10: "FLOAT16", 11: "DOUBLE",
	12: "UINT32", 13: "UINT64", 14: "COMPLEX64", 15: "COMPLEX128",
	16: "BFLOAT16",
}

// DataTypeName returns the ONNX name of an element type, such as "FLOAT16".
func DataTypeName(t int) string {
	if n, ok := dataTypeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("data type %d", t)
}

// Tensor is an ONNX TensorProto: a named constant. Its values are held as
// they were stored; Float32 and Int64 decode them.
type Tensor struct {
	Name      string
	DataType  int
	Dims      []int64
	RawData   []byte
	FloatData []float32
	Int32Data []int32
	Int64Data []int64
	// External is set when the values live in a separate file
	// (data_location = EXTERNAL), which dreval does not read.
	External bool
}

// ValueInfo names a graph input or output and gives its type.
type ValueInfo struct {
	Name string
	// ElemType is the tensor element type (0 when the type is absent).
	ElemType int
	// Dims holds one entry per dimension: a fixed size (Value > 0) or a
	// symbolic name (Param), or neither when unknown. Dims is nil when
	// the rank is unknown.
	Dims []Dim
}

// Dim is one dimension of a ValueInfo.
type Dim struct {
	Value int64
	Param string
}

// maxElements bounds the element count of one tensor, so a crafted shape
// cannot make the reader allocate without limit (2^31 floats is 8 GiB).
const maxElements = 1 << 31

// Numel returns the element count of t from its dims, or an error when a
// dimension is negative or the count is implausibly large.
func (t *Tensor) Numel() (int, error) {
	n := int64(1)
	for _, d := range t.Dims {
		if d < 0 {
			return 0, fmt.Errorf("tensor %q has negative dimension %d in shape %v", t.Name, d, t.Dims)
		}
		if d > 0 && n > maxElements/d {
			return 0, fmt.Errorf("tensor %q shape %v has more than %d elements", t.Name, t.Dims, int64(maxElements))
		}
		n *= d
	}
	return int(n), nil
}

// Shape returns the dims as ints.
func (t *Tensor) Shape() []int {
	s := make([]int, len(t.Dims))
	for i, d := range t.Dims {
		s[i] = int(d)
	}
	return s
}

// Float32 decodes a FLOAT or FLOAT16 tensor (raw_data, float_data or, for
// FLOAT16, int32_data) into float32 values, checking the count against the
// shape.
func (t *Tensor) Float32() ([]float32, error) {
	if t.External {
		return nil, fmt.Errorf("tensor %q is stored in an external data file, which is not supported; save the model as a single .onnx file", t.Name)
	}
	n, err := t.Numel()
	if err != nil {
		return nil, err
	}
	switch t.DataType {
	case Float:
		if t.RawData != nil {
			if len(t.RawData) != 4*n {
				return nil, fmt.Errorf("tensor %q (FLOAT, shape %v) has %d bytes of raw_data, expected %d", t.Name, t.Dims, len(t.RawData), 4*n)
			}
			out := make([]float32, n)
			for i := range out {
				out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.RawData[4*i:]))
			}
			return out, nil
		}
		if len(t.FloatData) != n {
			return nil, fmt.Errorf("tensor %q (FLOAT, shape %v) has %d values in float_data, expected %d", t.Name, t.Dims, len(t.FloatData), n)
		}
		return append([]float32(nil), t.FloatData...), nil
	case Float16:
		if t.RawData != nil {
			if len(t.RawData) != 2*n {
				return nil, fmt.Errorf("tensor %q (FLOAT16, shape %v) has %d bytes of raw_data, expected %d", t.Name, t.Dims, len(t.RawData), 2*n)
			}
			out := make([]float32, n)
			for i := range out {
				out[i] = float16.ToFloat32(binary.LittleEndian.Uint16(t.RawData[2*i:]))
			}
			return out, nil
		}
		if len(t.Int32Data) != n {
			return nil, fmt.Errorf("tensor %q (FLOAT16, shape %v) has %d values in int32_data, expected %d", t.Name, t.Dims, len(t.Int32Data), n)
		}
		out := make([]float32, n)
		for i, v := range t.Int32Data {
			out[i] = float16.ToFloat32(uint16(v))
		}
		return out, nil
	}
	return nil, fmt.Errorf("tensor %q has element type %s; weights must be FLOAT or FLOAT16", t.Name, DataTypeName(t.DataType))
}

// Int64 decodes an INT64 or INT32 tensor.
func (t *Tensor) Int64() ([]int64, error) {
	if t.External {
		return nil, fmt.Errorf("tensor %q is stored in an external data file, which is not supported", t.Name)
	}
	n, err := t.Numel()
	if err != nil {
		return nil, err
	}
	var out []int64
	switch t.DataType {
	case Int64:
		if t.RawData != nil {
			if len(t.RawData) != 8*n {
				return nil, fmt.Errorf("tensor %q (INT64, shape %v) has %d bytes of raw_data, expected %d", t.Name, t.Dims, len(t.RawData), 8*n)
			}
			for i := 0; i < n; i++ {
				out = append(out, int64(binary.LittleEndian.Uint64(t.RawData[8*i:])))
			}
			return out, nil
		}
		if len(t.Int64Data) != n {
			return nil, fmt.Errorf("tensor %q (INT64, shape %v) has %d values in int64_data, expected %d", t.Name, t.Dims, len(t.Int64Data), n)
		}
		return append(out, t.Int64Data...), nil
	case Int32:
		if t.RawData != nil {
			if len(t.RawData) != 4*n {
				return nil, fmt.Errorf("tensor %q (INT32, shape %v) has %d bytes of raw_data, expected %d", t.Name, t.Dims, len(t.RawData), 4*n)
			}
			for i := 0; i < n; i++ {
				out = append(out, int64(int32(binary.LittleEndian.Uint32(t.RawData[4*i:]))))
			}
			return out, nil
		}
		if len(t.Int32Data) != n {
			return nil, fmt.Errorf("tensor %q (INT32, shape %v) has %d values in int32_data, expected %d", t.Name, t.Dims, len(t.Int32Data), n)
		}
		for _, v := range t.Int32Data {
			out = append(out, int64(v))
		}
		return out, nil
	}
	return nil, fmt.Errorf("tensor %q has element type %s, expected INT64 or INT32", t.Name, DataTypeName(t.DataType))
}

// Attr returns the attribute called name, or nil.
func (n *Node) Attr(name string) *Attribute {
	for _, a := range n.Attrs {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// AttrInt returns the integer attribute called name, or def when absent.
func (n *Node) AttrInt(name string, def int64) int64 {
	if a := n.Attr(name); a != nil && a.Type == AttrInt {
		return a.I
	}
	return def
}

// String names the node for error messages: its op type, and its name or
// first output.
func (n *Node) String() string {
	op := n.OpType
	if n.Domain != "" && n.Domain != "ai.onnx" {
		op = n.Domain + ":" + op
	}
	name := n.Name
	if name == "" && len(n.Outputs) > 0 {
		name = "output " + n.Outputs[0]
	}
	return fmt.Sprintf("%s node %q", op, name)
}
