package quantize

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/internal/float16"
)

// Float16Options configure Float16.
type Float16Options struct {
	// Float32Outputs keeps the graph's float outputs float32 (a Cast at
	// the end where they are computed in float16); otherwise they are
	// float16, as Transformers.js' fp16 exports give them.
	Float32Outputs bool
}

// float32Ops run in float32 in a float16 graph: normalisations, softmax,
// reductions and the operations whose float16 results lose most (powers,
// roots, exponentials).
var float32Ops = map[string]bool{
	"LayerNormalization": true, "Softmax": true, "LogSoftmax": true,
	"ReduceMean": true, "ReduceSum": true, "ReduceSumSquare": true, "ReduceL2": true, "ReduceProd": true,
	"Pow": true, "Sqrt": true, "Exp": true, "Log": true, "Reciprocal": true,
}

// float16Ops compute in float16 whatever their inputs: the matrix products
// (their float32 inputs, a layer norm's output say, are cast down).
var float16Ops = map[string]bool{"MatMul": true, "Gemm": true}

// nonFloatOut are operators whose outputs are never float.
var nonFloatOut = map[string]bool{
	"Shape": true, "Size": true, "Equal": true, "Not": true, "Less": true, "Greater": true,
	"LessOrEqual": true, "GreaterOrEqual": true, "And": true, "Or": true, "Xor": true,
	"ArgMax": true, "ArgMin": true, "NonZero": true, "IsNaN": true, "IsInf": true,
}

// dataInputs returns the indices of n's inputs that carry its data (the
// ones whose element type its float outputs take), or nil for all.
func dataInputs(n *onnx.Node) []int {
	switch n.OpType {
	case "Gather", "GatherElements", "GatherND", "Reshape", "Expand", "Tile", "Slice", "Unsqueeze", "Squeeze", "Transpose", "Flatten", "Identity", "Pad":
		return []int{0}
	case "Where":
		return []int{1, 2}
	}
	return nil
}

// precision of a value in the float16 graph.
type precision int

const (
	notFloat precision = iota
	fp32
	fp16
)

