package bert

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/modelfiles"
)

// Model is an encoder of one of the families ready to run: the weights of
// a Config, as float32, arranged for the forward pass. A Model is safe for
// concurrent use.
type Model struct {
	cfg     modelfiles.Config
	threads int

	wordEmb, posEmb, typeEmb []float32 // typeEmb nil without token types
	embLNg, embLNb           []float32
	layers                   []layer
	act                      activation
	// padIdx is the padding index positions count from, or -1 for
	// positions 0, 1, 2, ...; maxTokens the longest sequence taken.
	padIdx, maxTokens int
	// relBias is MPNet's relative-position bias, [buckets][heads];
	// buckets[d+maxTokens-1] is the bucket of key position - query
	// position d.
	relBias []float32
	buckets []int32
	// poolW and poolB are the pooler's, when the checkpoint has one.
	poolW panels
	poolB []float32

	pool sync.Pool // *workspace
	gemm gemmFunc  // gemmNTNative, or gemmNTPortable in tests

	// The weights for the gradient passes (see Record), made on first
	// use.
	grad32Once, grad64Once sync.Once
	grad32                 *gradNet[float32]
	grad64                 *gradNet[float64]
	gradBufs32, gradBufs64 sync.Pool // *gradBuffers
}

// activation is the feed-forward block's non-linearity.
type activation int

const (
	actGELU     activation = iota // exact, erf
	actGELUTanh                   // tanh approximation (gelu_new)
	actReLU
)

// ErrNoPooler is returned by Pooled for a checkpoint without pooler
// weights (DistilBERT, DPR's encoders, most sentence-transformers models).
var ErrNoPooler = errors.New("bert: the checkpoint has no pooler weights (pooler.dense)")

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

// New builds a Model from cfg and the tensors in w, with the backbone
// found under the prefix DetectPrefix finds: none (BertModel,
// RobertaModel, DistilBertModel, MPNetModel, sentence-transformers,
// Contriever), "bert.", "roberta.", "distilbert.", "mpnet." (the *For*
// task models, pyserini's ANCE), DPR's "question_encoder.bert_model." or
// "ctx_encoder.bert_model.", or any other. See NewWithPrefix.
func New(cfg modelfiles.Config, w tensor.Set) (*Model, error) {
	if err := cfg.Validate("config"); err != nil {
		return nil, err
	}
	prefix, err := DetectPrefix(cfg, w)
	if err != nil {
		return nil, fmt.Errorf("bert: %w", err)
	}
	return NewWithPrefix(cfg, w, prefix)
}

