package encoder

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// Pooling turns a sequence's token vectors into one vector.
type Pooling string

// The pooling methods.
const (
	// Mean averages the vectors of all tokens, [CLS] and [SEP] included
	// (sentence-transformers' pooling_mode_mean_tokens).
	Mean Pooling = "mean"
	// CLS takes the vector of the first token.
	CLS Pooling = "cls"
)

// ParsePooling returns the Pooling called s ("mean" or "cls").
func ParsePooling(s string) (Pooling, error) {
	switch p := Pooling(s); p {
	case Mean, CLS:
		return p, nil
	}
	return "", fmt.Errorf("pooling %q is not supported (supported: mean, cls)", s)
}

// Pool writes the pooled vector of hidden (n rows of len(dst) values) to dst.
func (p Pooling) Pool(dst, hidden []float32) {
	d := len(dst)
	switch p {
	case CLS:
		copy(dst, hidden[:d])
	default:
		clear(dst)
		n := len(hidden) / d
		for t := 0; t < n; t++ {
			row := hidden[t*d : (t+1)*d]
			for i, v := range row {
				dst[i] += v
			}
		}
		inv := 1 / float32(n)
		for i := range dst {
			dst[i] *= inv
		}
	}
}

// ReadPoolingConfig reads sentence-transformers' 1_Pooling/config.json
// in d. It returns Mean when the file does not exist, and an error for
// a pooling mode this package does not implement (max, mean of square root
// length, weighted, last token).
func ReadPoolingConfig(d Dir) (Pooling, error) {
	path := d.Path("1_Pooling/config.json")
	b, err := d.ReadFile("1_Pooling/config.json")
	if errors.Is(err, fs.ErrNotExist) {
		return Mean, nil
	}
	if err != nil {
		return "", err
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	var modes []string
	for k, v := range c {
		if on, ok := v.(bool); ok && on && len(k) > len("pooling_mode_") && k[:len("pooling_mode_")] == "pooling_mode_" {
			modes = append(modes, k)
		}
	}
	if len(modes) != 1 {
		return "", fmt.Errorf("%s: expected exactly one pooling_mode_* set to true, found %v", path, modes)
	}
	switch modes[0] {
	case "pooling_mode_mean_tokens":
		return Mean, nil
	case "pooling_mode_cls_token":
		return CLS, nil
	}
	return "", fmt.Errorf("%s: %s is not supported (supported: mean_tokens, cls_token)", path, modes[0])
}
