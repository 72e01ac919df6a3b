// Package quantize rewrites a float32 ONNX encoder graph (as "dreval model
// export-onnx" writes it) into a smaller one that ONNX Runtime runs: an
// int8 graph with dynamic quantization (Int8) or a float16 graph (Float16).
// Neither graph runs on the pure-Go engine; both run on the ort engines.
//
// Int8 follows the ONNX operators' documented semantics. Every MatMul by a
// constant weight W [K, N] becomes
//
//	x_q, x_scale, x_zero = DynamicQuantizeLinear(x)  (uint8, per tensor, computed at run time)
//	y_int = MatMulInteger(x_q, W_q, x_zero, 0)       (int32)
//	y = Cast(y_int, float) * (x_scale * W_scale)
//
// where W_q = round(W / W_scale) in int8, symmetric (zero point 0, values
// in [-127, 127]), with one scale for the matrix (W_scale = max|W| / 127)
// or one per output column (Int8Options.PerChannel). DynamicQuantizeLinear
// quantizes x to uint8 with scale (max(x, 0) - min(x, 0)) / 255 and zero
// point round(-min(x, 0) / scale), so y approximates x W. The word
// embedding table, when Int8Options.Embeddings, is stored as int8 rows
// with one scale per row: Gather(T_q, ids) is cast to float and multiplied
// by Gather(T_scale, ids). ONNX Runtime fuses the first pattern into its
// DynamicQuantizeMatMul kernel.
//
// Float16 stores the float weights as float16 and computes the matrix
// products and element-wise operations in float16, while layer norms,
// softmax, reductions, powers and square roots run in float32 (their
// float16 inputs cast up; the attention mask and the residual stream, which
// come out of float32 operations, stay float32), with Casts where the two
// meet. Constants beyond float16's range saturate at ±65504 instead of
// becoming infinities.
package quantize

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/dreval/dreval/encoder/onnx"
)

// Int8Options configure Int8.
type Int8Options struct {
	// PerChannel gives each output column of a weight matrix its own
	// scale; otherwise one scale serves the whole matrix.
	PerChannel bool
	// Embeddings stores the word-embedding table (the one input_ids
	// indexes) as int8 rows with a scale per row.
	Embeddings bool
	// Unsigned stores the weights as uint8 with zero point 128 instead of
	// int8 with zero point 0 (the same 255 levels): ONNX Runtime's x86
	// kernels multiply uint8 by uint8 in 16 bits, where uint8 by int8
	// (without AVX-512 VNNI) sums pairs of products in 16 bits and can
	// saturate.
	Unsigned bool
	// ReduceRange keeps weights within 7 bits ([-63, 63]), the other
	// remedy for that saturation.
	ReduceRange bool
	// FloatDown keeps the matrix products by weights with more rows
	// than columns (a transformer layer's feed-forward down projection,
	// 1536 to 384 in MiniLM) in float32: their input, the GELU's output,
	// has the outliers that one scale per tensor, as
	// DynamicQuantizeLinear computes, resolves worst.
	FloatDown bool
	// Keep, when not nil, keeps the matrix products by the weights it
	// names (initializer names) in float32.
	Keep func(weight string) bool
}

// Report says what a rewrite did.
type Report struct {
	// MatMuls is the number of matrix products by a constant weight
	// rewritten (int8) ; Tables the embedding tables quantized.
	MatMuls, Tables int
	// Kept is the number of matrix products by a constant weight left
	// in float32 (Int8Options.FloatDown).
	Kept int
	// Float16 is the number of initializers stored as float16, Casts the
	// Cast nodes added (float16).
	Float16, Casts int
}

// checkFloat32 refuses a graph that is not a float32 encoder graph.
func checkFloat32(m *onnx.Model) error {
	if m.Graph == nil {
		return fmt.Errorf("the model has no graph")
	}
	g, err := onnx.InspectModel(m)
	if err != nil {
		return err
	}
	if g.Precision != onnx.PrecisionFP32 {
		return fmt.Errorf("the graph is already %s; quantize a float32 graph (\"dreval model export-onnx\" writes one)", g.Describe())
	}
	if len(g.FusedOps) > 0 {
		return fmt.Errorf("the graph has fused operators (%v); quantize a plain float32 graph", g.FusedOps)
	}
	if g.ExternalData {
		return fmt.Errorf("the graph keeps its tensors in external data files, which are not read; save it as one file")
	}
	if g.Opset < 13 {
		return fmt.Errorf("opset %d is older than 13, the first whose Unsqueeze and ReduceSum take their axes as inputs; export with opset 14 or newer", g.Opset)
	}
	return nil
}

// rewriter builds a graph from an old one.
type rewriter struct {
	old   *onnx.Graph
	inits map[string]*onnx.Tensor // the old graph's initializers
	nodes []*onnx.Node
	added []*onnx.Tensor
	names map[string]bool // every value name in use
}

func newRewriter(g *onnx.Graph) *rewriter {
	r := &rewriter{old: g, inits: map[string]*onnx.Tensor{}, names: map[string]bool{}}
	for _, t := range g.Initializers {
		r.inits[t.Name] = t
		r.names[t.Name] = true
	}
	for _, v := range g.Inputs {
		r.names[v.Name] = true
	}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			r.names[o] = true
		}
	}
	return r
}