// NewWithPrefix builds a Model from cfg and the backbone tensors in w
// named prefix + the Hugging Face name of cfg's family (see Layout), such
// as "roberta.encoder.layer.0.attention.self.query.weight". Tensors
// outside the backbone (heads such as ANCE's embeddingHead and norm, DPR's
// encode_proj, masked-LM heads, other towers) are ignored; the pooler is
// loaded when the checkpoint has it (see Pooled). A missing or misshapen
// backbone tensor is an error naming it in full and the prefix (see
// Backbone). NewWithPrefix keeps the embedding and LayerNorm tensors
// without copying them, and packs the linear layers' weights for the
// matrix-multiply kernels, deleting each packed tensor from w so its
// memory can be reclaimed: the weights are held once, as float32. The
// backbone's tensors in w should not be used afterwards; the others are
// left as they were.
func NewWithPrefix(cfg modelfiles.Config, w tensor.Set, prefix string) (*Model, error) {
	bb, _, err := Backbone(cfg, w, prefix)
	if err != nil {
		return nil, fmt.Errorf("bert: %w", err)
	}
	H, I := cfg.HiddenSize, cfg.IntermediateSize
	l := LayoutOf(cfg.Family())
	ld := loader{bb: bb, w: w, prefix: prefix}
	get := ld.get
	packed := ld.packed
	m := &Model{cfg: cfg, threads: runtime.GOMAXPROCS(0), gemm: gemmNative,
		padIdx: cfg.PaddingIdx(), maxTokens: cfg.MaxTokens()}
	switch cfg.HiddenAct {
	case "gelu_new", "gelu_pytorch_tanh":
		m.act = actGELUTanh
	case "relu":
		m.act = actReLU
	}
	m.wordEmb = get(l.WordEmbeddings)
	m.posEmb = get(l.PositionEmbeddings)
	if l.TokenTypeEmbeddings != "" {
		m.typeEmb = get(l.TokenTypeEmbeddings)
	}
	m.embLNg = get(l.EmbeddingsLayerNorm + ".weight")
	m.embLNb = get(l.EmbeddingsLayerNorm + ".bias")
	if l.RelativeAttentionBias != "" {
		m.relBias = get(l.RelativeAttentionBias)
		m.buckets = make([]int32, 2*m.maxTokens-1)
		for i := range m.buckets {
			m.buckets[i] = int32(RelativePositionBucket(i - (m.maxTokens - 1)))
		}
	}
	for i := 0; i < cfg.NumHiddenLayers; i++ {
		p := l.Layer(i)
		var ly layer
		ly.qkvW = packed(H, H, p+l.Query+".weight", p+l.Key+".weight", p+l.Value+".weight")
		ly.qkvB = slices.Concat(get(p+l.Query+".bias"), get(p+l.Key+".bias"), get(p+l.Value+".bias"))
		ly.aoW = packed(H, H, p+l.AttentionOutput+".weight")
		ly.aoB = get(p + l.AttentionOutput + ".bias")
		ly.ln1g = get(p + l.AttentionLayerNorm + ".weight")
		ly.ln1b = get(p + l.AttentionLayerNorm + ".bias")
		ly.inW = packed(I, H, p+l.Intermediate+".weight")
		ly.inB = get(p + l.Intermediate + ".bias")
		ly.outW = packed(H, I, p+l.Output+".weight")
		ly.outB = get(p + l.Output + ".bias")
		ly.ln2g = get(p + l.OutputLayerNorm + ".weight")
		ly.ln2b = get(p + l.OutputLayerNorm + ".bias")
		m.layers = append(m.layers, ly)
	}
	if _, ok := bb[l.Pooler+".weight"]; ok && l.Pooler != "" {
		m.poolB = get(l.Pooler + ".bias")
		m.poolW = packed(H, H, l.Pooler+".weight")
	}
	return m, nil
}

// loader takes the tensors of a backbone (bb, checked by Backbone) for
// NewWithPrefix, deleting the packed ones from the checkpoint's set w.
type loader struct {
	bb, w  tensor.Set
	prefix string
}

func (ld loader) get(name string) []float32 { return ld.bb[name].Data }

// packed packs the n×k weights of the named tensors, stacked.
func (ld loader) packed(n, k int, names ...string) panels {
	all := ld.get(names[0])
	if len(names) > 1 {
		all = make([]float32, 0, len(names)*n*k)
		for _, name := range names {
			all = append(all, ld.get(name)...)
		}
	}
	for _, name := range names {
		delete(ld.w, ld.prefix+name)
	}
	return pack(all, len(names)*n, k)
}

// clone returns a Model sharing m's weights, with its own settings and
// scratch buffers.
func (m *Model) clone() *Model {
	return &Model{cfg: m.cfg, threads: m.threads, gemm: m.gemm,
		wordEmb: m.wordEmb, posEmb: m.posEmb, typeEmb: m.typeEmb,
		embLNg: m.embLNg, embLNb: m.embLNb, layers: m.layers, act: m.act,
		padIdx: m.padIdx, maxTokens: m.maxTokens, relBias: m.relBias, buckets: m.buckets,
		poolW: m.poolW, poolB: m.poolB}
}

// Config returns the model's configuration.
func (m *Model) Config() modelfiles.Config { return m.cfg }

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

func grow[F encoder.Float](s []F, n int) []F {
	if cap(s) < n {
		return make([]F, n)
	}
	return s[:n]
}

