// config.json: the configuration of a BERT-family transformer, as
// Hugging Face writes it.

package modelfiles

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
)

// Family is an encoder architecture: checkpoints of one family run the
// same forward pass and name their tensors the same way.
type Family string

// The families this package runs.
const (
	FamilyBERT       Family = "bert"       // model_type bert, dpr
	FamilyRoBERTa    Family = "roberta"    // model_type roberta, xlm-roberta
	FamilyDistilBERT Family = "distilbert" // model_type distilbert
	FamilyMPNet      Family = "mpnet"      // model_type mpnet
)

// modelTypes maps every supported config.json model_type to its family.
var modelTypes = map[string]Family{
	"bert":        FamilyBERT,
	"dpr":         FamilyBERT,
	"roberta":     FamilyRoBERTa,
	"xlm-roberta": FamilyRoBERTa,
	"distilbert":  FamilyDistilBERT,
	"mpnet":       FamilyMPNet,
}

// ModelTypes returns the config.json model_type values ReadConfig
// accepts, sorted.
func ModelTypes() []string {
	var s []string
	for t := range modelTypes {
		s = append(s, t)
	}
	sort.Strings(s)
	return s
}

// archModelTypes gives the model_type that Hugging Face's class names
// imply, for a config.json without model_type: the class-name stem, then
// the head suffixes the families' checkpoints use.
var (
	archStems = []struct{ stem, modelType string }{
		{"XLMRoberta", "xlm-roberta"}, {"Roberta", "roberta"}, {"DistilBert", "distilbert"},
		{"MPNet", "mpnet"}, {"Bert", "bert"},
	}
	archSuffixes = []string{"Model", "ForMaskedLM", "ForPreTraining", "ForSequenceClassification",
		"ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice", "ForNextSentencePrediction"}
	archDPR = []string{"DPRQuestionEncoder", "DPRContextEncoder"}
)

// Activations the feed-forward block supports (config.json hidden_act,
// or DistilBERT's activation).
var activations = map[string]bool{
	"gelu":              true, // exact, erf-based
	"gelu_new":          true, // tanh approximation
	"gelu_pytorch_tanh": true, // the same tanh approximation
	"relu":              true,
}

// Config is the part of a Hugging Face config.json that an encoder of one
// of the families needs. DistilBERT's own field names (dim, n_layers,
// n_heads, hidden_dim, activation) are read into the common fields.
type Config struct {
	VocabSize             int     `json:"vocab_size"`
	HiddenSize            int     `json:"hidden_size"`
	NumHiddenLayers       int     `json:"num_hidden_layers"`
	NumAttentionHeads     int     `json:"num_attention_heads"`
	IntermediateSize      int     `json:"intermediate_size"`
	HiddenAct             string  `json:"hidden_act"`
	MaxPositionEmbeddings int     `json:"max_position_embeddings"`
	TypeVocabSize         int     `json:"type_vocab_size"`
	LayerNormEps          float64 `json:"layer_norm_eps"`
	PadTokenID            int     `json:"pad_token_id"`
	// ModelType is config.json's model_type; "" is read as "bert".
	ModelType string `json:"model_type"`
	// Architectures is config.json's architectures, as given (for
	// example ["DPRQuestionEncoder"] or ["RobertaDot_NLL_LN"]): it names
	// the checkpoint's classes, not the computation, which ModelType
	// fixes.
	Architectures []string `json:"architectures,omitempty"`
	// PositionEmbeddingType must be "absolute" (or empty) for BERT and
	// RoBERTa; Hugging Face's relative_key variants are refused.
	PositionEmbeddingType string `json:"position_embedding_type,omitempty"`
	// RelativeAttentionNumBuckets is MPNet's relative-position table size
	// (at least 32, the buckets its attention uses).
	RelativeAttentionNumBuckets int `json:"relative_attention_num_buckets,omitempty"`
	// ProjectionDim is DPR's projection size (0: no projection); the
	// projection itself is a head, outside the backbone.
	ProjectionDim int `json:"projection_dim,omitempty"`
	// SinusoidalPosEmbds is DistilBERT's flag; the position table is read
	// from the weights either way.
	SinusoidalPosEmbds bool `json:"sinusoidal_pos_embds,omitempty"`
	// IsDecoder and AddCrossAttention, when set, make Validate refuse the
	// configuration: a decoder is not a text encoder.
	IsDecoder         bool `json:"is_decoder,omitempty"`
	AddCrossAttention bool `json:"add_cross_attention,omitempty"`
}

