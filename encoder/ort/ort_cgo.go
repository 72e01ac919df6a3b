//go:build cgo && !js

package ort

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"sync"

	ortgo "github.com/yalue/onnxruntime_go"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/internal/float16"
	"github.com/dreval/dreval/modelfiles"
)

// The ONNX Runtime environment is process-wide: one library, loaded once.
var env struct {
	sync.Mutex
	lib string // the library loaded, once loaded
}

// Available loads the ONNX Runtime library at libPath if it is not loaded
// yet, and reports why it cannot be used: the file is missing, is not a
// loadable library, or is older than the API version onnxruntime_go needs.
// A process loads one library: once one is loaded, Available with another
// path is an error.
func Available(libPath string) error {
	env.Lock()
	defer env.Unlock()
	if env.lib != "" {
		if env.lib != libPath {
			return fmt.Errorf("ONNX Runtime is already loaded from %s; a process can load only one library (asked for %s)", env.lib, libPath)
		}
		return nil
	}
	if libPath == "" {
		return errors.New("no ONNX Runtime library path given")
	}
	if _, err := os.Stat(libPath); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("ONNX Runtime library %s not found; install it with scripts/setup-ort.sh", libPath)
		}
		return fmt.Errorf("ONNX Runtime library: %w", err)
	}
	ortgo.SetSharedLibraryPath(libPath)
	if err := ortgo.InitializeEnvironment(ortgo.WithLogLevelError()); err != nil {
		return fmt.Errorf("loading ONNX Runtime from %s: %w", libPath, err)
	}
	env.lib = libPath
	return nil
}

// Version returns the loaded ONNX Runtime's version, or "" before a
// library is loaded.
func Version() string {
	env.Lock()
	defer env.Unlock()
	if env.lib == "" {
		return ""
	}
	return ortgo.GetVersion()
}

// Embedder runs an encoder's ONNX graph in ONNX Runtime, then its Head (the
// pooling, dense layers and normalisation the pure-Go engine runs too).
// It implements encoder.Embedder, encoder.HeadEmbedder and
// encoder.VocabSizer. Its methods may be called from several goroutines.
type Embedder struct {
	// Head turns the graph's per-token output into the embedding (New
	// sets mean pooling, normalised). When the graph's output is a
	// sentence embedding (sentence_embedding, or pooler_output for
	// pooling "pooler"), only its Normalize is applied.
	Head *encoder.Head
	// BatchSize and BatchTokens bound one ONNX Runtime run: at most
	// BatchSize sequences and BatchTokens tokens before padding (0: 32 and
	// 8192). Sequences are sorted by length first to keep padding small.
	BatchSize, BatchTokens int
	// Progress, when not nil, is called after each batch.
	Progress encoder.Progress

	*graph
}

// graph is what an Embedder's copies share: the session and what it
// feeds and reads.
type graph struct {
	sess      *ortgo.DynamicAdvancedSession
	path      string
	info      *onnx.GraphInfo
	cfg       modelfiles.Config
	inputs    []onnx.Value
	out       onnx.Value  // the output read
	pooler    *onnx.Value // pooler_output, read too when out is per token
	width     int         // out's last dimension
	threads   int
	closeOnce sync.Once
	closeErr  error
}

// Options configure Open.
type Options struct {
	// Threads is the intra-op thread count (0: ONNX Runtime's default,
	// one per core).
	Threads int
	// Config is the model's configuration (its config.json): the padding
	// id and positions (for padding and position_ids), and the
	// vocabulary and hidden sizes, checked against the graph where it
	// states them. nil reads it from the graph, which must then be one
	// the pure-Go reader reads (bert.ReadONNX).
	Config *modelfiles.Config
	// Pooler reads the graph's pooler_output, where it has one, for a
	// model that pools with BERT's pooler (pooling "pooler").
	Pooler bool
	// Tokens requires a per-token output: the model asks for a pooling
	// of its own (see onnx.GraphInfo.ChooseOutput).
	Tokens bool
}

// New opens the ONNX model at onnxPath as Open does, with threads intra-op
// threads and the configuration read from the graph (which must be one the
// pure-Go reader reads: Open with Options.Config runs any encoder graph).
func New(onnxPath, libPath string, threads int) (*Embedder, error) {
	return Open(onnxPath, libPath, Options{Threads: threads})
}

