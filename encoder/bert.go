package encoder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/modelfiles"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/tokenizer"
)

// BERT embeds with the pure-Go forward pass of package bert, then pools and
// normalises. It implements Embedder and VocabSizer.
type BERT struct {
	Model   *bert.Model
	Pooling Pooling
	// BatchSize and BatchTokens bound a forward pass: at most BatchSize
	// sequences and BatchTokens tokens (0: 32 and 8192).
	BatchSize, BatchTokens int
	// Progress, when not nil, is called after each batch.
	Progress Progress
}

// EmbedIDs embeds each id sequence: sequences are sorted by length and run
// in batches (see Batches), pooled and L2-normalised. The result does not
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
		for j, i := range batch {
			b.Pooling.Pool(out[i], hidden[j])
			Normalize(out[i])
		}
		done += len(batch)
		if b.Progress != nil {
			b.Progress(done, len(ids))
		}
	}
	return out, nil
}

// Dim returns the hidden size.
func (b *BERT) Dim() int { return b.Model.Config().HiddenSize }

// VocabSize returns the model's vocabulary size.
func (b *BERT) VocabSize() int { return b.Model.Config().VocabSize }

// Options configure Load. The zero value loads the model as its files
// describe it.
type Options struct {
	// Pooling overrides the model's pooling ("" reads 1_Pooling/config.json,
	// else Mean).
	Pooling Pooling
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
}

// WeightFiles returns the safetensors weight file names Load looks for,
// in order (modelfiles.Weights).
func WeightFiles() []string { return modelfiles.Weights() }

// ONNXFile is the ONNX graph Load reads the weights from when the
// directory holds none of WeightFiles (a plain BERT export, see package
// onnx).
const ONNXFile = modelfiles.ONNX

// WeightFile returns the name of the weights file Load reads in d: the
// first of WeightFiles present, else ONNXFile.
func WeightFile(d Dir) (string, error) {
	for _, name := range append(WeightFiles(), ONNXFile) {
		ok, err := d.Exists(name)
		if err != nil {
			return "", err
		}
		if ok {
			return name, nil
		}
	}
	return "", fmt.Errorf("%s holds no weights (expected one of %v, or %s)", d.Name(), WeightFiles(), ONNXFile)
}

// Settings is what a model directory says besides its weights: the
// configuration, the tokenizer, the pooling and the maximum length, and
// which weight file holds the weights. ReadSettings reads it; Load adds
// the weights. An engine that runs the weights elsewhere (ONNX Runtime)
// needs only the settings.
type Settings struct {
	Config bert.Config
	// ConfigPath is where Config came from: config.json, or the ONNX
	// graph when the directory has no config.json.
	ConfigPath string
	Tokenizer  *tokenizer.Tokenizer
	Pooling    Pooling
	MaxLength  int
	// Dir is the model directory; Weights the weight file's name in it
	// (see WeightFile).
	Dir     Dir
	Weights string
	// onnx holds the graph's weights when reading the configuration from
	// the graph read them already.
	onnx tensor.Set
}

