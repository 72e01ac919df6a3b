package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Field numbers from onnx.proto.
const (
	modelIRVersion       = 1
	modelProducerName    = 2
	modelProducerVersion = 3
	modelGraph           = 7
	modelOpsetImport     = 8

	opsetDomain  = 1
	opsetVersion = 2

	graphNode               = 1
	graphName               = 2
	graphInitializer        = 5
	graphInput              = 11
	graphOutput             = 12
	graphSparseInitializer  = 15
	nodeInput               = 1
	nodeOutput              = 2
	nodeName                = 3
	nodeOpType              = 4
	nodeAttribute           = 5
	nodeDomain              = 7
	attrName                = 1
	attrF                   = 2
	attrI                   = 3
	attrS                   = 4
	attrT                   = 5
	attrFloats              = 7
	attrInts                = 8
	attrType                = 20
	tensorDims              = 1
	tensorDataType          = 2
	tensorFloatData         = 4
	tensorInt32Data         = 5
	tensorInt64Data         = 7
	tensorName              = 8
	tensorRawData           = 9
	tensorExternalData      = 13
	tensorDataLocation      = 14
	valueInfoName           = 1
	valueInfoType           = 2
	typeTensorType          = 1
	typeTensorElemType      = 1
	typeTensorShape         = 2
	shapeDim                = 1
	dimValue                = 1
	dimParam                = 2
	dataLocationExternal    = 1
	tensorProtoWhat         = "TensorProto"
	attributeProtoWhat      = "AttributeProto"
	valueInfoProtoWhat      = "ValueInfoProto"
	graphProtoWhat          = "GraphProto"
	nodeProtoWhat           = "NodeProto"
	modelProtoWhat          = "ModelProto"
	operatorSetIDProtoWhat  = "OperatorSetIdProto"
	typeProtoWhat           = "TypeProto"
	tensorShapeProtoWhat    = "TensorShapeProto"
	tensorShapeDimProtoWhat = "TensorShapeProto.Dimension"
)

