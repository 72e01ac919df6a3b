package transformer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/modelfiles"
)

// Settings is what a model directory says besides the transformer's
// weights: the configuration, the tokenizer, the head (pooling, dense and
// layer-norm modules, normalisation, with their weights), the maximum
// length, lower-casing, prompts and similarity, and which files hold the
// transformer. ReadSettings reads it; Load adds the weights. An engine
// that runs the transformer elsewhere (ONNX Runtime) needs only these.
type Settings struct {
	// Reading holds the tokenizer, the head, the maximum length,
	// lower-casing, prompts, similarity and the head's layout.
	encoder.Reading
	Config modelfiles.Config
	// ConfigPath is where Config came from: config.json, or the ONNX
	// graph when the directory has no config.json.
	ConfigPath string
	// Dir is the model directory; Transformer the directory of the
	// transformer (Dir, or a sentence-transformers module's folder), and
	// Weights the weight file's name in it (see modelfiles.Dir.WeightFile).
	Dir         modelfiles.Dir
	Transformer modelfiles.Dir
	Weights     string
	// onnx holds the graph's weights when reading the configuration from
	// the graph read them already.
	onnx tensor.Set
}

// sbertConfig is sentence_bert_config.json.
type sbertConfig struct {
	MaxSeqLength int  `json:"max_seq_length"`
	DoLowerCase  bool `json:"do_lower_case"`
}

// readSBERTConfig reads sentence_bert_config.json in d; the zero value
// when there is none.
func readSBERTConfig(d modelfiles.Dir) (sbertConfig, error) {
	var c sbertConfig
	b, err := d.ReadFile("sentence_bert_config.json")
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	path := d.Path("sentence_bert_config.json")
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if c.MaxSeqLength < 0 {
		return c, fmt.Errorf("%s: max_seq_length %d is negative", path, c.MaxSeqLength)
	}
	return c, nil
}

// stConfig is config_sentence_transformers.json's part dreval reads.
type stConfig struct {
	Prompts           map[string]string `json:"prompts"`
	DefaultPromptName *string           `json:"default_prompt_name"`
	SimilarityFnName  *string           `json:"similarity_fn_name"`
}

// readSTConfig reads config_sentence_transformers.json in d: the
// prompts and the similarity (zero values when there is no file).
func readSTConfig(d modelfiles.Dir) (encoder.Prompts, encoder.Similarity, error) {
	b, err := d.ReadFile("config_sentence_transformers.json")
	if errors.Is(err, fs.ErrNotExist) {
		return encoder.Prompts{}, "", nil
	}
	if err != nil {
		return encoder.Prompts{}, "", err
	}
	path := d.Path("config_sentence_transformers.json")
	var c stConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return encoder.Prompts{}, "", fmt.Errorf("%s: %w", path, err)
	}
	p := encoder.Prompts{ByName: c.Prompts}
	if c.DefaultPromptName != nil {
		p.Default = *c.DefaultPromptName
		if _, ok := c.Prompts[p.Default]; !ok && p.Default != "" {
			return encoder.Prompts{}, "", fmt.Errorf("%s: default_prompt_name %q names no prompt of prompts", path, p.Default)
		}
	}
	var sim encoder.Similarity
	if c.SimilarityFnName != nil {
		if sim, err = encoder.ParseSimilarity(*c.SimilarityFnName); err != nil {
			return encoder.Prompts{}, "", fmt.Errorf("%s: similarity_fn_name: %w", path, err)
		}
	}
	return p, sim, nil
}

// isANCEModules reports whether h is ANCE's head in sentence-transformers'
// layout: the first token through a Dense and a LayerNorm module, not
// normalised.
func isANCEModules(h *encoder.Head) bool {
	if h.Pooling != encoder.CLS || h.Normalize || len(h.Steps) != 2 {
		return false
	}
	_, dense := h.Steps[0].(*encoder.Dense)
	_, ln := h.Steps[1].(*encoder.LayerNorm)
	return dense && ln
}

