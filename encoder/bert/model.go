package bert

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/dreval/dreval/encoder/tensor"
)

// Model is a BERT encoder ready to run: the weights of a Config, as float32,
// arranged for the forward pass. A Model is safe for concurrent use.
type Model struct {
	cfg     Config
	threads int

	wordEmb, posEmb, typeEmb []float32
	embLNg, embLNb           []float32
	layers                   []layer

	pool sync.Pool // *workspace
	gemm gemmFunc  // gemmNTNative, or gemmNTPortable in tests
}

// SeqError reports what is wrong with one sequence of a batch.
type SeqError struct {
	Seq int // index in the batch
	Err error
}

func (e *SeqError) Error() string { return fmt.Sprintf("bert: sequence %d: %v", e.Seq, e.Err) }

// Unwrap returns the underlying error.
func (e *SeqError) Unwrap() error { return e.Err }

// layer holds one transformer block. The query, key and value projections
// are stacked into one 3H×H matrix so they run as one matrix multiply.
type layer struct {
	qkvW       panels    // 3H×H
	qkvB       []float32 // 3H
	aoW        panels    // H×H: attention output projection
	aoB        []float32
	ln1g, ln1b []float32
	inW        panels // I×H
	inB        []float32
	outW       panels // H×I
	outB       []float32
	ln2g, ln2b []float32
}

// New builds a Model from cfg and the tensors in w, named as in Hugging Face
// BertModel ("embeddings.word_embeddings.weight", ...) or with a "bert."
// prefix (BertForMaskedLM and similar checkpoints). A missing or misshapen
// tensor is an error naming it and the expected shape. New keeps the
// embedding and LayerNorm tensors without copying them, and packs the
// linear layers' weights for the matrix-multiply kernels, deleting each
// packed tensor from w so its memory can be reclaimed: the weights are
// held once, as float32. w should not be used afterwards.
func New(cfg Config, w tensor.Set) (*Model, error) {
	if err := cfg.Validate("config"); err != nil {
		return nil, err
	}
	H, I := cfg.HiddenSize, cfg.IntermediateSize
	prefix := ""
	if _, ok := w["embeddings.word_embeddings.weight"]; !ok {
		if _, ok := w["bert.embeddings.word_embeddings.weight"]; ok {
			prefix = "bert."
		}
	}
	var firstErr error
	get := func(name string, shape ...int) []float32 {
		t, err := w.Get(prefix+name, shape...)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return nil
		}
		return t.Data
	}
	// packed packs the n×k weights of the named tensors, stacked.
	packed := func(n, k int, names ...string) panels {
		var ws [][]float32
		for _, name := range names {
			ws = append(ws, get(name, n, k))
		}
		if firstErr != nil {
			return panels{}
		}
		all := ws[0]
		if len(ws) > 1 {
			all = make([]float32, 0, len(ws)*n*k)
			for _, x := range ws {
				all = append(all, x...)
			}
		}
		for _, name := range names {
			delete(w, prefix+name)
		}
		return pack(all, len(ws)*n, k)
	}
	m := &Model{cfg: cfg, threads: runtime.GOMAXPROCS(0), gemm: gemmNative}
	m.wordEmb = get("embeddings.word_embeddings.weight", cfg.VocabSize, H)
	m.posEmb = get("embeddings.position_embeddings.weight", cfg.MaxPositionEmbeddings, H)
	m.typeEmb = get("embeddings.token_type_embeddings.weight", cfg.TypeVocabSize, H)
	m.embLNg = get("embeddings.LayerNorm.weight", H)
	m.embLNb = get("embeddings.LayerNorm.bias", H)
	for l := 0; l < cfg.NumHiddenLayers; l++ {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		var ly layer
		ly.qkvW = packed(H, H, p+"attention.self.query.weight", p+"attention.self.key.weight", p+"attention.self.value.weight")
		qb := get(p+"attention.self.query.bias", H)
		kb := get(p+"attention.self.key.bias", H)
		vb := get(p+"attention.self.value.bias", H)
		if firstErr == nil {
			ly.qkvB = append(append(append(make([]float32, 0, 3*H), qb...), kb...), vb...)
		}
		ly.aoW = packed(H, H, p+"attention.output.dense.weight")
		ly.aoB = get(p+"attention.output.dense.bias", H)
		ly.ln1g = get(p+"attention.output.LayerNorm.weight", H)
		ly.ln1b = get(p+"attention.output.LayerNorm.bias", H)
		ly.inW = packed(I, H, p+"intermediate.dense.weight")
		ly.inB = get(p+"intermediate.dense.bias", I)
		ly.outW = packed(H, I, p+"output.dense.weight")
		ly.outB = get(p+"output.dense.bias", H)
		ly.ln2g = get(p+"output.LayerNorm.weight", H)
		ly.ln2b = get(p+"output.LayerNorm.bias", H)
		m.layers = append(m.layers, ly)
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return m, nil
}