// Forward runs the encoder on a batch of token-id sequences (token type 0,
// every token attended) and returns the last layer's hidden states of each
// sequence: out[i] holds len(seqs[i]) rows of HiddenSize values, the
// last_hidden_state rows of Hugging Face's model for those tokens, in
// order. Position ids are the family's: 0, 1, 2, ... for BERT and
// DistilBERT; for RoBERTa and MPNet padding_idx+1, +2, ... counting the
// tokens that are not padding_idx, and padding_idx for those that are
// (create_position_ids_from_input_ids).
//
// The sequences are packed one after another with no padding: the linear
// layers run on all tokens of the batch at once, and attention runs per
// sequence and head over that sequence's tokens only, which is exactly
// what a padding mask computes, without the wasted work. A sequence's
// result therefore does not depend on the other sequences in the batch.
//
// An empty sequence, one longer than Config.MaxTokens, or an id outside
// [0, VocabSize) is a *SeqError naming the sequence (and position).
func (m *Model) Forward(seqs [][]int32) ([][]float32, error) {
	cfg := m.cfg
	H := cfg.HiddenSize
	offs := make([]int, len(seqs)+1)
	for s, ids := range seqs {
		if err := m.checkIDs(ids); err != nil {
			return nil, &SeqError{s, err}
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

// checkIDs says what is wrong with ids as one sequence of the model's:
// no token, more than the positions take, or an id outside the
// vocabulary.
func (m *Model) checkIDs(ids []int32) error {
	cfg := m.cfg
	if len(ids) == 0 {
		return errors.New("no tokens (it needs at least one, usually [CLS] and [SEP])")
	}
	if len(ids) > m.maxTokens {
		if m.maxTokens != cfg.MaxPositionEmbeddings {
			return fmt.Errorf("%d tokens, more than the model's %d (its %d positions start at %d)", len(ids), m.maxTokens, cfg.MaxPositionEmbeddings, cfg.PositionOffset())
		}
		return fmt.Errorf("%d tokens, more than the model's %d positions", len(ids), cfg.MaxPositionEmbeddings)
	}
	for p, id := range ids {
		if id < 0 || int(id) >= cfg.VocabSize {
			return fmt.Errorf("position %d: token id %d is outside the vocabulary [0, %d)", p, id, cfg.VocabSize)
		}
	}
	return nil
}

// positionIDs returns the position ids of ids (see Forward): 0, 1, 2,
// ..., or, counting from a padding index, padding_idx+1, +2, ... for the
// tokens that are not padding_idx and padding_idx for those that are.
func (m *Model) positionIDs(ids []int32) []int {
	pos := make([]int, len(ids))
	count := 0 // tokens other than padding so far
	for p, id := range ids {
		pos[p] = p
		if m.padIdx >= 0 {
			if pos[p] = m.padIdx; int(id) != m.padIdx {
				count++
				pos[p] += count
			}
		}
	}
	return pos
}

// embed writes word + position (+ token type 0) embeddings, layer-normed.
func (m *Model) embed(x []float32, seqs [][]int32) {
	H := m.cfg.HiddenSize
	eps := float32(m.cfg.LayerNormEps)
	t := 0
	var typ []float32
	if m.typeEmb != nil {
		typ = m.typeEmb[:H]
	}
	for _, ids := range seqs {
		for p, pos := range m.positionIDs(ids) {
			id := ids[p]
			row := x[t*H : (t+1)*H]
			we := m.wordEmb[int(id)*H : (int(id)+1)*H]
			pe := m.posEmb[pos*H : (pos+1)*H]
			if typ != nil {
				for i := range row {
					row[i] = we[i] + pe[i] + typ[i]
				}
			} else {
				for i := range row {
					row[i] = we[i] + pe[i]
				}
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

	// Feed-forward: act(x·Wiᵀ + bi)·Woᵀ + bo, residual, LayerNorm.
	m.parallel(T, 4, func(_, lo, hi int) {
		inter := ws.inter[lo*I : hi*I]
		m.gemm(hi-lo, x[lo*H:], H, ly.inW, inter, I, ly.inB)
		switch m.act {
		case actGELU:
			gelu(inter)
		case actGELUTanh:
			geluTanh(inter)
		case actReLU:
			relu(inter)
		}
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
	if m.relBias != nil {
		m.biasedSoftmax(scores, L, h, scale)
	} else {
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
	}
	// ctx = P·V: Vᵀ (d×L) is the weight matrix.
	packInto(&sc.v, qkv[base+2*H:], H3, L, d, true)
	m.gemm(L, scores, L, sc.v, ctx[lo*H+h*d:], H, nil)
}

// layerNorm writes LayerNorm(x)·g + b into dst (which may be x), with
// the mean and variance accumulated in float64.
func layerNorm[F encoder.Float](dst, x, g, b []F, eps F) {
	var mean, sq float64
	for _, v := range x {
		mean += float64(v)
	}
	mean /= float64(len(x))
	for _, v := range x {
		d := float64(v) - mean
		sq += float64(d * d)
	}
	inv := F(1 / math.Sqrt(sq/float64(len(x))+float64(eps)))
	mf := F(mean)
	g, b, dst = g[:len(x)], b[:len(x)], dst[:len(x)]
	for i, v := range x {
		dst[i] = F((v-mf)*inv*g[i]) + b[i]
	}
}

// addLayerNorm sets x = LayerNorm(x + y)·g + b.
func addLayerNorm[F encoder.Float](x, y, g, b []F, eps F) {
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

// biasedSoftmax turns the L×L raw scores Q·Kᵀ of head h into attention
// weights with MPNet's relative-position bias: softmax over each row of
// scores·scale + bias[bucket(j-i)][h].
func (m *Model) biasedSoftmax(scores []float32, L, h int, scale float32) {
	nh := m.cfg.NumAttentionHeads
	mid := m.maxTokens - 1 // buckets index of distance 0
	for i := 0; i < L; i++ {
		row := scores[i*L : (i+1)*L]
		bk := m.buckets[mid-i : mid-i+L] // distances -i .. L-1-i
		maxS := float32(math.Inf(-1))
		for j, v := range row {
			v = v*scale + m.relBias[int(bk[j])*nh+h]
			row[j] = v
			maxS = max(maxS, v)
		}
		var sum float32
		for j, v := range row {
			e := expf(v - maxS)
			row[j] = e
			sum += e
		}
		inv := 1 / sum
		for j := range row {
			row[j] *= inv
		}
	}
}

// HasPooler reports whether the checkpoint holds pooler weights, so that
// Pooled can run.
func (m *Model) HasPooler() bool { return m.poolB != nil }

// Pooled returns BERT's pooler output for each sequence's hidden states as
// Forward returned them: tanh(W·h₀ + b), where h₀ is the first token's
// state ([CLS] or <s>) and W, b the checkpoint's pooler.dense weights,
// which is Hugging Face's pooler_output (the "cls" pooling of SimCSE's
// supervised checkpoints). Without pooler weights it returns ErrNoPooler;
// a sequence with fewer than HiddenSize values is a *SeqError.
func (m *Model) Pooled(hidden [][]float32) ([][]float32, error) {
	if !m.HasPooler() {
		return nil, ErrNoPooler
	}
	H := m.cfg.HiddenSize
	first := make([]float32, len(hidden)*H)
	for s, h := range hidden {
		if len(h) < H {
			return nil, &SeqError{s, fmt.Errorf("%d hidden values, fewer than one token's %d", len(h), H)}
		}
		copy(first[s*H:], h[:H])
	}
	flat := make([]float32, len(hidden)*H)
	m.parallel(len(hidden), 4, func(_, lo, hi int) {
		m.gemm(hi-lo, first[lo*H:], H, m.poolW, flat[lo*H:], H, m.poolB)
	})
	for i, v := range flat {
		flat[i] = tanhf(v)
	}
	out := make([][]float32, len(hidden))
	for s := range out {
		out[s] = flat[s*H : (s+1)*H : (s+1)*H]
	}
	return out, nil
}

// geluTanh applies the tanh approximation of GELU (Hugging Face's
// gelu_new and gelu_pytorch_tanh), x/2·(1 + tanh(√(2/π)·(x + 0.044715x³))),
// in place.
func geluTanh(x []float32) {
	const c = 0.7978845608028654 // √(2/π)
	for i, v := range x {
		u := float32(c * float32(v+float32(0.044715*float32(v*float32(v*v)))))
		x[i] = 0.5 * v * (1 + tanhf(u))
	}
}

// relu sets the negative values of x to 0.
func relu(x []float32) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}