// Float16 returns m, a float32 encoder graph, computing in float16 as the
// package documentation describes. m is not changed.
func Float16(m *onnx.Model, o Float16Options) (*onnx.Model, *Report, error) {
	if err := checkFloat32(m); err != nil {
		return nil, nil, err
	}
	r := newRewriter(m.Graph)
	rep := &Report{}
	prec := map[string]precision{}
	for _, v := range m.Graph.Inputs {
		if r.inits[v.Name] == nil {
			prec[v.Name] = precOf(v.ElemType)
		}
	}
	// Constants (initializers and Constant nodes' float values) take the
	// precision their consumer computes in: consts holds their float32
	// values, halves the float16 copies made.
	consts := map[string]*onnx.Tensor{}
	for name, t := range r.inits {
		if t.DataType == onnx.Float {
			consts[name] = t
		} else {
			prec[name] = precOf(t.DataType)
		}
	}
	halves := map[string]string{}
	casts := map[string]string{} // value -> its Cast to the other precision
	convert := func(v string, to precision) string {
		if t, ok := consts[v]; ok {
			if to == fp32 {
				return v
			}
			if h, ok := halves[v]; ok {
				return h
			}
			vals, err := t.Float32()
			if err != nil {
				return v // checked by ONNX Runtime: a float32 tensor it cannot read would fail either way
			}
			raw := make([]byte, 2*len(vals))
			for i, x := range vals {
				binary.LittleEndian.PutUint16(raw[2*i:], saturatingHalf(x))
			}
			h := r.addInit(v+"_fp16", onnx.Float16, t.Dims, raw)
			halves[v] = h
			rep.Float16++
			return h
		}
		if prec[v] == to || prec[v] == notFloat {
			return v
		}
		key := fmt.Sprintf("%s/%d", v, to)
		if c, ok := casts[key]; ok {
			return c
		}
		suffix, dt := "_fp32", onnx.Float
		if to == fp16 {
			suffix, dt = "_fp16", onnx.Float16
		}
		c := r.node("Cast", []string{v}, []string{v + suffix}, intAttr("to", int64(dt)))[0]
		prec[c] = to
		casts[key] = c
		rep.Casts++
		return c
	}
	isFloat := func(v string) bool { _, c := consts[v]; return c || prec[v] != notFloat }

	for _, old := range m.Graph.Nodes {
		n := *old
		n.Inputs = append([]string(nil), old.Inputs...)
		n.Outputs = append([]string(nil), old.Outputs...)
		if n.OpType == "Constant" {
			if a := n.Attr("value"); a != nil && a.T != nil && a.T.DataType == onnx.Float && len(n.Outputs) == 1 {
				// A float constant: an initializer, read in the
				// precision of each reader.
				t := *a.T
				t.Name = n.Outputs[0]
				consts[t.Name] = &t
				r.inits[t.Name] = &t
				r.added = append(r.added, &t) // kept when something reads it in float32
				continue
			}
		}
		data := dataInputs(&n)
		if data == nil {
			for i := range n.Inputs {
				data = append(data, i)
			}
		}
		seen32, seen16, anyFloat := false, false, false
		for _, i := range data {
			if i >= len(n.Inputs) || n.Inputs[i] == "" {
				continue
			}
			in := n.Inputs[i]
			if _, c := consts[in]; c {
				anyFloat = true
				continue
			}
			switch prec[in] {
			case fp32:
				seen32, anyFloat = true, true
			case fp16:
				seen16, anyFloat = true, true
			}
		}
		var p precision
		switch {
		case n.OpType == "Cast":
			p = precOf(int(n.AttrInt("to", 0)))
		case n.OpType == "ConstantOfShape":
			p = fp32 // float32 zeros unless its value says otherwise
			if a := n.Attr("value"); a != nil && a.T != nil {
				p = precOf(a.T.DataType)
			}
		case !anyFloat:
			p = notFloat
		case float32Ops[n.OpType]:
			p = fp32
		case float16Ops[n.OpType]:
			p = fp16
		case seen32:
			p = fp32
		case seen16:
			p = fp16
		default: // float constants only: weights, in float16
			p = fp16
		}
		if p != notFloat && n.OpType != "Cast" && n.OpType != "ConstantOfShape" {
			for _, i := range data {
				if i < len(n.Inputs) && n.Inputs[i] != "" && isFloat(n.Inputs[i]) {
					n.Inputs[i] = convert(n.Inputs[i], p)
				}
			}
		}
		for _, out := range n.Outputs {
			if nonFloatOut[n.OpType] {
				prec[out] = notFloat
			} else {
				prec[out] = p
			}
		}
		r.nodes = append(r.nodes, &n)
	}

	// The outputs: float16 unless asked otherwise, or float32.
	outs := make([]*onnx.ValueInfo, len(m.Graph.Outputs))
	for i, v := range m.Graph.Outputs {
		c := *v
		outs[i] = &c
		p := prec[v.Name]
		if p == notFloat {
			continue
		}
		want := fp16
		if o.Float32Outputs {
			want = fp32
		}
		if p != want {
			// The node computing it writes a new name, its readers read
			// that, and a Cast writes the output.
			inner := r.fresh(v.Name + map[precision]string{fp32: "_fp32", fp16: "_fp16"}[p])
			for _, n := range r.nodes {
				for j, o := range n.Outputs {
					if o == v.Name {
						n.Outputs[j] = inner
					}
				}
				for j, in := range n.Inputs {
					if in == v.Name {
						n.Inputs[j] = inner
					}
				}
			}
			dt := onnx.Float16
			if want == fp32 {
				dt = onnx.Float
			}
			r.nodeTo("Cast", []string{inner}, v.Name, intAttr("to", int64(dt)))
			rep.Casts++
		}
		outs[i].ElemType = onnx.Float
		if want == fp16 {
			outs[i].ElemType = onnx.Float16
		}
	}
	return r.finish(m, outs), rep, nil
}

// precOf is the precision of an element type.
func precOf(dt int) precision {
	switch dt {
	case onnx.Float:
		return fp32
	case onnx.Float16:
		return fp16
	}
	return notFloat
}

// saturatingHalf rounds f to float16, finite values beyond its range
// becoming ±65504 (the attention mask's lowest float, say) rather than
// infinities, which would turn 0 * x into NaN.
func saturatingHalf(f float32) uint16 {
	const maxHalf = 65504
	if !math.IsInf(float64(f), 0) && !math.IsNaN(float64(f)) {
		f = max(-maxHalf, min(maxHalf, f))
	}
	return float16.FromFloat32(f)
}