// ReadSettings reads the settings of the transformer model in d, as Load
// does, without loading its transformer weights: a sentence-transformers
// folder (modules.json: the transformer in its module's folder, then
// pooling, Dense, LayerNorm and Normalize modules), a DPR or ANCE
// checkpoint (their heads: see the package documentation), or a plain
// Hugging Face folder (1_Pooling/config.json's pooling, else mean). Options'
// Pooling, MaxLength and Normalize, when set, override the directory's.
func ReadSettings(d modelfiles.Dir, o Options) (*Settings, error) {
	mods, err := modelfiles.ReadModules(d)
	if err != nil {
		return nil, err
	}
	s := &Settings{Dir: d, Transformer: d}
	if mods != nil && mods[0].Path != "" {
		s.Transformer = d.Sub(mods[0].Path)
	}
	t := s.Transformer
	weights, werr := t.WeightFile()
	if o.ONNXFile != "" {
		weights, werr = t.PickONNX(o.ONNXFile)
	}
	isONNX := werr == nil && strings.HasSuffix(weights, ".onnx")
	s.ConfigPath, s.Weights = t.Path("config.json"), weights
	haveCfg := true
	b, err := t.ReadFile("config.json")
	switch {
	case err == nil:
		s.Config, err = modelfiles.ReadConfig(bytes.NewReader(b), s.ConfigPath)
		if err != nil {
			return nil, err
		}
	case errors.Is(err, fs.ErrNotExist) && isONNX:
		haveCfg = false // read from the graph below
	default:
		return nil, fmt.Errorf("encoder: %w (is %s a model directory? \"dreval model get\" installs one)", err, d.Name())
	}
	if s.Tokenizer, err = encoder.LoadTokenizer(t); err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	if werr != nil {
		return nil, fmt.Errorf("encoder: %w", werr)
	}
	if !haveCfg {
		set, info, err := readONNX(t, weights)
		if err != nil {
			return nil, fmt.Errorf("encoder: %w", err)
		}
		if s.Config, err = ConfigFromONNX(info, t.Path(weights)); err != nil {
			return nil, err
		}
		s.ConfigPath, s.onnx = t.Path(weights), set
	}
	sb, err := readSBERTConfig(t)
	if err != nil {
		return nil, err
	}
	s.Lowercase = sb.DoLowerCase
	if s.Prompts, s.Similarity, err = readSTConfig(d); err != nil {
		return nil, err
	}
	if mods != nil {
		s.Head, err = modulesHead(d, mods, s.Config.HiddenSize)
		s.Layout = "sentence-transformers modules"
		if err == nil && s.Similarity == "" && isANCEModules(s.Head) {
			// sentence-transformers' ANCE (msmarco-roberta-base-ance-
			// firstp) predates similarity_fn_name; its authors score by
			// dot product, which its card says.
			s.Similarity, s.Layout = encoder.Dot, "sentence-transformers modules, ANCE"
		}
	} else {
		s.Head, s.Layout, err = checkpointHead(s, b)
	}
	if err != nil {
		return nil, err
	}
	if o.Pooling != "" {
		s.Layout = "pooling asked for"
	}
	if o.Pooling == encoder.Pooler {
		if s.Head, err = poolerHead(s); err != nil {
			return nil, err
		}
	} else if o.Pooling != "" {
		p, err := encoder.ParsePooling(string(o.Pooling))
		if err != nil {
			return nil, err
		}
		if len(s.Head.Steps) > 0 && p.Width(s.Config.HiddenSize) != s.Head.Pooling.Width(s.Config.HiddenSize) {
			return nil, fmt.Errorf("encoder: pooling %s gives %d values, but %s's head steps take %d", p, p.Width(s.Config.HiddenSize), d.Name(), s.Head.Steps[0].In())
		}
		s.Head.Pooling = p
	}
	if o.Normalize != nil {
		s.Head.Normalize = *o.Normalize
	}
	if err := s.Head.Check(s.Config.HiddenSize, d.Name()); err != nil {
		return nil, err
	}
	if s.MaxLength = o.MaxLength; s.MaxLength == 0 {
		s.MaxLength = sb.MaxSeqLength
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