// clone returns a Model sharing m's weights, with its own settings and
// scratch buffers.
func (m *Model) clone() *Model {
	return &Model{cfg: m.cfg, threads: m.threads, gemm: m.gemm,
		wordEmb: m.wordEmb, posEmb: m.posEmb, typeEmb: m.typeEmb,
		embLNg: m.embLNg, embLNb: m.embLNb, layers: m.layers}
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Kernel names the matrix-multiply kernel in use: "avx-4x16" on amd64
// with AVX, "portable-4x4" elsewhere (js/wasm included). Both give the
// same bits.
func Kernel() string { return nativeKernelName() }

// SetThreads sets how many goroutines a forward pass uses (at least 1). The
// default is runtime.GOMAXPROCS(0). Do not call it during a forward pass.
func (m *Model) SetThreads(n int) { m.threads = max(1, n) }

// Threads returns the number of goroutines a forward pass uses.
func (m *Model) Threads() int { return m.threads }

// workspace holds the scratch buffers of one forward pass, reused between
// calls through Model.pool.
type workspace struct {
	qkv, ctx, tmp, inter []float32
	scratch              []*attnScratch // one per thread
}

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// Forward runs the encoder on a batch of token-id sequences (token type 0,
// every token attended) and returns the last hidden state of each sequence:
// out[i] holds len(seqs[i]) rows of HiddenSize values.
//
// The sequences are packed one after another with no padding: the linear
// layers run on all tokens of the batch at once, and attention runs per
// sequence and head over that sequence's tokens only, which is exactly
// what a padding mask computes, without the wasted work. A sequence's
// result therefore does not depend on the other sequences in the batch.
//
// An empty sequence, one longer than MaxPositionEmbeddings, or an id outside
// [0, VocabSize) is a *SeqError naming the sequence (and position).
func (m *Model) Forward(seqs [][]int32) ([][]float32, error) {
	cfg := m.cfg
	H := cfg.HiddenSize
	offs := make([]int, len(seqs)+1)
	for s, ids := range seqs {
		if len(ids) == 0 {
			return nil, &SeqError{s, errors.New("no tokens (it needs at least one, usually [CLS] and [SEP])")}
		}
		if len(ids) > cfg.MaxPositionEmbeddings {
			return nil, &SeqError{s, fmt.Errorf("%d tokens, more than the model's %d positions", len(ids), cfg.MaxPositionEmbeddings)}
		}
		for p, id := range ids {
			if id < 0 || int(id) >= cfg.VocabSize {
				return nil, &SeqError{s, fmt.Errorf("position %d: token id %d is outside the vocabulary [0, %d)", p, id, cfg.VocabSize)}
			}
		}
		offs[s+1] = offs[s] + len(ids)
	}
	T := offs[len(seqs)]
	x := make([]float32, T*H)
	out := make([][]float32, len(seqs))
	for s := range seqs {
		out[s] = x[offs[s]*H : offs[s+1]*H : offs[s+1]*H]
	}
	if T == 0 {
		return out, nil
	}

	ws, _ := m.pool.Get().(*workspace)
	if ws == nil {
		ws = &workspace{}
	}
	defer m.pool.Put(ws)
	ws.qkv = grow(ws.qkv, T*3*H)
	ws.ctx = grow(ws.ctx, T*H)
	ws.tmp = grow(ws.tmp, T*H)
	ws.inter = grow(ws.inter, T*cfg.IntermediateSize)
	for len(ws.scratch) < m.threads {
		ws.scratch = append(ws.scratch, &attnScratch{})
	}

	m.embed(x, seqs)
	for l := range m.layers {
		m.layer(&m.layers[l], x, T, offs, ws)
	}
	return out, nil
}

// embed writes word + position + token type 0 embeddings, layer-normed.
func (m *Model) embed(x []float32, seqs [][]int32) {
	H := m.cfg.HiddenSize
	eps := float32(m.cfg.LayerNormEps)
	t := 0
	typ := m.typeEmb[:H]
	for _, ids := range seqs {
		for p, id := range ids {
			row := x[t*H : (t+1)*H]
			we := m.wordEmb[int(id)*H : (int(id)+1)*H]
			pe := m.posEmb[p*H : (p+1)*H]
			for i := range row {
				row[i] = we[i] + pe[i] + typ[i]
			}
			layerNorm(row, row, m.embLNg, m.embLNb, eps)
			t++
		}
	}
}

// parallel runs f over [0, n) split into at most m.threads contiguous
// chunks whose starts are multiples of align, and waits for all of them.
// f gets its worker index.
func (m *Model) parallel(n, align int, f func(worker, lo, hi int)) {
	workers := min(m.threads, (n+align-1)/align)
	if workers <= 1 {
		f(0, 0, n)
		return
	}
	per := (n + workers - 1) / workers
	per = (per + align - 1) / align * align
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*per, min(n, (w+1)*per)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w, lo, hi)
		}()
	}
	wg.Wait()
}