// rawConfig is config.json as written by any of the families, with
// pointers where a missing field takes a family's default.
type rawConfig struct {
	ModelType                   *string  `json:"model_type"`
	Architectures               []string `json:"architectures"`
	VocabSize                   *int     `json:"vocab_size"`
	HiddenSize                  *int     `json:"hidden_size"`
	NumHiddenLayers             *int     `json:"num_hidden_layers"`
	NumAttentionHeads           *int     `json:"num_attention_heads"`
	IntermediateSize            *int     `json:"intermediate_size"`
	HiddenAct                   *string  `json:"hidden_act"`
	MaxPositionEmbeddings       *int     `json:"max_position_embeddings"`
	TypeVocabSize               *int     `json:"type_vocab_size"`
	LayerNormEps                *float64 `json:"layer_norm_eps"`
	PadTokenID                  *int     `json:"pad_token_id"`
	PositionEmbeddingType       *string  `json:"position_embedding_type"`
	RelativeAttentionNumBuckets *int     `json:"relative_attention_num_buckets"`
	ProjectionDim               *int     `json:"projection_dim"`
	IsDecoder                   *bool    `json:"is_decoder"`
	AddCrossAttention           *bool    `json:"add_cross_attention"`
	// DistilBERT's names.
	Dim                *int    `json:"dim"`
	NLayers            *int    `json:"n_layers"`
	NHeads             *int    `json:"n_heads"`
	HiddenDim          *int    `json:"hidden_dim"`
	Activation         *string `json:"activation"`
	SinusoidalPosEmbds *bool   `json:"sinusoidal_pos_embds"`
}

// ReadConfig decodes a config.json of a supported family and checks the
// fields the encoder needs. name is used in error messages (usually the
// file path). A model_type (or, without one, an architecture) outside the
// supported families is an error naming what config.json says and what is
// supported. Missing fields take Hugging Face's defaults: layer_norm_eps
// 1e-12 (DistilBERT always uses 1e-12), hidden_act gelu, type_vocab_size 2
// (none for DistilBERT and MPNet), pad_token_id 0 for BERT and DistilBERT,
// 1 for RoBERTa and MPNet, relative_attention_num_buckets 32.
func ReadConfig(r io.Reader, name string) (Config, error) {
	var raw rawConfig
	dec := json.NewDecoder(r)
	if err := dec.Decode(&raw); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return Config{}, fmt.Errorf("%s: field %q is a JSON %s, expected %s", name, te.Field, te.Value, jsonKind(te.Type.Kind().String()))
		}
		return Config{}, fmt.Errorf("%s: not a valid config.json: %w", name, err)
	}
	modelType, err := raw.modelType(name)
	if err != nil {
		return Config{}, err
	}
	family := modelTypes[modelType]
	c := Config{ModelType: modelType, Architectures: raw.Architectures}
	intOr := func(p *int, def int) int {
		if p == nil {
			return def
		}
		return *p
	}
	strOr := func(p *string, def string) string {
		if p == nil || *p == "" {
			return def
		}
		return *p
	}
	c.VocabSize = intOr(raw.VocabSize, 0)
	c.MaxPositionEmbeddings = intOr(raw.MaxPositionEmbeddings, 0)
	c.PositionEmbeddingType = strOr(raw.PositionEmbeddingType, "")
	c.ProjectionDim = intOr(raw.ProjectionDim, 0)
	c.IsDecoder = raw.IsDecoder != nil && *raw.IsDecoder
	c.AddCrossAttention = raw.AddCrossAttention != nil && *raw.AddCrossAttention
	if family == FamilyDistilBERT {
		// DistilBERT's names come first; Hugging Face maps hidden_size,
		// num_attention_heads and num_hidden_layers onto them.
		c.HiddenSize = intOr(raw.Dim, intOr(raw.HiddenSize, 0))
		c.NumHiddenLayers = intOr(raw.NLayers, intOr(raw.NumHiddenLayers, 0))
		c.NumAttentionHeads = intOr(raw.NHeads, intOr(raw.NumAttentionHeads, 0))
		c.IntermediateSize = intOr(raw.HiddenDim, 0)
		c.HiddenAct = strOr(raw.Activation, "gelu")
		c.LayerNormEps = 1e-12 // fixed in DistilBERT's code
		c.SinusoidalPosEmbds = raw.SinusoidalPosEmbds != nil && *raw.SinusoidalPosEmbds
		c.PadTokenID = intOr(raw.PadTokenID, 0)
	} else {
		c.HiddenSize = intOr(raw.HiddenSize, 0)
		c.NumHiddenLayers = intOr(raw.NumHiddenLayers, 0)
		c.NumAttentionHeads = intOr(raw.NumAttentionHeads, 0)
		c.IntermediateSize = intOr(raw.IntermediateSize, 0)
		c.HiddenAct = strOr(raw.HiddenAct, "gelu")
		c.LayerNormEps = 1e-12
		if raw.LayerNormEps != nil && *raw.LayerNormEps != 0 {
			c.LayerNormEps = *raw.LayerNormEps
		}
		pad := 0
		if family == FamilyRoBERTa || family == FamilyMPNet {
			pad = 1
		}
		c.PadTokenID = intOr(raw.PadTokenID, pad)
	}
	switch family {
	case FamilyBERT, FamilyRoBERTa:
		c.TypeVocabSize = intOr(raw.TypeVocabSize, 2)
		if c.TypeVocabSize == 0 {
			c.TypeVocabSize = 2
		}
	case FamilyMPNet:
		c.RelativeAttentionNumBuckets = intOr(raw.RelativeAttentionNumBuckets, MPNetBuckets)
	}
	return c, c.Validate(name)
}