// Open loads the ONNX Runtime library at libPath (see Available) and opens
// the encoder graph at onnxPath: any graph onnx.Inspect describes
// (float32, float16 or quantized; inputs input_ids and any of
// attention_mask, token_type_ids, position_ids, int64 or int32; a per-token
// or sentence output, float32 or float16). It feeds every input the graph
// declares and reads the output onnx.GraphInfo.ChooseOutput picks. A probe
// run on one short sequence checks the graph runs and gives the width
// config says. The embedder pools by mean and normalises; set Head to
// change it.
func Open(onnxPath, libPath string, o Options) (*Embedder, error) {
	if o.Threads < 0 {
		return nil, fmt.Errorf("ort: thread count %d is negative", o.Threads)
	}
	data, err := os.ReadFile(onnxPath)
	if err != nil {
		return nil, fmt.Errorf("ort: %w", err)
	}
	info, err := onnx.Inspect(data)
	if err != nil {
		return nil, fmt.Errorf("ort: %s: %w", onnxPath, err)
	}
	var cfg modelfiles.Config
	if o.Config != nil {
		cfg = *o.Config
	} else {
		_, ri, err := bert.ReadONNX(data)
		if err != nil {
			return nil, fmt.Errorf("ort: %s: the model's configuration (config.json) is needed to run this graph: %w", onnxPath, err)
		}
		cfg = ri.Config()
		// The check decoded every weight (as much memory again as the
		// file), now garbage: hand it back before ONNX Runtime
		// allocates its own copy, so that the two do not add up in the
		// process's peak.
		debug.FreeOSMemory()
	}
	out, err := info.ChooseOutput(o.Pooler, o.Tokens)
	if err != nil {
		return nil, fmt.Errorf("ort: %s: %w", onnxPath, err)
	}
	if info.Vocab > 0 && cfg.VocabSize > 0 && info.Vocab != cfg.VocabSize {
		return nil, fmt.Errorf("ort: %s: the graph's word-embedding table has %d rows, but the configuration says vocab_size %d", onnxPath, info.Vocab, cfg.VocabSize)
	}
	if cfg.VocabSize <= 0 || cfg.MaxTokens() <= 0 {
		return nil, fmt.Errorf("ort: %s: the configuration gives no vocabulary size or positions", onnxPath)
	}
	if err := Available(libPath); err != nil {
		return nil, fmt.Errorf("ort: %w", err)
	}
	opts, err := ortgo.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("ort: session options: %w", err)
	}
	defer opts.Destroy()
	if o.Threads > 0 {
		if err := opts.SetIntraOpNumThreads(o.Threads); err != nil {
			return nil, fmt.Errorf("ort: setting %d threads: %w", o.Threads, err)
		}
		if err := opts.SetInterOpNumThreads(1); err != nil {
			return nil, fmt.Errorf("ort: %w", err)
		}
	}
	g := &graph{path: onnxPath, info: info, cfg: cfg, inputs: info.Inputs, out: out, threads: o.Threads}
	outputs := []string{out.Name}
	if p := info.Output(onnx.Pooler); p != nil && out.Kind == onnx.PerToken {
		g.pooler = p
		outputs = append(outputs, p.Name)
	}
	inputs := make([]string, len(info.Inputs))
	for i, in := range info.Inputs {
		inputs[i] = in.Name
	}
	var sess *ortgo.DynamicAdvancedSession
	if info.ExternalData {
		// Tensors in files beside the graph: ONNX Runtime finds them
		// from its path.
		sess, err = ortgo.NewDynamicAdvancedSession(onnxPath, inputs, outputs, opts)
	} else {
		sess, err = ortgo.NewDynamicAdvancedSessionWithONNXData(data, inputs, outputs, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("ort: ONNX Runtime cannot open %s (%s): %w", onnxPath, info.Describe(), err)
	}
	g.sess = sess
	e := &Embedder{Head: &encoder.Head{Pooling: encoder.Mean, Normalize: true}, graph: g}
	if err := e.probe(); err != nil {
		sess.Destroy()
		return nil, err
	}
	return e, nil
}