// layer runs one transformer block on x (T×H) in place.
func (m *Model) layer(ly *layer, x []float32, T int, offs []int, ws *workspace) {
	cfg := m.cfg
	H, I := cfg.HiddenSize, cfg.IntermediateSize
	eps := float32(cfg.LayerNormEps)
	H3 := 3 * H

	// Q, K and V for all tokens in one multiply.
	m.parallel(T, 4, func(_, lo, hi int) {
		m.gemm(hi-lo, x[lo*H:], H, ly.qkvW, ws.qkv[lo*H3:], H3, ly.qkvB)
	})

	// Attention, per sequence and head.
	nh := cfg.NumAttentionHeads
	nSeq := len(offs) - 1
	m.parallel(nSeq*nh, 1, func(w, lo, hi int) {
		for task := lo; task < hi; task++ {
			s, h := task/nh, task%nh
			m.attend(ws.qkv, ws.ctx, offs[s], offs[s+1], h, ws.scratch[w])
		}
	})

	// Output projection, residual, LayerNorm.
	m.parallel(T, 4, func(_, lo, hi int) {
		m.gemm(hi-lo, ws.ctx[lo*H:], H, ly.aoW, ws.tmp[lo*H:], H, ly.aoB)
		for t := lo; t < hi; t++ {
			row := x[t*H : (t+1)*H]
			addLayerNorm(row, ws.tmp[t*H:(t+1)*H], ly.ln1g, ly.ln1b, eps)
		}
	})

	// Feed-forward: GELU(x·Wiᵀ + bi)·Woᵀ + bo, residual, LayerNorm.
	m.parallel(T, 4, func(_, lo, hi int) {
		inter := ws.inter[lo*I : hi*I]
		m.gemm(hi-lo, x[lo*H:], H, ly.inW, inter, I, ly.inB)
		gelu(inter)
		m.gemm(hi-lo, inter, I, ly.outW, ws.tmp[lo*H:], H, ly.outB)
		for t := lo; t < hi; t++ {
			row := x[t*H : (t+1)*H]
			addLayerNorm(row, ws.tmp[t*H:(t+1)*H], ly.ln2g, ly.ln2b, eps)
		}
	})
}

// attnScratch holds one goroutine's attention buffers.
type attnScratch struct {
	scores []float32 // L×L
	k, v   panels    // K and Vᵀ of one head, packed
}

// attend computes head h of scaled dot-product attention for the tokens
// [lo, hi) of one sequence, reading Q, K, V from qkv (T×3H) and writing the
// head's slice of ctx (T×H). Both products (QKᵀ and PV) run on the
// matrix-multiply kernel.
func (m *Model) attend(qkv, ctx []float32, lo, hi, h int, sc *attnScratch) {
	H := m.cfg.HiddenSize
	d := H / m.cfg.NumAttentionHeads
	H3 := 3 * H
	L := hi - lo
	sc.scores = grow(sc.scores, L*L)
	scores := sc.scores
	base := lo*H3 + h*d
	// scores = Q·Kᵀ: K (L×d) is the weight matrix.
	packInto(&sc.k, qkv[base+H:], H3, L, d, false)
	m.gemm(L, qkv[base:], H3, sc.k, scores, L, nil)
	scale := float32(1 / math.Sqrt(float64(d)))
	for i := 0; i < L; i++ {
		row := scores[i*L : (i+1)*L]
		maxS := row[0]
		for _, v := range row {
			maxS = max(maxS, v)
		}
		var sum float32
		for j, v := range row {
			e := expf((v - maxS) * scale)
			row[j] = e
			sum += e
		}
		inv := 1 / sum
		for j := range row {
			row[j] *= inv
		}
	}
	// ctx = P·V: Vᵀ (d×L) is the weight matrix.
	packInto(&sc.v, qkv[base+2*H:], H3, L, d, true)
	m.gemm(L, scores, L, sc.v, ctx[lo*H+h*d:], H, nil)
}

// layerNorm writes LayerNorm(x)·g + b into dst (which may be x).
func layerNorm(dst, x, g, b []float32, eps float32) {
	var mean, sq float64
	for _, v := range x {
		mean += float64(v)
	}
	mean /= float64(len(x))
	for _, v := range x {
		d := float64(v) - mean
		sq += float64(d * d)
	}
	inv := float32(1 / math.Sqrt(sq/float64(len(x))+float64(eps)))
	mf := float32(mean)
	g, b, dst = g[:len(x)], b[:len(x)], dst[:len(x)]
	for i, v := range x {
		dst[i] = float32((v-mf)*inv*g[i]) + b[i]
	}
}

// addLayerNorm sets x = LayerNorm(x + y)·g + b.
func addLayerNorm(x, y, g, b []float32, eps float32) {
	y = y[:len(x)]
	for i := range x {
		x[i] += y[i]
	}
	layerNorm(x, x, g, b, eps)
}

// gelu applies the exact GELU, x·Φ(x) = x/2·(1 + erf(x/√2)), in place,
// with the float32 erf of erff.
func gelu(x []float32) {
	for i, v := range x {
		x[i] = 0.5 * v * (1 + erff(v*0.70710678118654752))
	}
}
