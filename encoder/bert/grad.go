package bert

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/dreval/dreval/encoder"
)

// Tape is the forward pass of one sequence in precision F, kept for its
// backward pass: Record makes it, Backward differentiates through it.
//
// In float32 the forward pass is Forward's, bit for bit (the same
// kernels, the same order of every sum); in float64 it is the same
// computation in float64, from the float32 weights, with exact exp, erf
// and tanh, for checking gradients against finite differences.
//
// A Tape is not safe for concurrent use; several Tapes of one Model are.
type Tape[F encoder.Float] struct {
	// Hidden is the last layer's hidden states: one row of HiddenSize
	// values per token, as Forward returns them.
	Hidden []F

	m      *Model
	net    *gradNet[F]
	T      int
	z0     []F // the embeddings' sum before their LayerNorm (T×H)
	layers []tapeLayer[F]
	bufs   *gradBuffers[F] // the memory of all the slices above and Backward's
}

// gradBuffers is the memory of a Tape and its Backward, reused between
// the gradients of ScoreGradientAt through the Model's pool.
type gradBuffers[F encoder.Float] struct {
	tape    []F // Hidden, z0 and the layers' records
	back    []F // Backward's gradients
	scratch []gradScratch[F]
}

// gradPool returns the Model's pool of *gradBuffers[F].
func gradPool[F encoder.Float](m *Model) *sync.Pool {
	if _, ok := any(F(0)).(float32); ok {
		return &m.gradBufs32
	}
	return &m.gradBufs64
}

// release returns the tape's memory to the Model's pool: the tape, Hidden
// included, must not be used afterwards.
func (tp *Tape[F]) release() {
	if tp.bufs != nil {
		gradPool[F](tp.m).Put(tp.bufs)
		tp.bufs, tp.Hidden, tp.z0, tp.layers = nil, nil, nil, nil
	}
}

// tapeLayer holds what one layer's backward pass reads.
type tapeLayer[F encoder.Float] struct {
	qkv   []F // T×3H: queries, keys and values
	probs []F // heads×T×T: the attention weights
	z1    []F // T×H: input + attention output, before the LayerNorm
	du    []F // T×I: the activation's derivative at its input
	z2    []F // T×H: before the second LayerNorm
}

// gradNet is a Model's weights in precision F, arranged for Record and
// Backward.
type gradNet[F encoder.Float] struct {
	posEmb  []F
	typeRow []F // token type 0's row; nil without token types
	lnG     []F
	lnB     []F
	eps     F
	relBias []F // MPNet's, [buckets][heads]; nil for the other families
	layers  []gradLayer[F]
}

// gradLayer is one transformer block of a gradNet.
type gradLayer[F encoder.Float] struct {
	qkv, ao, in, out       linear[F]
	ln1g, ln1b, ln2g, ln2b []F
}

// linear is a linear layer y = x·Wᵀ + b (W of n rows and k columns, a
// PyTorch Linear weight) in precision F.
type linear[F encoder.Float] interface {
	// forward sets y (rows×n) to x (rows×k)·Wᵀ + b.
	forward(m *Model, rows int, x, y []F)
	// backward sets dx (rows×k) to dy (rows×n)·W, the gradient with
	// respect to x of a scalar whose gradient with respect to y is dy.
	backward(m *Model, rows int, dy, dx []F)
}

// linear32 runs a linear layer on the matrix-multiply kernels, with the
// weights packed for the forward pass; the backward pass packs their
// transpose into a pooled buffer each time (see transposeInto). For a
// 50-token passage of all-MiniLM-L6-v2 the transposes take about an
// eighth of the gradient's time, and keep no second copy of the weights
// (42 MB).
type linear32 struct {
	w panels
	b []float32
}

func (l *linear32) forward(m *Model, rows int, x, y []float32) {
	n, k := l.w.n, l.w.k
	m.parallel(rows, 4, func(_, lo, hi int) {
		m.gemmAligned(hi-lo, x[lo*k:], k, l.w, y[lo*n:], n, l.b)
	})
}