// fresh returns base, or base with a number appended, unused so far.
func (r *rewriter) fresh(base string) string {
	name := base
	for i := 1; r.names[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	r.names[name] = true
	return name
}

// node appends a node with fresh outputs named after base and returns
// them.
func (r *rewriter) node(op string, inputs []string, outs []string, attrs ...*onnx.Attribute) []string {
	for i, o := range outs {
		outs[i] = r.fresh(o)
	}
	r.nodes = append(r.nodes, &onnx.Node{Name: outs[0], OpType: op, Inputs: inputs, Outputs: outs, Attrs: attrs})
	return outs
}

// nodeTo appends a node writing the existing name out.
func (r *rewriter) nodeTo(op string, inputs []string, out string, attrs ...*onnx.Attribute) {
	r.nodes = append(r.nodes, &onnx.Node{Name: out + "/" + op, OpType: op, Inputs: inputs, Outputs: []string{out}, Attrs: attrs})
}

// addInit adds an initializer under a fresh name based on base.
func (r *rewriter) addInit(base string, dataType int, dims []int64, raw []byte) string {
	name := r.fresh(base)
	r.added = append(r.added, &onnx.Tensor{Name: name, DataType: dataType, Dims: dims, RawData: raw})
	return name
}

// finish returns the model with the new nodes, the outputs outs, and the
// old graph's initializers that are still read, plus the added ones.
func (r *rewriter) finish(m *onnx.Model, outs []*onnx.ValueInfo) *onnx.Model {
	used := map[string]bool{}
	for _, n := range r.nodes {
		for _, in := range n.Inputs {
			used[in] = true
		}
	}
	for _, o := range outs {
		used[o.Name] = true
	}
	g := &onnx.Graph{Name: r.old.Name, Nodes: r.nodes, Outputs: outs}
	for _, t := range append(slices.Clone(r.old.Initializers), r.added...) {
		if used[t.Name] {
			g.Initializers = append(g.Initializers, t)
		}
	}
	for _, v := range r.old.Inputs {
		if r.inits[v.Name] == nil || used[v.Name] {
			g.Inputs = append(g.Inputs, v)
		}
	}
	out := *m
	out.Graph = g
	out.Opsets = map[string]int64{}
	for k, v := range m.Opsets {
		out.Opsets[k] = v
	}
	return &out
}

// floatMatrix returns the values of initializer name when it is a FLOAT
// matrix, with its rows and columns.
func (r *rewriter) floatMatrix(name string) ([]float32, int, int, bool) {
	t := r.inits[name]
	if t == nil || t.DataType != onnx.Float || len(t.Dims) != 2 {
		return nil, 0, 0, false
	}
	v, err := t.Float32()
	if err != nil {
		return nil, 0, 0, false
	}
	return v, int(t.Dims[0]), int(t.Dims[1]), true
}

func intAttr(name string, v int64) *onnx.Attribute {
	return &onnx.Attribute{Name: name, Type: onnx.AttrInt, I: v}
}

func floatsRaw(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func int8Raw(v []int8) []byte {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(x)
	}
	return b
}

// quantizeSymmetric returns round(v / scale) clamped to [-levels, levels].
func quantizeSymmetric(v, scale float32, levels int) int8 {
	q := math.RoundToEven(float64(v) / float64(scale))
	return int8(max(-float64(levels), min(float64(levels), q)))
}

// symmetricScale returns maxAbs / levels, or 1 for an all-zero v (any
// scale quantizes zeros exactly).
func symmetricScale(maxAbs float32, levels int) float32 {
	if maxAbs == 0 || math.IsInf(float64(maxAbs), 0) || math.IsNaN(float64(maxAbs)) {
		return 1
	}
	return maxAbs / float32(levels)
}

// Int8 returns m, a float32 encoder graph, with its matrix products by
// constant weights (and, with o.Embeddings, its word-embedding table)
// quantized to int8 as the package documentation describes. m is not
// changed.
func Int8(m *onnx.Model, o Int8Options) (*onnx.Model, *Report, error) {
	if err := checkFloat32(m); err != nil {
		return nil, nil, err
	}
	r := newRewriter(m.Graph)
	rep := &Report{}
	quantized := map[string]*qweight{} // weight initializer -> its int8 form
	dql := map[string][3]string{}      // activation -> its DynamicQuantizeLinear outputs
	ids := map[string]bool{onnx.InputIDs: true}
	for _, n := range m.Graph.Nodes {
		if n.OpType == "Cast" && len(n.Inputs) == 1 && ids[n.Inputs[0]] {
			for _, out := range n.Outputs {
				ids[out] = true
			}
		}
		switch {
		case n.OpType == "MatMul" && len(n.Inputs) == 2 && len(n.Outputs) == 1 && r.inits[n.Inputs[0]] == nil:
			if o.Keep != nil && o.Keep(n.Inputs[1]) {
				break
			}
			if t := r.inits[n.Inputs[1]]; o.FloatDown && t != nil && len(t.Dims) == 2 && t.Dims[0] > t.Dims[1] {
				rep.Kept++
				break
			}
			w, ok := quantized[n.Inputs[1]]
			if !ok {
				if w, ok = r.weight(n.Inputs[1], o); ok {
					quantized[n.Inputs[1]] = w
				}
			}
			if !ok {
				break
			}
			x := n.Inputs[0]
			q, ok := dql[x]
			if !ok {
				outs := r.node("DynamicQuantizeLinear", []string{x}, []string{x + "_quantized", x + "_scale", x + "_zero_point"})
				q = [3]string{outs[0], outs[1], outs[2]}
				dql[x] = q
			}
			out := n.Outputs[0]
			y := r.node("MatMulInteger", []string{q[0], w.q, q[2], w.zero}, []string{out + "_int32"})[0]
			yf := r.node("Cast", []string{y}, []string{out + "_float"}, intAttr("to", onnx.Float))[0]
			s := r.node("Mul", []string{q[1], w.scale}, []string{out + "_scale"})[0]
			r.nodeTo("Mul", []string{yf, s}, out)
			rep.MatMuls++
			continue
		case o.Embeddings && n.OpType == "Gather" && len(n.Inputs) == 2 && len(n.Outputs) == 1 && ids[n.Inputs[1]] && n.AttrInt("axis", 0) == 0:
			table, rows, cols, ok := r.floatMatrix(n.Inputs[0])
			if !ok {
				break
			}
			q := make([]int8, len(table))
			scales := make([]float32, rows)
			for i := 0; i < rows; i++ {
				row := table[i*cols : (i+1)*cols]
				var m float32
				for _, v := range row {
					m = max(m, float32(math.Abs(float64(v))))
				}
				scales[i] = symmetricScale(m, 127)
				for j, v := range row {
					q[i*cols+j] = quantizeSymmetric(v, scales[i], 127)
				}
			}
			name := n.Inputs[0]
			tq := r.addInit(name+"_quantized", onnx.Int8, []int64{int64(rows), int64(cols)}, int8Raw(q))
			ts := r.addInit(name+"_scale", onnx.Float, []int64{int64(rows)}, floatsRaw(scales))
			axes := r.addInit(name+"_scale_axes", onnx.Int64, []int64{1}, binary.LittleEndian.AppendUint64(nil, math.MaxUint64)) // [-1]
			out := n.Outputs[0]
			g := r.node("Gather", []string{tq, n.Inputs[1]}, []string{out + "_quantized"}, intAttr("axis", 0))[0]
			gf := r.node("Cast", []string{g}, []string{out + "_float"}, intAttr("to", onnx.Float))[0]
			s := r.node("Gather", []string{ts, n.Inputs[1]}, []string{out + "_scale"}, intAttr("axis", 0))[0]
			s = r.node("Unsqueeze", []string{s, axes}, []string{out + "_scale_unsqueezed"})[0]
			r.nodeTo("Mul", []string{gf, s}, out)
			rep.Tables++
			continue
		}
		r.nodes = append(r.nodes, n)
	}
	if rep.MatMuls == 0 {
		return nil, nil, fmt.Errorf("the graph has no matrix product by a constant float32 weight to quantize")
	}
	return r.finish(m, m.Graph.Outputs), rep, nil
}

// qweight is a weight matrix in int8: the names of its values, scale and
// zero point initializers.
type qweight struct{ q, scale, zero string }

// weight quantizes initializer name, a FLOAT [K, N] matrix, symmetrically
// to 8 bits as o says: one scale, or one per column.
func (r *rewriter) weight(name string, o Int8Options) (*qweight, bool) {
	w, k, n, ok := r.floatMatrix(name)
	if !ok {
		return nil, false
	}
	levels := 127
	if o.ReduceRange {
		levels = 63
	}
	scales := make([]float32, 1)
	if o.PerChannel {
		scales = make([]float32, n)
	}
	maxAbs := make([]float32, len(scales))
	for i, v := range w {
		c := 0
		if o.PerChannel {
			c = i % n
		}
		maxAbs[c] = max(maxAbs[c], float32(math.Abs(float64(v))))
	}
	for c := range scales {
		scales[c] = symmetricScale(maxAbs[c], levels)
	}
	q := make([]byte, len(w))
	for i, v := range w {
		c := 0
		if o.PerChannel {
			c = i % n
		}
		q[i] = byte(quantizeSymmetric(v, scales[c], levels))
		if o.Unsigned {
			q[i] += 128 // uint8 with zero point 128: the same value
		}
	}
	var scaleDims []int64 // a scalar
	if o.PerChannel {
		scaleDims = []int64{int64(n)}
	}
	dt, zero := onnx.Int8, byte(0)
	if o.Unsigned {
		dt, zero = onnx.Uint8, 128
	}
	return &qweight{
		q:     r.addInit(name+"_quantized", dt, []int64{int64(k), int64(n)}, q),
		scale: r.addInit(name+"_scale", onnx.Float, scaleDims, floatsRaw(scales)),
		zero:  r.addInit(name+"_zero_point", dt, nil, []byte{zero}),
	}, true
}
