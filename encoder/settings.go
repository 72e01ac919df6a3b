package encoder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/modelfiles"
)

// Similarity is how a retriever scores a query against a document.
type Similarity string

// The similarities.
const (
	// Cosine is the cosine of the two vectors.
	Cosine Similarity = "cos"
	// Dot is their dot product (their norms count).
	Dot Similarity = "dot"
)

// ParseSimilarity returns the similarity s names: "cos" or "cosine",
// "dot" or "dot_product" (sentence-transformers' similarity_fn_name).
func ParseSimilarity(s string) (Similarity, error) {
	switch s {
	case "cos", "cosine":
		return Cosine, nil
	case "dot", "dot_product":
		return Dot, nil
	}
	return "", fmt.Errorf("similarity %q is not supported (supported: cosine, dot)", s)
}

// Prompts are the texts a model puts before its inputs, by name
// (sentence-transformers' config_sentence_transformers.json: "query",
// "document", "passage", ...).
type Prompts struct {
	ByName  map[string]string
	Default string // the name of the prompt used when none is asked for
}

// For returns the prompt of a side of retrieval: "query" uses the prompt
// named "query"; "document" the one named "document", "passage" or
// "corpus", the first there is; either falls back to the default prompt.
// It returns "" when the model has none.
func (p Prompts) For(side string) string {
	names := []string{"query"}
	if side != "query" {
		names = []string{"document", "passage", "corpus"}
	}
	for _, n := range names {
		if v, ok := p.ByName[n]; ok {
			return v
		}
	}
	return p.ByName[p.Default]
}

// Settings is what a model directory says besides the transformer's
// weights: the configuration, the tokenizer, the head (pooling, dense and
// layer-norm modules, normalisation, with their weights), the maximum
// length, lower-casing, prompts and similarity, and which files hold the
// transformer. ReadSettings reads it; Load adds the weights. An engine
// that runs the transformer elsewhere (ONNX Runtime) needs only these.
type Settings struct {
	Config modelfiles.Config
	// ConfigPath is where Config came from: config.json, or the ONNX
	// graph when the directory has no config.json.
	ConfigPath string
	Tokenizer  *tokenizer.Tokenizer
	Head       *Head
	MaxLength  int
	// Lowercase lower-cases every text before it is tokenized
	// (sentence_bert_config.json's do_lower_case).
	Lowercase bool
	// Prompts are the model's prompts; Similarity how it scores, "" when
	// it does not say.
	Prompts    Prompts
	Similarity Similarity
	// Layout names where the head came from: "sentence-transformers
	// modules", "DPR", "ANCE", "1_Pooling", "no pooling files", or "pooling asked
	// for" when Options.Pooling replaced the files' pooling.
	Layout string
	// Dir is the model directory; Transformer the directory of the
	// transformer (Dir, or a sentence-transformers module's folder), and
	// Weights the weight file's name in it (see WeightFile).
	Dir         modelfiles.Dir
	Transformer modelfiles.Dir
	Weights     string
	// onnx holds the graph's weights when reading the configuration from
	// the graph read them already.
	onnx tensor.Set
}

// stModule is one entry of sentence-transformers' modules.json.
type stModule struct {
	Idx  int    `json:"idx"`
	Name string `json:"name"`
	Path string `json:"path"`
	Type string `json:"type"`
}

// The module types of sentence-transformers this package reads.
const (
	stTransformer = "sentence_transformers.models.Transformer"
	stPooling     = "sentence_transformers.models.Pooling"
	stDense       = "sentence_transformers.models.Dense"
	stLayerNorm   = "sentence_transformers.models.LayerNorm"
	stNormalize   = "sentence_transformers.models.Normalize"
)