func (l *linear32) backward(m *Model, rows int, dy, dx []float32) {
	n, k := l.w.n, l.w.k
	wt := transposeBufs.Get().(*panels)
	defer transposeBufs.Put(wt)
	m.transposeInto(wt, l.w)
	m.parallel(rows, 4, func(_, lo, hi int) {
		m.gemmAligned(hi-lo, dy[lo*n:], n, *wt, dx[lo*k:], k, nil)
	})
}

// transposeBufs holds the transposed weights of linear32.backward.
var transposeBufs = sync.Pool{New: func() any { return new(panels) }}

// transposeInto packs into dst, reusing its memory, Wᵀ (k×n) for W (n×k)
// packed in w. Both packings are made of panelWidth×panelWidth blocks
// that lie whole and in order in memory, one the other's transpose, so it
// moves block by block, on Threads goroutines.
func (m *Model) transposeInto(dst *panels, w panels) {
	const pw = panelWidth
	n, k := w.n, w.k
	np, nq := (k+pw-1)/pw, (n+pw-1)/pw // panels of Wᵀ, of W
	size := np * pw * n
	data := grow(dst.data, size)
	if k%pw != 0 {
		clear(data[(np-1)*pw*n:])
	}
	m.parallel(np, 1, func(_, lo, hi int) {
		for r := lo; r < hi; r++ { // columns [r·pw, r·pw+pw) of W
			for q := range nq { // rows [q·pw, q·pw+pw) of W
				if (q+1)*pw <= n && (r+1)*pw <= k {
					src := (*[pw * pw]float32)(w.data[q*pw*k+r*pw*pw:])
					blk := (*[pw * pw]float32)(data[r*pw*n+q*pw*pw:])
					for jj := range pw {
						row := (*[pw]float32)(blk[jj*pw:])
						for pp := range pw {
							row[pp] = src[pp*pw+jj]
						}
					}
					continue
				}
				for jj := 0; jj < pw && q*pw+jj < n; jj++ {
					for pp := 0; pp < pw && r*pw+pp < k; pp++ {
						data[r*pw*n+(q*pw+jj)*pw+pp] = w.data[q*pw*k+(r*pw+pp)*pw+jj]
					}
				}
			}
		}
	})
	*dst = panels{n: k, k: n, data: data}
}

// gemmAligned is m.gemm for any number of rows: the last rows%4 rows,
// which the kernels would compute one by one in plain Go (gemmRows,
// about 15 times slower a row than the AVX tiles), run as a block of 4
// padded with zero rows. Every element is computed as the kernels
// compute it wherever it lies, so the result has the same bits.
func (m *Model) gemmAligned(rows int, a []float32, lda int, w panels, c []float32, ldc int, bias []float32) {
	r4 := rows &^ 3
	if r4 > 0 {
		m.gemm(r4, a, lda, w, c, ldc, bias)
	}
	if r4 == rows {
		return
	}
	n, k := w.n, w.k
	bufp := padBufs.Get().(*[]float32)
	defer padBufs.Put(bufp)
	*bufp = grow(*bufp, 4*k+4*n)
	in, out := (*bufp)[:4*k], (*bufp)[4*k:]
	clear(in)
	for i := r4; i < rows; i++ {
		copy(in[(i-r4)*k:(i-r4+1)*k], a[i*lda:i*lda+k])
	}
	m.gemm(4, in, k, w, out, n, bias)
	for i := r4; i < rows; i++ {
		copy(c[i*ldc:i*ldc+n], out[(i-r4)*n:(i-r4+1)*n])
	}
}

// padBufs holds gemmAligned's buffers.
var padBufs = sync.Pool{New: func() any { return new([]float32) }}

