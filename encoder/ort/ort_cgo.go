//go:build cgo && !js

package ort

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"sync"

	ortgo "github.com/yalue/onnxruntime_go"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/onnx"
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

// Embedder runs an encoder's ONNX graph (any family package onnx reads)
// in ONNX Runtime, then its Head (the pooling, dense layers and
// normalisation the pure-Go engine runs too). It implements
// encoder.Embedder, encoder.HeadEmbedder and encoder.VocabSizer. Its
// methods may be called from several goroutines.
type Embedder struct {
	// Head turns the graph's hidden states into the embedding (New sets
	// mean pooling, normalised).
	Head *encoder.Head
	// BatchSize and BatchTokens bound one ONNX Runtime run: at most
	// BatchSize sequences and BatchTokens tokens before padding (0: 32 and
	// 8192). Sequences are sorted by length first to keep padding small.
	BatchSize, BatchTokens int
	// Progress, when not nil, is called after each batch.
	Progress encoder.Progress

	sess       *ortgo.DynamicAdvancedSession
	inputNames []string
	outputs    int // 1, or 2 with pooler_output
	info       *onnx.Info
	threads    int
	closeOnce  sync.Once
	closeErr   error
}

// New loads the ONNX Runtime library at libPath (see Available) and opens
// the ONNX model at onnxPath with threads intra-op threads (0: ONNX
// Runtime's default, one per core). The model must pass onnx.ReadWeights'
// checks: a standard encoder graph of one of the families. The inputs
// fed are the graph's own (Info.Inputs); the outputs read are
// last_hidden_state and, where the graph has it, pooler_output. The
// embedder pools by mean and normalises; set Head to change it.
func New(onnxPath, libPath string, threads int) (*Embedder, error) {
	if threads < 0 {
		return nil, fmt.Errorf("ort: thread count %d is negative", threads)
	}
	data, err := os.ReadFile(onnxPath)
	if err != nil {
		return nil, fmt.Errorf("ort: %w", err)
	}
	_, info, err := onnx.ReadWeights(data)
	if err != nil {
		return nil, fmt.Errorf("ort: %s: %w", onnxPath, err)
	}
	// The check decoded every weight (as much memory again as the file),
	// now garbage: hand it back before ONNX Runtime allocates its own
	// copy, so that the two do not add up in the process's peak.
	debug.FreeOSMemory()
	if err := Available(libPath); err != nil {
		return nil, fmt.Errorf("ort: %w", err)
	}
	opts, err := ortgo.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("ort: session options: %w", err)
	}
	defer opts.Destroy()
	if threads > 0 {
		if err := opts.SetIntraOpNumThreads(threads); err != nil {
			return nil, fmt.Errorf("ort: setting %d threads: %w", threads, err)
		}
		if err := opts.SetInterOpNumThreads(1); err != nil {
			return nil, fmt.Errorf("ort: %w", err)
		}
	}
	inputs := append([]string(nil), info.Inputs...)
	outputs := []string{onnx.LastHiddenState}
	if info.Pooler {
		outputs = append(outputs, onnx.PoolerOutput)
	}
	sess, err := ortgo.NewDynamicAdvancedSessionWithONNXData(data, inputs, outputs, opts)
	if err != nil {
		return nil, fmt.Errorf("ort: ONNX Runtime cannot open %s: %w", onnxPath, err)
	}
	return &Embedder{
		Head: &encoder.Head{Pooling: encoder.Mean, Normalize: true}, sess: sess, inputNames: inputs,
		outputs: len(outputs), info: info, threads: threads,
	}, nil
}

// Info describes the graph the embedder runs.
func (e *Embedder) Info() *onnx.Info { return e.info }

// Dim returns the embedding's length: the Head's for the graph's hidden
// size.
func (e *Embedder) Dim() int { return e.Head.Dim(e.info.Hidden) }

// Hidden returns the graph's hidden size.
func (e *Embedder) Hidden() int { return e.info.Hidden }

// HeadOf returns the embedder's head.
func (e *Embedder) HeadOf() *encoder.Head { return e.Head }

// WithHead implements encoder.HeadEmbedder: a copy sharing the session.
func (e *Embedder) WithHead(h *encoder.Head) encoder.Embedder {
	return &Embedder{Head: h, BatchSize: e.BatchSize, BatchTokens: e.BatchTokens, Progress: e.Progress,
		sess: e.sess, inputNames: e.inputNames, outputs: e.outputs, info: e.info, threads: e.threads}
}

// VocabSize returns the size of the model's vocabulary.
func (e *Embedder) VocabSize() int { return e.info.Vocab }

// Threads returns the intra-op thread count asked for (0: ONNX Runtime's
// default).
func (e *Embedder) Threads() int { return e.threads }

// Close releases the ONNX Runtime session. The library stays loaded.
func (e *Embedder) Close() error {
	e.closeOnce.Do(func() {
		if e.sess != nil {
			e.closeErr = e.sess.Destroy()
		}
	})
	return e.closeErr
}