// jsonKind names a Go kind the way a config.json author thinks of it.
func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "an integer"
	case strings.HasPrefix(k, "float"):
		return "a number"
	case k == "string":
		return "a string"
	case k == "bool":
		return "true or false"
	case k == "slice":
		return "a list"
	}
	return k
}

// modelType returns the model_type of raw: its own, or the one its
// architectures imply when it has none, or "bert" when it names neither
// (the configurations of early BERT checkpoints).
func (raw *rawConfig) modelType(name string) (string, error) {
	supported := strings.Join(ModelTypes(), ", ")
	if raw.ModelType != nil && *raw.ModelType != "" {
		t := *raw.ModelType
		if _, ok := modelTypes[t]; !ok {
			arch := ""
			if len(raw.Architectures) > 0 {
				arch = fmt.Sprintf(" (architectures %s)", strings.Join(raw.Architectures, ", "))
			}
			return "", fmt.Errorf("%s: model_type %q%s is not supported; supported model types: %s", name, t, arch, supported)
		}
		return t, nil
	}
	if len(raw.Architectures) == 0 {
		return "bert", nil
	}
	for _, a := range raw.Architectures {
		if slices.Contains(archDPR, a) {
			return "dpr", nil
		}
		for _, s := range archStems {
			if rest, ok := strings.CutPrefix(a, s.stem); ok && slices.Contains(archSuffixes, rest) {
				return s.modelType, nil
			}
		}
	}
	return "", fmt.Errorf("%s: no model_type, and architectures %s name no supported model; supported model types: %s (architectures such as BertModel, RobertaModel, XLMRobertaModel, DistilBertModel, MPNetModel, DPRQuestionEncoder, DPRContextEncoder)",
		name, strings.Join(raw.Architectures, ", "), supported)
}

// Family returns the configuration's family ("" when ModelType is not
// supported).
func (c Config) Family() Family {
	if c.ModelType == "" {
		return FamilyBERT
	}
	return modelTypes[c.ModelType]
}

// PaddingIdx returns the padding index the family's position ids count
// from: pad_token_id for RoBERTa, 1 for MPNet (fixed in its code), and -1
// for BERT and DistilBERT, whose positions are 0, 1, 2, ...
func (c Config) PaddingIdx() int {
	switch c.Family() {
	case FamilyRoBERTa:
		return c.PadTokenID
	case FamilyMPNet:
		return mpnetPaddingIdx
	}
	return -1
}

// mpnetPaddingIdx is the padding index MPNet's embeddings use whatever
// config.json says; MPNetBuckets and MPNetMaxDistance are the bucket
// count and largest distance its attention's relative positions use.
const (
	mpnetPaddingIdx  = 1
	MPNetBuckets     = 32
	MPNetMaxDistance = 128
)

// PositionOffset returns the position id of a sequence's first token:
// padding_idx+1 where positions count from padding_idx, else 0.
func (c Config) PositionOffset() int { return c.PaddingIdx() + 1 }

// MaxTokens returns the longest sequence the model takes:
// max_position_embeddings less PositionOffset (512 for RoBERTa's 514
// positions).
func (c Config) MaxTokens() int { return c.MaxPositionEmbeddings - c.PositionOffset() }