// linear64 is a linear layer in float64, in plain loops.
type linear64 struct {
	w    []float64 // n×k, row-major
	b    []float64
	n, k int
}

func (l *linear64) forward(m *Model, rows int, x, y []float64) {
	n, k := l.n, l.k
	m.parallel(rows, 1, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			xi := x[i*k : (i+1)*k]
			for j := range n {
				s := l.b[j]
				for p, w := range l.w[j*k : (j+1)*k] {
					s += w * xi[p]
				}
				y[i*n+j] = s
			}
		}
	})
}

func (l *linear64) backward(m *Model, rows int, dy, dx []float64) {
	n, k := l.n, l.k
	m.parallel(rows, 1, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			di := dx[i*k : (i+1)*k]
			clear(di)
			for j, g := range dy[i*n : (i+1)*n] {
				for p, w := range l.w[j*k : (j+1)*k] {
					di[p] += g * w
				}
			}
		}
	})
}

// at returns element (j, p) of the matrix W that w packs.
func (w panels) at(j, p int) float32 {
	return w.data[(j/panelWidth)*panelWidth*w.k+p*panelWidth+j%panelWidth]
}

// unpack64 returns W (n×k, row-major) in float64, for W packed in w.
func (w panels) unpack64() []float64 {
	out := make([]float64, w.n*w.k)
	for j := range w.n {
		for p := range w.k {
			out[j*w.k+p] = float64(w.at(j, p))
		}
	}
	return out
}

// gradNet32 returns the model's float32 weights for the gradient passes:
// its own, not copied.
func (m *Model) gradNet32() *gradNet[float32] {
	m.grad32Once.Do(func() {
		H := m.cfg.HiddenSize
		g := &gradNet[float32]{posEmb: m.posEmb, lnG: m.embLNg, lnB: m.embLNb,
			eps: float32(m.cfg.LayerNormEps), relBias: m.relBias}
		if m.typeEmb != nil {
			g.typeRow = m.typeEmb[:H]
		}
		lin := func(w panels, b []float32) linear[float32] {
			return &linear32{w: w, b: b}
		}
		for _, ly := range m.layers {
			g.layers = append(g.layers, gradLayer[float32]{
				qkv: lin(ly.qkvW, ly.qkvB), ao: lin(ly.aoW, ly.aoB),
				in: lin(ly.inW, ly.inB), out: lin(ly.outW, ly.outB),
				ln1g: ly.ln1g, ln1b: ly.ln1b, ln2g: ly.ln2g, ln2b: ly.ln2b,
			})
		}
		m.grad32 = g
	})
	return m.grad32
}

// gradNet64 returns the model's weights in float64 for the gradient
// passes, converted on the first call.
func (m *Model) gradNet64() *gradNet[float64] {
	m.grad64Once.Do(func() {
		H := m.cfg.HiddenSize
		g := &gradNet[float64]{posEmb: to64(m.posEmb), lnG: to64(m.embLNg), lnB: to64(m.embLNb),
			eps: m.cfg.LayerNormEps, relBias: to64(m.relBias)}
		if m.typeEmb != nil {
			g.typeRow = to64(m.typeEmb[:H])
		}
		lin := func(w panels, b []float32) linear[float64] {
			return &linear64{w: w.unpack64(), b: to64(b), n: w.n, k: w.k}
		}
		for _, ly := range m.layers {
			g.layers = append(g.layers, gradLayer[float64]{
				qkv: lin(ly.qkvW, ly.qkvB), ao: lin(ly.aoW, ly.aoB),
				in: lin(ly.inW, ly.inB), out: lin(ly.outW, ly.outB),
				ln1g: to64(ly.ln1g), ln1b: to64(ly.ln1b), ln2g: to64(ly.ln2g), ln2b: to64(ly.ln2b),
			})
		}
		m.grad64 = g
	})
	return m.grad64
}

