package transformer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/modelfiles"
)

// stPoolingKeys maps 1_Pooling/config.json's keys to the modes.
var stPoolingKeys = map[string]encoder.Pooling{
	"pooling_mode_cls_token":            encoder.CLS,
	"pooling_mode_max_tokens":           encoder.Max,
	"pooling_mode_mean_tokens":          encoder.Mean,
	"pooling_mode_mean_sqrt_len_tokens": encoder.MeanSqrtLen,
	"pooling_mode_weightedmean_tokens":  encoder.WeightedMean,
	"pooling_mode_lasttoken":            encoder.LastToken,
}

// poolingConfig is sentence-transformers' Pooling module's config.json.
type poolingConfig struct {
	Modes         encoder.Pooling
	IncludePrompt bool
	Dim           int // word_embedding_dimension, 0 when absent
}

// readPoolingConfig reads a Pooling module's config.json at file of d.
func readPoolingConfig(d modelfiles.Dir, file string) (poolingConfig, error) {
	path := d.Path(file)
	b, err := d.ReadFile(file)
	if err != nil {
		return poolingConfig{}, err
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		return poolingConfig{}, fmt.Errorf("%s: %w", path, err)
	}
	pc := poolingConfig{IncludePrompt: true}
	var modes []encoder.Pooling
	for k, v := range c {
		switch {
		case k == "include_prompt":
			on, ok := v.(bool)
			if !ok {
				return poolingConfig{}, fmt.Errorf("%s: include_prompt is %v, expected true or false", path, v)
			}
			pc.IncludePrompt = on
		case k == "word_embedding_dimension":
			f, ok := v.(float64)
			if !ok || f <= 0 || f != math.Trunc(f) || f > 1<<20 {
				return poolingConfig{}, fmt.Errorf("%s: word_embedding_dimension is %v, expected a positive integer", path, v)
			}
			pc.Dim = int(f)
		case strings.HasPrefix(k, "pooling_mode_"):
			on, ok := v.(bool)
			if !ok {
				return poolingConfig{}, fmt.Errorf("%s: %s is %v, expected true or false", path, k, v)
			}
			m, known := stPoolingKeys[k]
			if !known {
				return poolingConfig{}, fmt.Errorf("%s: %s is not a pooling mode this version knows (known: pooling_mode_cls_token, _max_tokens, _mean_tokens, _mean_sqrt_len_tokens, _weightedmean_tokens, _lasttoken)", path, k)
			}
			if on {
				modes = append(modes, m)
			}
		}
	}
	if len(modes) == 0 {
		return poolingConfig{}, fmt.Errorf("%s: no pooling_mode_* is true: expected at least one", path)
	}
	pc.Modes = encoder.JoinPooling(modes)
	return pc, nil
}

// ReadPoolingConfig reads sentence-transformers' 1_Pooling/config.json in
// d: its modes (Mean when the file does not exist).
func ReadPoolingConfig(d modelfiles.Dir) (encoder.Pooling, error) {
	pc, err := readPoolingConfig(d, "1_Pooling/config.json")
	if errors.Is(err, fs.ErrNotExist) {
		return encoder.Mean, nil
	}
	return pc.Modes, err
}