// HasTokenTypes reports whether the family adds a token type embedding
// (BERT and RoBERTa; type 0 is always the one added).
func (c Config) HasTokenTypes() bool {
	f := c.Family()
	return f == FamilyBERT || f == FamilyRoBERTa
}

// TakesTokenTypeIDs reports whether the family's standard ONNX graph has
// a token_type_ids input: BERT's does; RoBERTa's (one token type),
// DistilBERT's and MPNet's do not.
func (c Config) TakesTokenTypeIDs() bool { return c.Family() == FamilyBERT }

// Validate checks that the family is supported and that the sizes are
// positive and consistent. name is used in error messages.
func (c Config) Validate(name string) error {
	f := c.Family()
	if f == "" {
		return fmt.Errorf("%s: model_type %q is not supported; supported model types: %s", name, c.ModelType, strings.Join(ModelTypes(), ", "))
	}
	fields := fieldNames(f)
	for _, v := range []struct {
		field string
		v     int
	}{
		{"vocab_size", c.VocabSize},
		{fields.hidden, c.HiddenSize},
		{fields.layers, c.NumHiddenLayers},
		{fields.heads, c.NumAttentionHeads},
		{fields.intermediate, c.IntermediateSize},
		{"max_position_embeddings", c.MaxPositionEmbeddings},
	} {
		if v.v <= 0 {
			return fmt.Errorf("%s: field %q must be a positive integer, got %d", name, v.field, v.v)
		}
	}
	if c.NumHiddenLayers > maxLayers {
		return fmt.Errorf("%s: %s %d is more than %d, too many for an encoder", name, fields.layers, c.NumHiddenLayers, maxLayers)
	}
	if c.HiddenSize%c.NumAttentionHeads != 0 {
		return fmt.Errorf("%s: %s %d is not a multiple of %s %d", name, fields.hidden, c.HiddenSize, fields.heads, c.NumAttentionHeads)
	}
	if !activations[c.HiddenAct] {
		return fmt.Errorf("%s: %s %q is not supported (supported: gelu, gelu_new, gelu_pytorch_tanh, relu)", name, fields.act, c.HiddenAct)
	}
	if !(c.LayerNormEps > 0) || math.IsInf(c.LayerNormEps, 0) {
		return fmt.Errorf("%s: layer_norm_eps %g must be a positive number", name, c.LayerNormEps)
	}
	if c.HasTokenTypes() && c.TypeVocabSize <= 0 {
		return fmt.Errorf("%s: field \"type_vocab_size\" must be a positive integer, got %d", name, c.TypeVocabSize)
	}
	if p := c.PositionEmbeddingType; p != "" && p != "absolute" {
		return fmt.Errorf("%s: position_embedding_type %q is not supported (supported: absolute)", name, p)
	}
	if c.IsDecoder || c.AddCrossAttention {
		return fmt.Errorf("%s: is_decoder or add_cross_attention is set: a decoder is not a text encoder, and only encoders are supported", name)
	}
	if f == FamilyRoBERTa && (c.PadTokenID < 0 || c.PadTokenID >= c.MaxPositionEmbeddings) {
		return fmt.Errorf("%s: pad_token_id %d must lie in [0, max_position_embeddings %d): RoBERTa's positions count from it", name, c.PadTokenID, c.MaxPositionEmbeddings)
	}
	if c.MaxTokens() <= 0 {
		return fmt.Errorf("%s: max_position_embeddings %d leaves no position for a token (positions start at %d)", name, c.MaxPositionEmbeddings, c.PositionOffset())
	}
	if f == FamilyMPNet && c.RelativeAttentionNumBuckets < MPNetBuckets {
		return fmt.Errorf("%s: relative_attention_num_buckets %d is below the %d buckets MPNet's attention uses", name, c.RelativeAttentionNumBuckets, MPNetBuckets)
	}
	return nil
}

// maxLayers bounds num_hidden_layers, so that a corrupt config.json
// cannot make the loaders enumerate billions of tensor names.
const maxLayers = 1000

// fieldNames are the config.json names of a family's size fields, for
// error messages.
type fieldSet struct{ hidden, layers, heads, intermediate, act string }

func fieldNames(f Family) fieldSet {
	if f == FamilyDistilBERT {
		return fieldSet{"dim", "n_layers", "n_heads", "hidden_dim", "activation"}
	}
	return fieldSet{"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_act"}
}