// gradNetOf returns the model's weights in precision F.
func gradNetOf[F encoder.Float](m *Model) *gradNet[F] {
	var g any
	switch any(F(0)).(type) {
	case float32:
		g = m.gradNet32()
	case float64:
		g = m.gradNet64()
	}
	return g.(*gradNet[F])
}

func to64(s []float32) []float64 {
	if s == nil {
		return nil
	}
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// WordEmbeddings returns the model's word-embedding table: one row of
// HiddenSize values per token id (not a copy). Record's input embeddings
// are rows of it.
func (m *Model) WordEmbeddings() []float32 { return m.wordEmb }

// Record runs the forward pass of one sequence in precision F and keeps
// what its backward pass needs. inputs are the sequence's input token
// embeddings, one row of HiddenSize values per id, which stand for the
// word embeddings the ids select (nil: those rows); the ids still decide
// the positions and are checked as Forward checks them. The embedding
// sum adds the position and token-type rows to inputs, so the gradient
// with respect to inputs is that with respect to the word-embedding rows.
//
// The tape holds, per layer, the queries, keys and values, the attention
// weights, the activation's derivative and the inputs of the two
// LayerNorms: for all-MiniLM-L6-v2 and 50 tokens, 6 MB in float32
// (ScoreGradientAt reuses that memory between gradients). In float32
// Record and Backward use the model's weights as they are, with no copy;
// the first call in float64 converts them to float64 (twice their
// memory), kept for later calls. Record runs on Threads goroutines, like
// Forward.
func Record[F encoder.Float](m *Model, ids []int32, inputs []F) (*Tape[F], error) {
	if err := m.checkIDs(ids); err != nil {
		return nil, fmt.Errorf("bert: %w", err)
	}
	cfg := m.cfg
	H, I, T := cfg.HiddenSize, cfg.IntermediateSize, len(ids)
	if inputs == nil {
		inputs = make([]F, T*H)
		for t, id := range ids {
			for i, v := range m.wordEmb[int(id)*H : (int(id)+1)*H] {
				inputs[t*H+i] = F(v)
			}
		}
	} else if len(inputs) != T*H {
		return nil, fmt.Errorf("bert: %d input embedding values for %d tokens of %d", len(inputs), T, H)
	}
	net := gradNetOf[F](m)
	nh := cfg.NumAttentionHeads
	bufs, _ := gradPool[F](m).Get().(*gradBuffers[F])
	if bufs == nil {
		bufs = &gradBuffers[F]{}
	}
	tp := &Tape[F]{m: m, net: net, T: T, layers: make([]tapeLayer[F], len(net.layers)), bufs: bufs}

	// What the backward pass reads, and the forward pass's scratch.
	perLayer := T*3*H + nh*T*T + T*H + T*I + T*H
	bufs.tape = grow(bufs.tape, 2*T*H+len(net.layers)*perLayer+3*T*H+T*I)
	slab := bufs.tape
	take := func(n int) []F {
		s := slab[:n:n]
		slab = slab[n:]
		return s
	}
	x := take(T * H)
	tp.z0 = take(T * H)
	for l := range tp.layers {
		tp.layers[l] = tapeLayer[F]{qkv: take(T * 3 * H), probs: take(nh * T * T), z1: take(T * H), du: take(T * I), z2: take(T * H)}
	}
	ctx, tmp, g := take(T*H), take(T*H), take(T*I)
	for len(bufs.scratch) < max(1, m.threads) {
		bufs.scratch = append(bufs.scratch, gradScratch[F]{})
	}
	for t, pos := range m.positionIDs(ids) {
		z := tp.z0[t*H : (t+1)*H]
		in := inputs[t*H : (t+1)*H]
		pe := net.posEmb[pos*H : (pos+1)*H]
		if typ := net.typeRow; typ != nil {
			for i := range z {
				z[i] = in[i] + pe[i] + typ[i]
			}
		} else {
			for i := range z {
				z[i] = in[i] + pe[i]
			}
		}
		layerNorm(x[t*H:(t+1)*H], z, net.lnG, net.lnB, net.eps)
	}
	for l := range net.layers {
		tp.forwardLayer(&net.layers[l], &tp.layers[l], x, ctx, tmp, g, bufs.scratch)
	}
	tp.Hidden = x
	return tp, nil
}

// gradScratch holds one goroutine's buffers for attention.
type gradScratch[F encoder.Float] struct {
	a, b []F    // T×T
	pk   panels // a packed operand (float32)
}

// forwardLayer runs one transformer block on x (T×H) in place, recording
// into rec; ctx, tmp (T×H) and g (T×I) are scratch.
func (tp *Tape[F]) forwardLayer(ly *gradLayer[F], rec *tapeLayer[F], x, ctx, tmp, g []F, scratch []gradScratch[F]) {
	m, net, T := tp.m, tp.net, tp.T
	H, I := m.cfg.HiddenSize, m.cfg.IntermediateSize
	nh := m.cfg.NumAttentionHeads
	d, H3 := H/nh, 3*H
	scale := F(1 / math.Sqrt(float64(d)))

	ly.qkv.forward(m, T, x, rec.qkv)
	m.parallel(nh, 1, func(w, lo, hi int) {
		sc := &scratch[w]
		for h := lo; h < hi; h++ {
			// P = softmax(scale·Q·Kᵀ (+ bias)); ctx = P·V, for head h.
			p := rec.probs[h*T*T : (h+1)*T*T]
			mulNT(m, T, T, d, rec.qkv[h*d:], H3, rec.qkv[H+h*d:], H3, p, T, &sc.pk)
			net.softmax(m, p, T, h, scale)
			mulNN(m, T, d, T, p, T, rec.qkv[2*H+h*d:], H3, ctx[h*d:], H, &sc.pk)
		}
	})
	ly.ao.forward(m, T, ctx, tmp)
	for i, v := range tmp {
		rec.z1[i] = x[i] + v
	}
	m.parallel(T, 1, func(_, lo, hi int) {
		for t := lo; t < hi; t++ {
			layerNorm(x[t*H:(t+1)*H], rec.z1[t*H:(t+1)*H], ly.ln1g, ly.ln1b, net.eps)
		}
	})
	ly.in.forward(m, T, x, g)
	m.parallel(T, 1, func(_, lo, hi int) {
		activate(m.act, g[lo*I:hi*I], rec.du[lo*I:hi*I])
	})
	ly.out.forward(m, T, g, tmp)
	for i, v := range tmp {
		rec.z2[i] = x[i] + v
	}
	m.parallel(T, 1, func(_, lo, hi int) {
		for t := lo; t < hi; t++ {
			layerNorm(x[t*H:(t+1)*H], rec.z2[t*H:(t+1)*H], ly.ln2g, ly.ln2b, net.eps)
		}
	})
}

// softmax turns the T×T raw scores Q·Kᵀ of head h into attention weights
// in place, as Model.attend and Model.biasedSoftmax do: softmax over each
// row of scores·scale, plus MPNet's relative-position bias.
func (net *gradNet[F]) softmax(m *Model, s []F, T, h int, scale F) {
	for i := range T {
		row := s[i*T : (i+1)*T]
		if net.relBias == nil {
			maxS := row[0]
			for _, v := range row {
				maxS = max(maxS, v)
			}
			for j, v := range row {
				row[j] = (v - maxS) * scale
			}
		} else {
			nh := m.cfg.NumAttentionHeads
			mid := m.maxTokens - 1 // buckets index of distance 0
			bk := m.buckets[mid-i : mid-i+T]
			maxS := F(math.Inf(-1))
			for j, v := range row {
				v = v*scale + net.relBias[int(bk[j])*nh+h]
				row[j] = v
				maxS = max(maxS, v)
			}
			for j, v := range row {
				row[j] = v - maxS
			}
		}
		expInPlace(row)
		var sum F
		for _, e := range row {
			sum += e
		}
		inv := 1 / sum
		for j := range row {
			row[j] *= inv
		}
	}
}

// Backward returns the gradient with respect to the tape's input
// embeddings (len(ids) rows of HiddenSize values) of a scalar whose
// gradient with respect to Hidden is dHidden: the transformer's backward
// pass, through every layer's LayerNorms, residuals, feed-forward block
// and attention (softmax and all), and the embeddings' LayerNorm. It runs
// on Threads goroutines and may be called more than once, but not by
// several goroutines at once.
func (tp *Tape[F]) Backward(dHidden []F) ([]F, error) {
	m, net, T := tp.m, tp.net, tp.T
	H, I := m.cfg.HiddenSize, m.cfg.IntermediateSize
	nh := m.cfg.NumAttentionHeads
	if len(dHidden) != T*H {
		return nil, fmt.Errorf("bert: a gradient of %d values for hidden states of %d tokens of %d", len(dHidden), T, H)
	}
	if tp.bufs == nil {
		return nil, errors.New("bert: Backward of a released tape")
	}
	bufs := tp.bufs
	bufs.back = grow(bufs.back, 4*T*H+T*I+T*3*H)
	slab := bufs.back
	take := func(n int) []F {
		s := slab[:n:n]
		slab = slab[n:]
		return s
	}
	dx, dz, dctx, tmp := take(T*H), take(T*H), take(T*H), take(T*H)
	dg, dqkv := take(T*I), take(T*3*H)
	for len(bufs.scratch) < max(1, m.threads) {
		bufs.scratch = append(bufs.scratch, gradScratch[F]{})
	}
	scratch := bufs.scratch
	copy(dx, dHidden)
	for l := len(net.layers) - 1; l >= 0; l-- {
		ly, rec := &net.layers[l], &tp.layers[l]
		// Second LayerNorm, feed-forward block, residual.
		tp.layerNormBackward(dz, dx, rec.z2, ly.ln2g)
		ly.out.backward(m, T, dz, dg)
		for i, v := range rec.du {
			dg[i] *= v
		}
		ly.in.backward(m, T, dg, tmp)
		for i, v := range tmp {
			dx[i] = dz[i] + v
		}
		// First LayerNorm, attention, residual.
		tp.layerNormBackward(dz, dx, rec.z1, ly.ln1g)
		ly.ao.backward(m, T, dz, dctx)
		m.parallel(nh, 1, func(w, lo, hi int) {
			for h := lo; h < hi; h++ {
				tp.attentionBackward(rec, h, dctx, dqkv, &scratch[w])
			}
		})
		ly.qkv.backward(m, T, dqkv, tmp)
		for i, v := range tmp {
			dx[i] = dz[i] + v
		}
	}
	dIn := make([]F, T*H)
	tp.layerNormBackward(dIn, dx, tp.z0, net.lnG)
	return dIn, nil
}

// attentionBackward writes head h's columns of dqkv (T×3H: the gradients
// with respect to the queries, keys and values) from dctx (T×H), the
// gradient with respect to the attention's output.
func (tp *Tape[F]) attentionBackward(rec *tapeLayer[F], h int, dctx, dqkv []F, sc *gradScratch[F]) {
	m, T := tp.m, tp.T
	H := m.cfg.HiddenSize
	d, H3 := H/m.cfg.NumAttentionHeads, 3*H
	scale := F(1 / math.Sqrt(float64(d)))
	sc.a, sc.b = grow(sc.a, T*T), grow(sc.b, T*T)
	p := rec.probs[h*T*T : (h+1)*T*T]
	q, k, v := rec.qkv[h*d:], rec.qkv[H+h*d:], rec.qkv[2*H+h*d:]
	dc := dctx[h*d:]
	dp, t := sc.a, sc.b
	// ctx = P·V: dP = dctx·Vᵀ, dV = Pᵀ·dctx.
	mulNT(m, T, T, d, dc, H, v, H3, dp, T, &sc.pk)
	transposeSquare(t, p, T)
	mulNN(m, T, d, T, t, T, dc, H, dqkv[2*H+h*d:], H3, &sc.pk)
	// P = softmax(logits), logits = scale·S (+ bias): dS = scale·P⊙(dP -
	// Σⱼ dP⊙P), row by row; the bias does not depend on the input.
	for i := range T {
		pr, dr := p[i*T:(i+1)*T], dp[i*T:(i+1)*T]
		var s float64
		for j, pv := range pr {
			s += float64(pv) * float64(dr[j])
		}
		for j, pv := range pr {
			dr[j] = F(float64(pv)*(float64(dr[j])-s)) * scale
		}
	}
	// S = Q·Kᵀ: dQ = dS·K, dK = dSᵀ·Q.
	mulNN(m, T, d, T, dp, T, k, H3, dqkv[h*d:], H3, &sc.pk)
	transposeSquare(t, dp, T)
	mulNN(m, T, d, T, t, T, q, H3, dqkv[H+h*d:], H3, &sc.pk)
}

// layerNormBackward writes to dz (T×H) the gradient with respect to the
// LayerNorms' inputs z (T×H, one LayerNorm a row, weight g) of dy, the
// gradient with respect to their outputs:
// dz = inv·(γ⊙dy - mean(γ⊙dy) - ẑ·mean(γ⊙dy⊙ẑ)), ẑ the normalised row and
// inv 1/sqrt(variance + eps), both recomputed as layerNorm computes them.
func (tp *Tape[F]) layerNormBackward(dz, dy, z, g []F) {
	H := tp.m.cfg.HiddenSize
	eps := float64(tp.net.eps)
	tp.m.parallel(tp.T, 1, func(_, lo, hi int) {
		for t := lo; t < hi; t++ {
			zr, dyr, dzr := z[t*H:(t+1)*H], dy[t*H:(t+1)*H], dz[t*H:(t+1)*H]
			var mean, sq float64
			for _, v := range zr {
				mean += float64(v)
			}
			mean /= float64(H)
			for _, v := range zr {
				d := float64(v) - mean
				sq += d * d
			}
			inv := 1 / math.Sqrt(sq/float64(H)+eps)
			var sg, sgz float64
			for i, v := range zr {
				gi := float64(g[i]) * float64(dyr[i])
				sg += gi
				sgz += gi * (float64(v) - mean) * inv
			}
			sg /= float64(H)
			sgz /= float64(H)
			for i, v := range zr {
				gi := float64(g[i]) * float64(dyr[i])
				dzr[i] = F(inv * (gi - sg - (float64(v)-mean)*inv*sgz))
			}
		}
	})
}

// transposeSquare writes the transpose of the n×n matrix a to dst.
func transposeSquare[F encoder.Float](dst, a []F, n int) {
	for i := range n {
		for j := range n {
			dst[j*n+i] = a[i*n+j]
		}
	}
}

// mulNT sets c (rows×n, row stride ldc) to a (rows×k, stride lda) times
// the transpose of b (n×k, stride ldb): in float32 on the model's
// kernel (b packed into pk), so with the kernels' order of every sum; in
// float64 in plain loops.
func mulNT[F encoder.Float](m *Model, rows, n, k int, a []F, lda int, b []F, ldb int, c []F, ldc int, pk *panels) {
	switch a := any(a).(type) {
	case []float32:
		packInto(pk, any(b).([]float32), ldb, n, k, false)
		m.gemmAligned(rows, a, lda, *pk, any(c).([]float32), ldc, nil)
	case []float64:
		b, c := any(b).([]float64), any(c).([]float64)
		for i := range rows {
			ai := a[i*lda : i*lda+k]
			for j := range n {
				var s float64
				for p, v := range b[j*ldb : j*ldb+k] {
					s += ai[p] * v
				}
				c[i*ldc+j] = s
			}
		}
	}
}

// mulNN sets c (rows×n, row stride ldc) to a (rows×k, stride lda) times b
// (k×n, stride ldb), as mulNT does.
func mulNN[F encoder.Float](m *Model, rows, n, k int, a []F, lda int, b []F, ldb int, c []F, ldc int, pk *panels) {
	switch a := any(a).(type) {
	case []float32:
		packInto(pk, any(b).([]float32), ldb, k, n, true)
		m.gemmAligned(rows, a, lda, *pk, any(c).([]float32), ldc, nil)
	case []float64:
		b, c := any(b).([]float64), any(c).([]float64)
		for i := range rows {
			ci := c[i*ldc : i*ldc+n]
			clear(ci)
			for p, v := range a[i*lda : i*lda+k] {
				for j, w := range b[p*ldb : p*ldb+n] {
					ci[j] += v * w
				}
			}
		}
	}
}

// expInPlace sets x to e**x: with expf in float32 (the forward pass's),
// math.Exp in float64.
func expInPlace[F encoder.Float](x []F) {
	switch x := any(x).(type) {
	case []float32:
		for i, v := range x {
			x[i] = expf(v)
		}
	case []float64:
		for i, v := range x {
			x[i] = math.Exp(v)
		}
	}
}

// activate applies the feed-forward activation to x in place and writes
// its derivative at x to dx: in float32 with the forward pass's
// arithmetic (gelu, geluTanh, relu, whose bits it gives), in float64 with
// the exact functions. The derivative of GELU is Φ(x) + x·φ(x); of its
// tanh approximation ½(1 + t) + ½x(1 - t²)·√(2/π)(1 + 3·0.044715x²), with
// t = tanh(√(2/π)(x + 0.044715x³)); of ReLU 1 where x > 0, else 0.
func activate[F encoder.Float](act activation, x, dx []F) {
	const invSqrt2Pi = 0.3989422804014327 // 1/√(2π)
	switch x := any(x).(type) {
	case []float32:
		dx := any(dx).([]float32)
		for i, v := range x {
			switch act {
			case actGELU:
				e := erff(v * 0.70710678118654752)
				x[i] = 0.5 * v * (1 + e)
				dx[i] = 0.5*(1+e) + v*expf(-0.5*v*v)*invSqrt2Pi
			case actGELUTanh:
				u := float32(sqrt2OverPi * float32(v+float32(0.044715*float32(v*float32(v*v)))))
				t := tanhf(u)
				x[i] = 0.5 * v * (1 + t)
				dx[i] = 0.5*(1+t) + 0.5*v*(1-t*t)*sqrt2OverPi*(1+3*0.044715*v*v)
			case actReLU:
				dx[i] = 0
				if v > 0 {
					dx[i] = 1
				} else if v < 0 {
					x[i] = 0
				}
			}
		}
	case []float64:
		dx := any(dx).([]float64)
		for i, v := range x {
			switch act {
			case actGELU:
				e := math.Erf(v / math.Sqrt2)
				x[i] = 0.5 * v * (1 + e)
				dx[i] = 0.5*(1+e) + v*math.Exp(-0.5*v*v)*invSqrt2Pi
			case actGELUTanh:
				t := math.Tanh(sqrt2OverPi * (v + 0.044715*v*v*v))
				x[i] = 0.5 * v * (1 + t)
				dx[i] = 0.5*(1+t) + 0.5*v*(1-t*t)*sqrt2OverPi*(1+3*0.044715*v*v)
			case actReLU:
				dx[i] = 0
				if v > 0 {
					dx[i] = 1
				} else if v < 0 {
					x[i] = 0
				}
			}
		}
	}
}

// sqrt2OverPi is √(2/π), of the tanh approximation of GELU.
const sqrt2OverPi = 0.7978845608028654
