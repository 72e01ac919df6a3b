package transformer

import (
	"fmt"
	"strings"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/modelfiles"
)

// ConfigFromONNX returns the configuration of a graph read by
// bert.ReadONNXFile, for a model directory without config.json. The graph
// must say everything config.json would: the sizes (always read from the
// weights), the attention head count (from its reshape constants) and the
// layer-norm epsilon (one value throughout). path names the graph in
// errors.
func ConfigFromONNX(info *bert.ONNXInfo, path string) (modelfiles.Config, error) {
	var missing []string
	if info.Heads == 0 {
		missing = append(missing, "the attention head count (the graph computes it at run time)")
	}
	if info.Epsilon == 0 {
		missing = append(missing, "the layer-norm epsilon (the graph uses several, or none could be read)")
	}
	if len(missing) > 0 {
		return modelfiles.Config{}, fmt.Errorf("encoder: %s: there is no config.json, and the ONNX graph does not say %s; add the model's config.json (num_attention_heads, layer_norm_eps)", path, strings.Join(missing, " nor "))
	}
	cfg := info.Config() // the family, sizes and activation the graph computes
	if err := cfg.Validate(path); err != nil {
		return modelfiles.Config{}, fmt.Errorf("encoder: configuration read from the ONNX graph: %w", err)
	}
	return cfg, nil
}
