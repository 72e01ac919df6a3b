// Package bert runs the forward pass of BERT-family encoders in pure Go,
// in float32: embeddings (word + position + token type), then per layer
// self-attention with a residual LayerNorm and a GELU (erf) feed-forward
// block with a residual LayerNorm.
//
// The tokens of all sequences in a batch are packed into one matrix with no
// padding: the linear layers run on every token at once, and attention runs
// per sequence and head over that sequence's own tokens (what a padding
// mask computes, without the wasted work). A sequence's result does not
// depend on the rest of its batch.
//
// Matrix products run on one of two kernels, chosen by build: an AVX
// assembly kernel (4×16 tiles) on amd64, and a portable register-blocked
// 4×4 kernel in plain Go everywhere else, js/wasm included (no SIMD or
// assembly there). Both sum every element in the same order without fused
// multiply-adds, and are tested to give the same bits. Work is split over
// goroutines by rows and by (sequence, head) (Model.SetThreads).
package bert

import (
	"encoding/json"
	"fmt"
	"io"
)

// Config is the part of a Hugging Face config.json that a BERT encoder needs.
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
	ModelType             string  `json:"model_type"`
}

// ReadConfig decodes a config.json and checks the fields a BERT encoder
// needs. name is used in error messages (usually the file path).
func ReadConfig(r io.Reader, name string) (Config, error) {
	var c Config
	dec := json.NewDecoder(r)
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("%s: not a valid config.json: %w", name, err)
	}
	if c.LayerNormEps == 0 {
		c.LayerNormEps = 1e-12
	}
	if c.HiddenAct == "" {
		c.HiddenAct = "gelu"
	}
	if c.TypeVocabSize == 0 {
		c.TypeVocabSize = 2
	}
	return c, c.Validate(name)
}

// Validate checks that the sizes are positive and consistent.
func (c Config) Validate(name string) error {
	for _, f := range []struct {
		field string
		v     int
	}{
		{"vocab_size", c.VocabSize},
		{"hidden_size", c.HiddenSize},
		{"num_hidden_layers", c.NumHiddenLayers},
		{"num_attention_heads", c.NumAttentionHeads},
		{"intermediate_size", c.IntermediateSize},
		{"max_position_embeddings", c.MaxPositionEmbeddings},
	} {
		if f.v <= 0 {
			return fmt.Errorf("%s: field %q must be a positive integer, got %d", name, f.field, f.v)
		}
	}
	if c.HiddenSize%c.NumAttentionHeads != 0 {
		return fmt.Errorf("%s: hidden_size %d is not a multiple of num_attention_heads %d", name, c.HiddenSize, c.NumAttentionHeads)
	}
	switch c.HiddenAct {
	case "gelu":
	default:
		return fmt.Errorf("%s: hidden_act %q is not supported (supported: gelu)", name, c.HiddenAct)
	}
	return nil
}
