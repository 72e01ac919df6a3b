package transformer

import (
	"fmt"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/modelfiles"
)

// Options configure Load. The zero value loads the model as its files
// describe it.
type Options struct {
	// Pooling overrides the model's pooling ("": the model's, see
	// ReadSettings).
	Pooling encoder.Pooling
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
	Progress encoder.Progress
	// ONNXFile, when set, chooses the model folder's ONNX graph
	// (modelfiles.PickONNX's want: a file such as
	// onnx/model_quantized.onnx, or a variant such as quantized or fp16).
	// The ort engine runs it; Load (the pure-Go engine) then reads its
	// weights from it instead of the folder's weights files, and refuses a
	// graph it cannot run (bert.NotPureGoError).
	ONNXFile string
}

// readONNX reads the weights of the ONNX graph file of d.
func readONNX(d modelfiles.Dir, file string) (tensor.Set, *bert.ONNXInfo, error) {
	b, err := d.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	set, info, err := bert.ReadONNX(b)
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
func Load(d modelfiles.Dir, o Options) (*encoder.Encoder, error) {
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
	emb := &bert.Embedder{Model: m, Head: s.Head, BatchSize: o.BatchSize, Progress: o.Progress}
	return s.Encoder(emb)
}