// Decode parses the bytes of an .onnx file. It checks the protobuf
// structure only; ReadWeights checks that the graph is a BERT encoder.
// The returned tensors' RawData alias data.
func Decode(data []byte) (*Model, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("empty input: not an ONNX model")
	}
	m := &Model{Opsets: map[string]int64{}}
	err := eachField(data, modelProtoWhat, func(fl field) error {
		var err error
		switch fl.num {
		case modelIRVersion:
			m.IRVersion, err = fl.int("ModelProto.ir_version")
		case modelProducerName:
			m.ProducerName, err = fl.str("ModelProto.producer_name")
		case modelProducerVersion:
			m.ProducerVersion, err = fl.str("ModelProto.producer_version")
		case modelGraph:
			var b []byte
			if b, err = fl.msg("ModelProto.graph"); err == nil {
				if m.Graph != nil {
					return fmt.Errorf("ModelProto has more than one graph")
				}
				m.Graph, err = decodeGraph(b)
			}
		case modelOpsetImport:
			var b []byte
			if b, err = fl.msg("ModelProto.opset_import"); err == nil {
				err = decodeOpset(b, m.Opsets)
			}
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("not a valid ONNX model: %w", err)
	}
	if m.Graph == nil {
		return nil, fmt.Errorf("not a valid ONNX model: ModelProto has no graph")
	}
	if m.IRVersion <= 0 {
		return nil, fmt.Errorf("not a valid ONNX model: ir_version is %d, expected a positive version", m.IRVersion)
	}
	return m, nil
}

func decodeOpset(b []byte, into map[string]int64) error {
	var domain string
	var version int64
	err := eachField(b, operatorSetIDProtoWhat, func(fl field) error {
		var err error
		switch fl.num {
		case opsetDomain:
			domain, err = fl.str("OperatorSetIdProto.domain")
		case opsetVersion:
			version, err = fl.int("OperatorSetIdProto.version")
		}
		return err
	})
	if err != nil {
		return err
	}
	if domain == "ai.onnx" {
		domain = ""
	}
	into[domain] = version
	return nil
}

func decodeGraph(b []byte) (*Graph, error) {
	g := &Graph{}
	err := eachField(b, graphProtoWhat, func(fl field) error {
		if fl.num == graphName {
			var err error
			g.Name, err = fl.str("GraphProto.name")
			return err
		}
		if fl.num == graphSparseInitializer {
			g.sparse = true
			return nil
		}
		var sub []byte
		switch fl.num {
		case graphNode, graphInitializer, graphInput, graphOutput:
			var err error
			if sub, err = fl.msg(graphProtoWhat); err != nil {
				return err
			}
		default:
			return nil
		}
		switch fl.num {
		case graphNode:
			n, err := decodeNode(sub)
			if err != nil {
				return fmt.Errorf("node %d: %w", len(g.Nodes), err)
			}
			g.Nodes = append(g.Nodes, n)
		case graphInitializer:
			t, err := decodeTensor(sub)
			if err != nil {
				return fmt.Errorf("initializer %d: %w", len(g.Initializers), err)
			}
			g.Initializers = append(g.Initializers, t)
		case graphInput, graphOutput:
			v, err := decodeValueInfo(sub)
			if err != nil {
				return err
			}
			if fl.num == graphInput {
				g.Inputs = append(g.Inputs, v)
			} else {
				g.Outputs = append(g.Outputs, v)
			}
		}
		return nil
	})
	return g, err
}

func decodeNode(b []byte) (*Node, error) {
	n := &Node{}
	err := eachField(b, nodeProtoWhat, func(fl field) error {
		var err error
		var s string
		switch fl.num {
		case nodeInput:
			if s, err = fl.str("NodeProto.input"); err == nil {
				n.Inputs = append(n.Inputs, s)
			}
		case nodeOutput:
			if s, err = fl.str("NodeProto.output"); err == nil {
				n.Outputs = append(n.Outputs, s)
			}
		case nodeName:
			n.Name, err = fl.str("NodeProto.name")
		case nodeOpType:
			n.OpType, err = fl.str("NodeProto.op_type")
		case nodeDomain:
			n.Domain, err = fl.str("NodeProto.domain")
		case nodeAttribute:
			var sub []byte
			if sub, err = fl.msg("NodeProto.attribute"); err == nil {
				var a *Attribute
				if a, err = decodeAttribute(sub); err == nil {
					n.Attrs = append(n.Attrs, a)
				}
			}
		}
		return err
	})
	if err == nil && n.OpType == "" {
		err = fmt.Errorf("NodeProto %q has no op_type", n.Name)
	}
	return n, err
}

func decodeAttribute(b []byte) (*Attribute, error) {
	a := &Attribute{}
	err := eachField(b, attributeProtoWhat, func(fl field) error {
		var err error
		switch fl.num {
		case attrName:
			a.Name, err = fl.str("AttributeProto.name")
		case attrType:
			var t int64
			t, err = fl.int("AttributeProto.type")
			a.Type = int(t)
		case attrF:
			if fl.wire != wireFixed32 {
				return fmt.Errorf("AttributeProto.f has wire type %d, expected fixed32", fl.wire)
			}
			a.F = math.Float32frombits(uint32(fl.v))
		case attrI:
			a.I, err = fl.int("AttributeProto.i")
		case attrS:
			var sb []byte
			if sb, err = fl.msg("AttributeProto.s"); err == nil {
				a.S = string(sb)
			}
		case attrT:
			var sub []byte
			if sub, err = fl.msg("AttributeProto.t"); err == nil {
				a.T, err = decodeTensor(sub)
			}
		case attrFloats:
			a.Floats, err = fl.floats(a.Floats, "AttributeProto.floats")
		case attrInts:
			a.Ints, err = fl.ints(a.Ints, "AttributeProto.ints")
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
	}
	return a, nil
}

func decodeTensor(b []byte) (*Tensor, error) {
	t := &Tensor{}
	err := eachField(b, tensorProtoWhat, func(fl field) error {
		var err error
		switch fl.num {
		case tensorDims:
			t.Dims, err = fl.ints(t.Dims, "TensorProto.dims")
		case tensorDataType:
			var v int64
			v, err = fl.int("TensorProto.data_type")
			t.DataType = int(v)
		case tensorFloatData:
			t.FloatData, err = fl.floats(t.FloatData, "TensorProto.float_data")
		case tensorInt32Data:
			var v []int64
			if v, err = fl.ints(nil, "TensorProto.int32_data"); err == nil {
				for _, x := range v {
					t.Int32Data = append(t.Int32Data, int32(x))
				}
			}
		case tensorInt64Data:
			t.Int64Data, err = fl.ints(t.Int64Data, "TensorProto.int64_data")
		case tensorName:
			t.Name, err = fl.str("TensorProto.name")
		case tensorRawData:
			var raw []byte
			if raw, err = fl.msg("TensorProto.raw_data"); err == nil {
				if raw == nil {
					raw = []byte{}
				}
				t.RawData = raw
			}
		case tensorExternalData:
			t.External = true
		case tensorDataLocation:
			var v int64
			v, err = fl.int("TensorProto.data_location")
			if v == dataLocationExternal {
				t.External = true
			}
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	return t, nil
}

func decodeValueInfo(b []byte) (*ValueInfo, error) {
	v := &ValueInfo{}
	err := eachField(b, valueInfoProtoWhat, func(fl field) error {
		switch fl.num {
		case valueInfoName:
			var err error
			v.Name, err = fl.str("ValueInfoProto.name")
			return err
		case valueInfoType:
			tb, err := fl.msg("ValueInfoProto.type")
			if err != nil {
				return err
			}
			return eachField(tb, typeProtoWhat, func(fl field) error {
				if fl.num != typeTensorType {
					return nil
				}
				ttb, err := fl.msg("TypeProto.tensor_type")
				if err != nil {
					return err
				}
				return decodeTensorType(ttb, v)
			})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("value %q: %w", v.Name, err)
	}
	return v, nil
}

func decodeTensorType(b []byte, v *ValueInfo) error {
	return eachField(b, "TypeProto.Tensor", func(fl field) error {
		switch fl.num {
		case typeTensorElemType:
			t, err := fl.int("TypeProto.Tensor.elem_type")
			v.ElemType = int(t)
			return err
		case typeTensorShape:
			sb, err := fl.msg("TypeProto.Tensor.shape")
			if err != nil {
				return err
			}
			v.Dims = []Dim{}
			return eachField(sb, tensorShapeProtoWhat, func(fl field) error {
				if fl.num != shapeDim {
					return nil
				}
				db, err := fl.msg("TensorShapeProto.dim")
				if err != nil {
					return err
				}
				var d Dim
				err = eachField(db, tensorShapeDimProtoWhat, func(fl field) error {
					var err error
					switch fl.num {
					case dimValue:
						d.Value, err = fl.int("Dimension.dim_value")
					case dimParam:
						d.Param, err = fl.str("Dimension.dim_param")
					}
					return err
				})
				v.Dims = append(v.Dims, d)
				return err
			})
		}
		return nil
	})
}

// Marshal encodes m as the bytes of an .onnx file.
func (m *Model) Marshal() []byte {
	var e encoder
	e.varint(modelIRVersion, m.IRVersion)
	if m.ProducerName != "" {
		e.str(modelProducerName, m.ProducerName)
	}
	if m.ProducerVersion != "" {
		e.str(modelProducerVersion, m.ProducerVersion)
	}
	if m.Graph != nil {
		e.message(modelGraph, m.Graph.encode)
	}
	for _, d := range sortedNames(m.Opsets) {
		e.message(modelOpsetImport, func(e *encoder) {
			if d != "" {
				e.str(opsetDomain, d)
			}
			e.varint(opsetVersion, m.Opsets[d])
		})
	}
	return e.b
}

func (g *Graph) encode(e *encoder) {
	for _, n := range g.Nodes {
		e.message(graphNode, n.encode)
	}
	if g.Name != "" {
		e.str(graphName, g.Name)
	}
	for _, t := range g.Initializers {
		e.message(graphInitializer, t.encode)
	}
	for _, v := range g.Inputs {
		e.message(graphInput, v.encode)
	}
	for _, v := range g.Outputs {
		e.message(graphOutput, v.encode)
	}
}

func (n *Node) encode(e *encoder) {
	for _, s := range n.Inputs {
		e.str(nodeInput, s)
	}
	for _, s := range n.Outputs {
		e.str(nodeOutput, s)
	}
	if n.Name != "" {
		e.str(nodeName, n.Name)
	}
	e.str(nodeOpType, n.OpType)
	for _, a := range n.Attrs {
		e.message(nodeAttribute, a.encode)
	}
	if n.Domain != "" {
		e.str(nodeDomain, n.Domain)
	}
}

func (a *Attribute) encode(e *encoder) {
	e.str(attrName, a.Name)
	switch a.Type {
	case AttrFloat:
		e.float(attrF, a.F)
	case AttrInt:
		e.varint(attrI, a.I)
	case AttrString:
		e.str(attrS, a.S)
	case AttrTensor:
		if a.T != nil {
			e.message(attrT, a.T.encode)
		}
	case AttrFloats:
		for _, f := range a.Floats {
			e.float(attrFloats, f)
		}
	case AttrInts:
		for _, v := range a.Ints {
			e.varint(attrInts, v)
		}
	}
	e.varint(attrType, int64(a.Type))
}

func (t *Tensor) encode(e *encoder) {
	for _, d := range t.Dims {
		e.varint(tensorDims, d)
	}
	e.varint(tensorDataType, int64(t.DataType))
	if len(t.FloatData) > 0 {
		b := make([]byte, 0, 4*len(t.FloatData))
		for _, f := range t.FloatData {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
		e.bytes(tensorFloatData, b)
	}
	if len(t.Int32Data) > 0 {
		var b []byte
		for _, v := range t.Int32Data {
			b = binary.AppendUvarint(b, uint64(int64(v)))
		}
		e.bytes(tensorInt32Data, b)
	}
	if len(t.Int64Data) > 0 {
		var b []byte
		for _, v := range t.Int64Data {
			b = binary.AppendUvarint(b, uint64(v))
		}
		e.bytes(tensorInt64Data, b)
	}
	if t.Name != "" {
		e.str(tensorName, t.Name)
	}
	if t.RawData != nil {
		e.bytes(tensorRawData, t.RawData)
	}
	if t.External {
		e.varint(tensorDataLocation, dataLocationExternal)
	}
}

func (v *ValueInfo) encode(e *encoder) {
	e.str(valueInfoName, v.Name)
	if v.ElemType == 0 {
		return
	}
	e.message(valueInfoType, func(e *encoder) {
		e.message(typeTensorType, func(e *encoder) {
			e.varint(typeTensorElemType, int64(v.ElemType))
			if v.Dims == nil {
				return
			}
			e.message(typeTensorShape, func(e *encoder) {
				for _, d := range v.Dims {
					e.message(shapeDim, func(e *encoder) {
						switch {
						case d.Param != "":
							e.str(dimParam, d.Param)
						case d.Value > 0:
							e.varint(dimValue, d.Value)
						}
					})
				}
			})
		})
	})
}