// readModules reads modules.json of d; nil (no error) when there is
// none. It checks the modules are ones this package runs, in an order it
// can run: a Transformer first, then a Pooling, then Dense and LayerNorm
// modules and at most one Normalize, last.
func readModules(d modelfiles.Dir) ([]stModule, error) {
	b, err := d.ReadFile("modules.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	path := d.Path("modules.json")
	var mods []stModule
	if err := json.Unmarshal(b, &mods); err != nil {
		return nil, fmt.Errorf("%s: %w (expected a list of {idx, name, path, type})", path, err)
	}
	if len(mods) < 2 {
		return nil, fmt.Errorf("%s: %d modules, expected a Transformer and a Pooling module at least", path, len(mods))
	}
	for i, m := range mods {
		switch m.Type {
		case stTransformer, stPooling, stDense, stLayerNorm, stNormalize:
		default:
			return nil, fmt.Errorf("%s: module %d has type %q, which dreval does not run (it runs %s, %s, %s, %s and %s)",
				path, i, m.Type, stTransformer, stPooling, stDense, stLayerNorm, stNormalize)
		}
		if !validModulePath(m.Path) {
			return nil, fmt.Errorf("%s: module %d's path %q is not a folder inside the model directory", path, i, m.Path)
		}
		switch {
		case i == 0 && m.Type != stTransformer:
			return nil, fmt.Errorf("%s: the first module is %s, expected %s", path, m.Type, stTransformer)
		case i == 1 && m.Type != stPooling:
			return nil, fmt.Errorf("%s: the second module is %s, expected %s", path, m.Type, stPooling)
		case i > 1 && (m.Type == stTransformer || m.Type == stPooling):
			return nil, fmt.Errorf("%s: module %d is another %s; expected one Transformer and one Pooling, then Dense, LayerNorm or Normalize modules", path, i, m.Type)
		case m.Type == stNormalize && i != len(mods)-1:
			return nil, fmt.Errorf("%s: module %d (Normalize) is not the last: a module after the normalisation is not supported", path, i)
		}
	}
	return mods, nil
}

// TransformerDir returns the directory of d's transformer: d, or the
// folder of its sentence-transformers Transformer module.
func TransformerDir(d modelfiles.Dir) (modelfiles.Dir, error) {
	mods, err := readModules(d)
	if err != nil {
		return modelfiles.Dir{}, err
	}
	if mods != nil && mods[0].Path != "" {
		return d.Sub(mods[0].Path), nil
	}
	return d, nil
}

// validModulePath reports whether p is "" or a relative folder path
// without "..".
func validModulePath(p string) bool {
	if p == "" {
		return true
	}
	return fs.ValidPath(p) && p != "."
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
func readSTConfig(d modelfiles.Dir) (Prompts, Similarity, error) {
	b, err := d.ReadFile("config_sentence_transformers.json")
	if errors.Is(err, fs.ErrNotExist) {
		return Prompts{}, "", nil
	}
	if err != nil {
		return Prompts{}, "", err
	}
	path := d.Path("config_sentence_transformers.json")
	var c stConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return Prompts{}, "", fmt.Errorf("%s: %w", path, err)
	}
	p := Prompts{ByName: c.Prompts}
	if c.DefaultPromptName != nil {
		p.Default = *c.DefaultPromptName
		if _, ok := c.Prompts[p.Default]; !ok && p.Default != "" {
			return Prompts{}, "", fmt.Errorf("%s: default_prompt_name %q names no prompt of prompts", path, p.Default)
		}
	}
	var sim Similarity
	if c.SimilarityFnName != nil {
		if sim, err = ParseSimilarity(*c.SimilarityFnName); err != nil {
			return Prompts{}, "", fmt.Errorf("%s: similarity_fn_name: %w", path, err)
		}
	}
	return p, sim, nil
}

// isANCEModules reports whether h is ANCE's head in sentence-transformers'
// layout: the first token through a Dense and a LayerNorm module, not
// normalised.
func isANCEModules(h *Head) bool {
	if h.Pooling != CLS || h.Normalize || len(h.Steps) != 2 {
		return false
	}
	_, dense := h.Steps[0].(*Dense)
	_, ln := h.Steps[1].(*LayerNorm)
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
	mods, err := readModules(d)
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
	if s.Tokenizer, err = LoadTokenizer(t); err != nil {
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
			s.Similarity, s.Layout = Dot, "sentence-transformers modules, ANCE"
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
	if o.Pooling == Pooler {
		if s.Head, err = poolerHead(s); err != nil {
			return nil, err
		}
	} else if o.Pooling != "" {
		p, err := ParsePooling(string(o.Pooling))
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