// probe runs the graph on one two-token sequence to learn its output's
// width (when the graph does not state it) and check it: a per-token
// output must be the configuration's hidden size.
func (e *Embedder) probe() error {
	if e.out.ElemType == onnx.Float16 || (e.pooler != nil && e.pooler.ElemType == onnx.Float16) {
		// A float16 output is allocated before the run (see run), at
		// the width the graph states or the configuration's hidden
		// size; run checks the shape ONNX Runtime gives.
		e.width = e.out.Width()
		if e.width == 0 {
			e.width = e.cfg.HiddenSize
		}
		if _, _, err := e.run([][]int32{{0, 0}}); err != nil {
			return fmt.Errorf("ort: %s (%s) on one sequence: %w", e.path, e.info.Describe(), err)
		}
		if e.out.Kind != onnx.Sentence && e.width != e.cfg.HiddenSize {
			return fmt.Errorf("ort: %s: output %s has %d values per token, but the configuration's hidden_size is %d", e.path, e.out.Name, e.width, e.cfg.HiddenSize)
		}
		return nil
	}
	vals, err := e.feed([][]int32{{0, 0}})
	defer destroy(vals)
	if err != nil {
		return err
	}
	outs := make([]ortgo.Value, e.outputCount())
	if err := e.sess.Run(vals, outs); err != nil {
		return fmt.Errorf("ort: ONNX Runtime cannot run %s (%s) on one sequence: %w", e.path, e.info.Describe(), err)
	}
	defer destroy(outs)
	shape := outs[0].GetShape()
	rank := 2
	if e.out.Kind == onnx.PerToken {
		rank = 3
	}
	if len(shape) != rank || shape[0] != 1 || (rank == 3 && shape[1] != 2) {
		return fmt.Errorf("ort: %s: output %s has shape %v for one sequence of 2 tokens, expected %s", e.path, e.out.Name, shape, map[int]string{2: "[1 dim]", 3: "[1 2 hidden]"}[rank])
	}
	e.width = int(shape[rank-1])
	if e.out.Kind != onnx.Sentence && e.width != e.cfg.HiddenSize {
		return fmt.Errorf("ort: %s: output %s has %d values per %s, but the configuration's hidden_size is %d", e.path, e.out.Name, e.width, map[bool]string{true: "token", false: "text"}[rank == 3], e.cfg.HiddenSize)
	}
	if e.width <= 0 {
		return fmt.Errorf("ort: %s: output %s is empty", e.path, e.out.Name)
	}
	return nil
}

func (e *Embedder) outputCount() int {
	if e.pooler != nil {
		return 2
	}
	return 1
}

func destroy(vs []ortgo.Value) {
	for _, v := range vs {
		if v != nil {
			v.Destroy()
		}
	}
}

// Graph describes the graph the embedder runs.
func (e *Embedder) Graph() *onnx.GraphInfo { return e.info }

// Output returns the graph output the embedder reads.
func (e *Embedder) Output() onnx.Value { return e.out }

// PerToken reports whether the embedder pools the graph's per-token output
// with its Head (else the graph's output is the embedding).
func (e *Embedder) PerToken() bool { return e.out.Kind == onnx.PerToken }

// Dim returns the embedding's length: the Head's for the graph's hidden
// size, or the graph's sentence embedding's.
func (e *Embedder) Dim() int {
	if !e.PerToken() {
		return e.width
	}
	return e.Head.Dim(e.cfg.HiddenSize)
}

// Hidden returns the graph's per-token width (the hidden size).
func (e *Embedder) Hidden() int { return e.cfg.HiddenSize }

// HeadOf returns the embedder's head.
func (e *Embedder) HeadOf() *encoder.Head { return e.Head }

// WithHead implements encoder.HeadEmbedder: a copy sharing the session.
func (e *Embedder) WithHead(h *encoder.Head) encoder.Embedder {
	return &Embedder{Head: h, BatchSize: e.BatchSize, BatchTokens: e.BatchTokens, Progress: e.Progress, graph: e.graph}
}

// VocabSize returns the size of the model's vocabulary.
func (e *Embedder) VocabSize() int { return e.cfg.VocabSize }

// Threads returns the intra-op thread count asked for (0: ONNX Runtime's
// default).
func (e *Embedder) Threads() int { return e.threads }

// Close releases the ONNX Runtime session. The library stays loaded.
func (e *Embedder) Close() error {
	if e.graph == nil {
		return nil
	}
	e.closeOnce.Do(func() {
		if e.sess != nil {
			e.closeErr = e.sess.Destroy()
		}
	})
	return e.closeErr
}