// ReadSettings reads the settings of the BERT-family model in d, as
// Load does, without loading its safetensors weights. Options' Pooling
// and MaxLength, when set, override the directory's.
func ReadSettings(d Dir, o Options) (*Settings, error) {
	weights, werr := WeightFile(d)
	isONNX := werr == nil && weights == ONNXFile
	s := &Settings{ConfigPath: d.Path("config.json"), Dir: d, Weights: weights}
	haveCfg := true
	b, err := d.ReadFile("config.json")
	switch {
	case err == nil:
		s.Config, err = bert.ReadConfig(bytes.NewReader(b), s.ConfigPath)
		if err != nil {
			return nil, err
		}
	case errors.Is(err, fs.ErrNotExist) && isONNX:
		haveCfg = false // read from the graph below
	default:
		return nil, fmt.Errorf("encoder: %w (is %s a model directory? \"dreval model get\" installs one)", err, d.Name())
	}
	if s.Tokenizer, err = loadTokenizer(d, "tokenizer.json"); err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	if werr != nil {
		return nil, fmt.Errorf("encoder: %w", werr)
	}
	if !haveCfg {
		set, info, err := readONNX(d, weights)
		if err != nil {
			return nil, fmt.Errorf("encoder: %w", err)
		}
		if s.Config, err = ConfigFromONNX(info, d.Path(weights)); err != nil {
			return nil, err
		}
		s.ConfigPath, s.onnx = d.Path(weights), set
	}
	if s.Pooling = o.Pooling; s.Pooling == "" {
		if s.Pooling, err = ReadPoolingConfig(d); err != nil {
			return nil, err
		}
	} else if _, err := ParsePooling(string(s.Pooling)); err != nil {
		return nil, err
	}
	if s.MaxLength = o.MaxLength; s.MaxLength == 0 {
		if s.MaxLength, err = readMaxSeqLength(d); err != nil {
			return nil, err
		}
	}
	maxPos := s.Config.MaxTokens() // positions less the first token's (RoBERTa: 514 - 2)
	if s.MaxLength == 0 {
		s.MaxLength = s.Tokenizer.MaxLength()
		if s.MaxLength == 0 || s.MaxLength > maxPos {
			s.MaxLength = maxPos
		}
	}
	if s.MaxLength > maxPos {
		return nil, fmt.Errorf("encoder: maximum length %d exceeds the model's %d positions (%s)", s.MaxLength, maxPos, s.ConfigPath)
	}
	return s, nil
}

// loadTokenizer reads the tokenizer.json file of d.
func loadTokenizer(d Dir, file string) (*tokenizer.Tokenizer, error) {
	b, err := d.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return tokenizer.FromJSON(bytes.NewReader(b), d.Path(file))
}

// LoadTokenizer reads the tokenizer of the model in d (its
// tokenizer.json), as Load does.
func LoadTokenizer(d Dir) (*tokenizer.Tokenizer, error) { return loadTokenizer(d, "tokenizer.json") }

// readONNX reads the weights of the ONNX graph file of d.
func readONNX(d Dir, file string) (tensor.Set, *onnx.Info, error) {
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
// download) or, when there is none, ONNXFile. The ONNX graph's sizes are
// checked against config.json; without config.json, the configuration is
// read from the graph when it says everything (attention heads and
// layer-norm epsilon), else the error says what is missing.
func Load(d Dir, o Options) (*Encoder, error) {
	s, err := ReadSettings(d, o)
	if err != nil {
		return nil, err
	}
	set := s.onnx
	switch {
	case set != nil: // read with the configuration
	case s.Weights == ONNXFile:
		g, info, err := readONNX(d, s.Weights)
		if err != nil {
			return nil, fmt.Errorf("encoder: %w", err)
		}
		if err := info.CheckConfig(s.Config); err != nil {
			return nil, fmt.Errorf("encoder: %s does not match %s: %w", d.Path(s.Weights), s.ConfigPath, err)
		}
		set = g
	default:
		r, size, release, err := d.ReaderAt(s.Weights)
		if err != nil {
			return nil, err
		}
		st, err := safetensors.Read(r, size, d.Path(s.Weights))
		release()
		if err != nil {
			return nil, err
		}
		set = st.Tensors
	}
	m, err := bert.New(s.Config, set)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Path(s.Weights), err)
	}
	if o.Threads > 0 {
		m.SetThreads(o.Threads)
	}
	emb := &BERT{Model: m, Pooling: s.Pooling, BatchSize: o.BatchSize, Progress: o.Progress}
	return New(s.Tokenizer, emb, s.MaxLength)
}

// readMaxSeqLength returns max_seq_length from sentence-transformers'
// sentence_bert_config.json in d, or 0 when the file does not exist.
func readMaxSeqLength(d Dir) (int, error) {
	path := d.Path("sentence_bert_config.json")
	b, err := d.ReadFile("sentence_bert_config.json")
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var c struct {
		MaxSeqLength int `json:"max_seq_length"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if c.MaxSeqLength < 0 {
		return 0, fmt.Errorf("%s: max_seq_length %d is negative", path, c.MaxSeqLength)
	}
	return c.MaxSeqLength, nil
}
