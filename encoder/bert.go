package encoder

import (
	"errors"
	"fmt"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/modelfiles"
)

// BERT embeds with the pure-Go forward pass of package bert, then runs
// the model's Head (pooling, dense layers, normalisation). It implements
// Embedder and VocabSizer.
type BERT struct {
	Model *bert.Model
	Head  *Head
	// BatchSize and BatchTokens bound a forward pass: at most BatchSize
	// sequences and BatchTokens tokens (0: 32 and 8192).
	BatchSize, BatchTokens int
	// Progress, when not nil, is called after each batch.
	Progress Progress
}

// EmbedIDs embeds each id sequence: sequences are sorted by length and run
// in batches (see Batches), then through the Head. The result does not
// depend on how sequences are grouped into batches. An empty sequence or an
// id outside the vocabulary is an error.
func (b *BERT) EmbedIDs(ids [][]int32) ([][]float32, error) {
	for i, s := range ids {
		if len(s) == 0 {
			return nil, fmt.Errorf("encoder: sequence %d has no ids (an empty text still has [CLS] and [SEP])", i)
		}
	}
	bs, bt := b.BatchSize, b.BatchTokens
	if bs <= 0 {
		bs = 32
	}
	if bt <= 0 {
		bt = 8192
	}
	dim := b.Dim()
	flat := make([]float32, len(ids)*dim)
	out := make([][]float32, len(ids))
	for i := range out {
		out[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	done := 0
	for _, batch := range Batches(ids, bs, bt) {
		seqs := make([][]int32, len(batch))
		for j, i := range batch {
			seqs[j] = ids[i]
		}
		hidden, err := b.Model.Forward(seqs)
		if err != nil {
			var be *bert.SeqError
			if errors.As(err, &be) {
				return nil, fmt.Errorf("encoder: sequence %d: %w", batch[be.Seq], be.Err)
			}
			return nil, fmt.Errorf("encoder: %w", err)
		}
		hd := b.Model.Config().HiddenSize
		for j, i := range batch {
			b.Head.Apply(out[i], hidden[j], hd)
		}
		done += len(batch)
		if b.Progress != nil {
			b.Progress(done, len(ids))
		}
	}
	return out, nil
}

// HeadOf returns the embedder's head.
func (b *BERT) HeadOf() *Head { return b.Head }

// WithHead implements HeadEmbedder.
func (b *BERT) WithHead(h *Head) Embedder {
	c := *b
	c.Head = h
	return &c
}

// Dim returns the embedding's length: the Head's for the model's hidden
// size.
func (b *BERT) Dim() int { return b.Head.Dim(b.Model.Config().HiddenSize) }

// VocabSize returns the model's vocabulary size.
func (b *BERT) VocabSize() int { return b.Model.Config().VocabSize }

// Options configure Load. The zero value loads the model as its files
// describe it.
type Options struct {
	// Pooling overrides the model's pooling ("": the model's, see
	// ReadSettings).
	Pooling Pooling
	// Normalize, when set, overrides whether the model's embeddings are
	// L2-normalised (its Normalize module, or none).
	Normalize *bool
	// MaxLength overrides the truncation length in ids (0: max_seq_length
	// from sentence-transformers' sentence_bert_config.json if present,
	// else the tokenizer's truncation length, capped at the model's
	// max_position_embeddings).
	MaxLength int
	// Threads is the number of goroutines a forward pass uses (0:
	// GOMAXPROCS).
	Threads int
	// BatchSize is the most sequences per forward pass (0: 32).
	BatchSize int
	// Progress, when not nil, is called after each batch.
	Progress Progress
	// ONNXFile, when set, chooses the model folder's ONNX graph
	// (modelfiles.PickONNX's want: a file such as
	// onnx/model_quantized.onnx, or a variant such as quantized or fp16).
	// The ort engine runs it; Load (the pure-Go engine) then reads its
	// weights from it instead of the folder's weights files, and refuses a
	// graph it cannot run (onnx.NotPureGoError).
	ONNXFile string
}

// LoadTokenizer reads the tokenizer of the model in d, in any of the
// layouts tokenizer.LoadFS reads (tokenizer.json; vocab.json and
// merges.txt; a SentencePiece .model; vocab.txt; with the folder's
// config.json, tokenizer_config.json and special_tokens_map.json).
func LoadTokenizer(d modelfiles.Dir) (*tokenizer.Tokenizer, error) {
	fsys, dir := d.FS()
	return tokenizer.LoadFSAs(fsys, dir, d.Name())
}

// readONNX reads the weights of the ONNX graph file of d.
func readONNX(d modelfiles.Dir, file string) (tensor.Set, *onnx.Info, error) {
	b, err := d.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	set, info, err := onnx.ReadWeights(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", d.Path(file), err)
	}
	return set, info, nil
}

// Load loads a BERT-family model from a directory holding config.json,
// tokenizer.json and the weights: one of WeightFiles (the layout "dreval
// model get" installs, and that of a Hugging Face or sentence-transformers
// download: safetensors, or PyTorch's pytorch_model.bin, read by
// ReadWeights without running any code) or, when there is none,
// modelfiles.ONNX. The ONNX graph's sizes are
// checked against config.json; without config.json, the configuration is
// read from the graph when it says everything (attention heads and
// layer-norm epsilon), else the error says what is missing.
func Load(d modelfiles.Dir, o Options) (*Encoder, error) {
	s, err := ReadSettings(d, o)
	if err != nil {
		return nil, err
	}
	t := s.Transformer
	set := s.onnx // read with the configuration, when config.json is missing
	if set == nil {
		w, err := ReadWeights(t, s.Weights, nil)
		if err != nil {
			return nil, fmt.Errorf("encoder: %w", err)
		}
		if w.ONNX != nil {
			if err := w.ONNX.CheckConfig(s.Config); err != nil {
				return nil, fmt.Errorf("encoder: %s does not match %s: %w", t.Path(s.Weights), s.ConfigPath, err)
			}
		}
		set = w.Tensors
	}
	m, err := bert.New(s.Config, set)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Path(s.Weights), err)
	}
	if o.Threads > 0 {
		m.SetThreads(o.Threads)
	}
	emb := &BERT{Model: m, Head: s.Head, BatchSize: o.BatchSize, Progress: o.Progress}
	return s.Encoder(emb)
}