// EmbedIDs embeds each id sequence (token type 0, all tokens attended):
// sequences are sorted by length and run in batches (encoder.Batches),
// padded to the longest in the batch with the padding masked out, pooled
// and L2-normalised. An empty sequence, one longer than the model's
// positions, or an id outside the vocabulary is an error naming it.
func (e *Embedder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	if err := e.check(ids); err != nil {
		return nil, err
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
	for _, batch := range encoder.Batches(ids, bs, bt) {
		seqs := make([][]int32, len(batch))
		for j, i := range batch {
			seqs[j] = ids[i]
		}
		hidden, _, err := e.run(seqs)
		if err != nil {
			return nil, err
		}
		for j, i := range batch {
			e.Head.Apply(out[i], hidden[j], e.info.Hidden)
		}
		done += len(batch)
		if e.Progress != nil {
			e.Progress(done, len(ids))
		}
	}
	return out, nil
}

// Forward runs the graph on one batch and returns the last hidden state of
// each sequence (len(seqs[i]) rows of Dim values, padding removed), as
// bert.Model.Forward does.
func (e *Embedder) Forward(seqs [][]int32) ([][]float32, error) {
	if err := e.check(seqs); err != nil {
		return nil, err
	}
	hidden, _, err := e.run(seqs)
	return hidden, err
}

// HasPooler reports whether the graph has a pooler_output (the checkpoint
// had pooler weights).
func (e *Embedder) HasPooler() bool { return e.info != nil && e.info.Pooler }

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
	if e.sess == nil {
		return errors.New("ort: the embedder was not created by New")
	}
	for s, ids := range seqs {
		if len(ids) == 0 {
			return fmt.Errorf("ort: sequence %d has no ids (an empty text still has [CLS] and [SEP])", s)
		}
		if n := e.info.MaxTokens(); len(ids) > n {
			if n != e.info.MaxPositions {
				return fmt.Errorf("ort: sequence %d has %d tokens, more than the model's %d (its %d positions start at %d)", s, len(ids), n, e.info.MaxPositions, e.info.PaddingIdx+1)
			}
			return fmt.Errorf("ort: sequence %d has %d tokens, more than the model's %d positions", s, len(ids), e.info.MaxPositions)
		}
		for p, id := range ids {
			if id < 0 || int(id) >= e.info.Vocab {
				return fmt.Errorf("ort: sequence %d position %d: token id %d is outside the vocabulary [0, %d)", s, p, id, e.info.Vocab)
			}
		}
	}
	return nil
}

// run pads seqs into one batch (input_ids with Info.PadID, masked out),
// runs the session and unpads the output; pooled is nil without a
// pooler.
func (e *Embedder) run(seqs [][]int32) (hidden, pooled [][]float32, err error) {
	if len(seqs) == 0 {
		return nil, nil, nil
	}
	n, width := len(seqs), 0
	for _, s := range seqs {
		width = max(width, len(s))
	}
	pad := e.info.PadID()
	idData := make([]int64, n*width)
	maskData := make([]int64, n*width)
	for i, s := range seqs {
		row := idData[i*width : (i+1)*width]
		for j := range row {
			row[j] = pad
		}
		for j, id := range s {
			row[j] = int64(id)
			maskData[i*width+j] = 1
		}
	}
	shape := ortgo.NewShape(int64(n), int64(width))
	var values []ortgo.Value
	defer func() {
		for _, v := range values {
			v.Destroy()
		}
	}()
	for _, name := range e.inputNames {
		var d []int64
		switch name {
		case onnx.InputIDs:
			d = idData
		case onnx.AttentionMask:
			d = maskData
		default: // token_type_ids: type 0
			d = make([]int64, n*width)
		}
		t, err := ortgo.NewTensor(shape, d)
		if err != nil {
			return nil, nil, fmt.Errorf("ort: input tensor %s: %w", name, err)
		}
		values = append(values, t)
	}
	outputs := make([]ortgo.Value, e.outputs)
	if err := e.sess.Run(values, outputs); err != nil {
		return nil, nil, fmt.Errorf("ort: ONNX Runtime run on %d sequences of up to %d tokens: %w", n, width, err)
	}
	defer func() {
		for _, o := range outputs {
			if o != nil {
				o.Destroy()
			}
		}
	}()
	hiddenT, ok := outputs[0].(*ortgo.Tensor[float32])
	if !ok {
		return nil, nil, fmt.Errorf("ort: %s is %T, expected a float32 tensor", onnx.LastHiddenState, outputs[0])
	}
	dim := e.info.Hidden // the graph's width, before the head
	if got := hiddenT.GetShape(); len(got) != 3 || got[0] != int64(n) || got[1] != int64(width) || got[2] != int64(dim) {
		return nil, nil, fmt.Errorf("ort: %s has shape %v, expected [%d %d %d]", onnx.LastHiddenState, got, n, width, dim)
	}
	all := hiddenT.GetData()
	hidden = make([][]float32, n)
	for i, s := range seqs {
		base := i * width * dim
		hidden[i] = append([]float32(nil), all[base:base+len(s)*dim]...)
	}
	if e.outputs > 1 {
		pooledT, ok := outputs[1].(*ortgo.Tensor[float32])
		if !ok {
			return nil, nil, fmt.Errorf("ort: %s is %T, expected a float32 tensor", onnx.PoolerOutput, outputs[1])
		}
		if got := pooledT.GetShape(); len(got) != 2 || got[0] != int64(n) || got[1] != int64(dim) {
			return nil, nil, fmt.Errorf("ort: %s has shape %v, expected [%d %d]", onnx.PoolerOutput, got, n, dim)
		}
		flat := append([]float32(nil), pooledT.GetData()...)
		pooled = make([][]float32, n)
		for i := range pooled {
			pooled[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
		}
	}
	return hidden, pooled, nil
}