// EmbedIDs embeds each id sequence (token type 0, all tokens attended):
// sequences are sorted by length and run in batches (encoder.Batches),
// padded to the longest in the batch with the padding masked out (a graph
// without attention_mask runs sequences of one length together), then
// pooled by the Head (or, for a sentence output, taken as they are and
// normalised when the Head normalises). An empty sequence, one longer than
// the model's positions, or an id outside the vocabulary is an error
// naming it.
func (e *Embedder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	if err := e.check(ids); err != nil {
		return nil, err
	}
	if !e.PerToken() && e.Head.Skip > 0 {
		return nil, fmt.Errorf("ort: the model leaves its prompt out of the pooling, but %s pools inside the graph (%s), which cannot", e.path, e.out.Name)
	}
	bs, bt := e.BatchSize, e.BatchTokens
	if bs <= 0 {
		bs = 32
	}
	if bt <= 0 {
		bt = 8192
	}
	dim := e.Dim()
	flat := make([]float32, len(ids)*dim)
	out := make([][]float32, len(ids))
	for i := range out {
		out[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	done := 0
	for _, batch := range e.batches(ids, bs, bt) {
		seqs := make([][]int32, len(batch))
		for j, i := range batch {
			seqs[j] = ids[i]
		}
		vecs, _, err := e.run(seqs)
		if err != nil {
			return nil, err
		}
		for j, i := range batch {
			if e.PerToken() {
				e.Head.Apply(out[i], vecs[j], e.cfg.HiddenSize)
				continue
			}
			copy(out[i], vecs[j])
			if e.Head.Normalize {
				encoder.Normalize(out[i])
			}
		}
		done += len(batch)
		if e.Progress != nil {
			e.Progress(done, len(ids))
		}
	}
	return out, nil
}

// batches groups ids as encoder.Batches does; without an attention_mask
// input, whose absence means padding would be attended, a batch holds
// sequences of one length only.
func (e *Embedder) batches(ids [][]int32, bs, bt int) [][]int {
	all := encoder.Batches(ids, bs, bt)
	if e.info.Input(onnx.RoleAttentionMask) != nil {
		return all
	}
	var out [][]int
	for _, b := range all {
		start := 0
		for j := 1; j <= len(b); j++ {
			if j == len(b) || len(ids[b[j]]) != len(ids[b[start]]) {
				out = append(out, b[start:j])
				start = j
			}
		}
	}
	return out
}

// Forward runs the graph on one batch and returns the last hidden state of
// each sequence (len(seqs[i]) rows of Hidden values, padding removed), as
// bert.Model.Forward does. A graph without a per-token output cannot.
func (e *Embedder) Forward(seqs [][]int32) ([][]float32, error) {
	if err := e.check(seqs); err != nil {
		return nil, err
	}
	if !e.PerToken() {
		return nil, fmt.Errorf("ort: %s gives no per-token output (it reads %s)", e.path, e.out.Name)
	}
	hidden, _, err := e.run(seqs)
	return hidden, err
}

// HasPooler reports whether the graph has a pooler_output (the checkpoint
// had pooler weights) read besides its per-token output.
func (e *Embedder) HasPooler() bool { return e.graph != nil && e.pooler != nil }

// ForwardPooled runs the graph on one batch and returns, besides what
// Forward does, its pooler_output: tanh(W·h₀ + b) of each sequence, as
// bert.Model.Pooled computes. Without a pooler it returns
// bert.ErrNoPooler.
func (e *Embedder) ForwardPooled(seqs [][]int32) (hidden, pooled [][]float32, err error) {
	if err := e.check(seqs); err != nil {
		return nil, nil, err
	}
	if !e.HasPooler() {
		return nil, nil, bert.ErrNoPooler
	}
	return e.run(seqs)
}

// check validates sequences before they reach ONNX Runtime, so errors name
// the sequence and position as the pure-Go encoder's do.
func (e *Embedder) check(seqs [][]int32) error {
	if e.graph == nil || e.sess == nil {
		return errors.New("ort: the embedder was not created by Open")
	}
	c := e.cfg
	for s, ids := range seqs {
		if len(ids) == 0 {
			return fmt.Errorf("ort: sequence %d has no ids (an empty text still has [CLS] and [SEP])", s)
		}
		if n := c.MaxTokens(); len(ids) > n {
			if n != c.MaxPositionEmbeddings {
				return fmt.Errorf("ort: sequence %d has %d tokens, more than the model's %d (its %d positions start at %d)", s, len(ids), n, c.MaxPositionEmbeddings, c.PositionOffset())
			}
			return fmt.Errorf("ort: sequence %d has %d tokens, more than the model's %d positions", s, len(ids), c.MaxPositionEmbeddings)
		}
		for p, id := range ids {
			if id < 0 || int(id) >= c.VocabSize {
				return fmt.Errorf("ort: sequence %d position %d: token id %d is outside the vocabulary [0, %d)", s, p, id, c.VocabSize)
			}
		}
	}
	return nil
}

// feed returns the input tensors for seqs padded into one batch: every
// input the graph declares, in its element type. input_ids is padded
// with the model's padding id (masked out); token types are 0; position
// ids count as the model's family does (modelfiles.Config.PositionOffset).
func (e *Embedder) feed(seqs [][]int32) ([]ortgo.Value, error) {
	n, width := len(seqs), 0
	for _, s := range seqs {
		width = max(width, len(s))
	}
	pad := int64(max(e.cfg.PaddingIdx(), 0))
	padIdx := e.cfg.PaddingIdx()
	shape := ortgo.NewShape(int64(n), int64(width))
	var values []ortgo.Value
	for _, in := range e.inputs {
		d := make([]int64, n*width)
		for i, s := range seqs {
			row := d[i*width : (i+1)*width]
			for j := range row {
				switch in.Role {
				case onnx.RoleInputIDs:
					row[j] = pad
					if j < len(s) {
						row[j] = int64(s[j])
					}
				case onnx.RoleAttentionMask:
					if j < len(s) {
						row[j] = 1
					}
				case onnx.RolePositionIDs:
					switch {
					case padIdx < 0:
						row[j] = int64(j)
					case j < len(s):
						row[j] = int64(padIdx + 1 + j)
					default:
						row[j] = int64(padIdx)
					}
				} // token_type_ids: 0
			}
		}
		var t ortgo.Value
		var err error
		if in.ElemType == onnx.Int32 {
			d32 := make([]int32, len(d))
			for i, v := range d {
				d32[i] = int32(v)
			}
			t, err = ortgo.NewTensor(shape, d32)
		} else {
			t, err = ortgo.NewTensor(shape, d)
		}
		if err != nil {
			destroy(values)
			return nil, fmt.Errorf("ort: input tensor %s: %w", in.Name, err)
		}
		values = append(values, t)
	}
	return values, nil
}

// run pads seqs into one batch, runs the session and returns the output
// read: the per-token rows of each sequence (padding removed), or each
// sentence vector; and pooled, the pooler_output read beside a per-token
// output (nil without one).
func (e *Embedder) run(seqs [][]int32) (vecs, pooled [][]float32, err error) {
	if len(seqs) == 0 {
		return nil, nil, nil
	}
	n, width := len(seqs), 0
	for _, s := range seqs {
		width = max(width, len(s))
	}
	values, err := e.feed(seqs)
	defer destroy(values)
	if err != nil {
		return nil, nil, err
	}
	outs := make([]ortgo.Value, e.outputCount())
	want := [][]int64{{int64(n), int64(e.width)}}
	if e.PerToken() {
		want[0] = []int64{int64(n), int64(width), int64(e.width)}
	}
	specs := []onnx.Value{e.out}
	if e.pooler != nil {
		want = append(want, []int64{int64(n), int64(e.cfg.HiddenSize)})
		specs = append(specs, *e.pooler)
	}
	// Float16 outputs are allocated here, at their known shapes:
	// onnxruntime_go copies an output it allocates of a type it has no Go
	// type for by element count, not byte count.
	for i, s := range specs {
		if s.ElemType == onnx.Float16 {
			t, err := ortgo.NewCustomDataTensor(ortgo.NewShape(want[i]...), make([]byte, 2*product(want[i])), ortgo.TensorElementDataTypeFloat16)
			if err != nil {
				destroy(outs)
				return nil, nil, fmt.Errorf("ort: output tensor %s: %w", s.Name, err)
			}
			outs[i] = t
		}
	}
	defer destroy(outs)
	if err := e.sess.Run(values, outs); err != nil {
		return nil, nil, fmt.Errorf("ort: ONNX Runtime run on %d sequences of up to %d tokens: %w", n, width, err)
	}
	all := make([][]float32, len(outs))
	for i, o := range outs {
		if got := o.GetShape(); !slices.Equal([]int64(got), want[i]) {
			return nil, nil, fmt.Errorf("ort: %s has shape %v, expected %v", specs[i].Name, got, want[i])
		}
		switch t := o.(type) {
		case *ortgo.Tensor[float32]:
			all[i] = t.GetData()
		case *ortgo.CustomDataTensor:
			b := t.GetData()
			f := make([]float32, len(b)/2)
			for j := range f {
				f[j] = float16.ToFloat32(binary.LittleEndian.Uint16(b[2*j:]))
			}
			all[i] = f
		default:
			return nil, nil, fmt.Errorf("ort: %s is %T, expected a float32 or float16 tensor", specs[i].Name, o)
		}
	}
	vecs = make([][]float32, n)
	dim := e.width
	for i, s := range seqs {
		if e.PerToken() {
			base := i * width * dim
			vecs[i] = append([]float32(nil), all[0][base:base+len(s)*dim]...)
		} else {
			vecs[i] = append([]float32(nil), all[0][i*dim:(i+1)*dim]...)
		}
	}
	if e.pooler != nil {
		h := e.cfg.HiddenSize
		flat := append([]float32(nil), all[1]...)
		pooled = make([][]float32, n)
		for i := range pooled {
			pooled[i] = flat[i*h : (i+1)*h : (i+1)*h]
		}
	}
	return vecs, pooled, nil
}

func product(dims []int64) int64 {
	p := int64(1)
	for _, d := range dims {
		p *= d
	}
	return p
}

// Optimize writes to outPath the graph at onnxPath as ONNX Runtime (the
// library at libPath, see Available) optimizes it at its "extended"
// level, the CPU fusions (layer normalisation, GELU, matrix products with
// their bias) that every session of the graph would otherwise apply when
// it opens: an ONNX file that ONNX Runtime, onnxruntime-web included,
// opens with its own optimizations off, sooner (0.57 s -> 0.40 s under
// onnxruntime-web for MiniLM) and with the same products. The graph must
// hold its tensors itself (no external data) and be one onnx.Inspect
// describes.
func Optimize(onnxPath, outPath, libPath string) error {
	data, err := os.ReadFile(onnxPath)
	if err != nil {
		return fmt.Errorf("ort: %w", err)
	}
	info, err := onnx.Inspect(data)
	if err != nil {
		return fmt.Errorf("ort: %s: %w", onnxPath, err)
	}
	if info.ExternalData {
		return fmt.Errorf("ort: %s keeps its tensors in files beside it; only a self-contained graph is optimized offline", onnxPath)
	}
	if err := Available(libPath); err != nil {
		return fmt.Errorf("ort: %w", err)
	}
	opts, err := ortgo.NewSessionOptions()
	if err != nil {
		return fmt.Errorf("ort: session options: %w", err)
	}
	defer opts.Destroy()
	if err := opts.SetGraphOptimizationLevel(ortgo.GraphOptimizationLevelEnableExtended); err != nil {
		return fmt.Errorf("ort: %w", err)
	}
	if err := opts.SetOptimizedModelFilePath(outPath); err != nil {
		return fmt.Errorf("ort: %w", err)
	}
	inputs := make([]string, len(info.Inputs))
	for i, in := range info.Inputs {
		inputs[i] = in.Name
	}
	outputs := make([]string, len(info.Outputs))
	for i, out := range info.Outputs {
		outputs[i] = out.Name
	}
	// Opening the session writes the optimized graph.
	sess, err := ortgo.NewDynamicAdvancedSessionWithONNXData(data, inputs, outputs, opts)
	if err != nil {
		os.Remove(outPath)
		return fmt.Errorf("ort: ONNX Runtime cannot optimize %s (%s): %w", onnxPath, info.Describe(), err)
	}
	sess.Destroy()
	if _, err := os.Stat(outPath); err != nil {
		return fmt.Errorf("ort: ONNX Runtime wrote no optimized graph of %s: %w", onnxPath, err)
	}
	return nil
}
