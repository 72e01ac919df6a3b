package modelfiles

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Pick returns, of the files of a model folder a user gives
// (slash-separated paths relative to it; from says what they are, for
// messages), those to copy and the path each takes in the model
// directory: the files Load reads (ToLoad),
// a Hugging Face repository's onnx/model.onnx read as model.onnx. It
// checks the upload can load: a tokenizer.json, weights, and config.json
// beside safetensors weights (only an ONNX graph states its own sizes).
// A path WeightsChosen+NAME stands for a weights file chosen alone,
// whatever its name: it is read as model.onnx or model.safetensors by its
// extension.
func Pick(from string, files []string) (send map[string]string, err error) {
	as := map[string]string{} // path in the model directory -> path offered
	for _, f := range files {
		if name, ok := strings.CutPrefix(f, WeightsChosen); ok {
			switch {
			case strings.HasSuffix(name, ".onnx"):
				as[ONNX] = f
			case strings.HasSuffix(name, ".safetensors"):
				as[Weights()[0]] = f
			default:
				return nil, fmt.Errorf("the weights file %s is neither an ONNX graph (.onnx) nor safetensors (.safetensors)", name)
			}
			continue
		}
		if f == "onnx/model.onnx" && !slices.Contains(files, ONNX) {
			as[ONNX] = f
			continue
		}
		if Is(f) {
			as[f] = f
		}
	}
	if len(as) == 0 {
		return nil, errors.New("choose your model first: its folder, or tokenizer.json and model.onnx or model.safetensors")
	}
	keys := make([]string, 0, len(as))
	for k := range as {
		keys = append(keys, k)
	}
	load := ToLoad(keys)
	if !slices.Contains(load, "tokenizer.json") {
		return nil, fmt.Errorf("tokenizer.json is missing from %s: the model's tokenizer is required", from)
	}
	var weights string
	for _, f := range load {
		if f == ONNX || strings.HasSuffix(f, ".safetensors") {
			weights = f
		}
	}
	if weights == "" {
		return nil, fmt.Errorf("the weights are missing from %s: choose model.onnx or model.safetensors", from)
	}
	if weights != ONNX && !slices.Contains(load, "config.json") {
		if _, ok := as[ONNX]; !ok {
			return nil, fmt.Errorf("config.json is missing from %s: it is required with %s (only an ONNX graph can do without it)", from, weights)
		}
		// Without config.json only the graph can be read.
		load = slices.DeleteFunc(load, func(f string) bool { return f == weights })
		load = append(load, ONNX)
	}
	send = map[string]string{}
	for _, f := range load {
		send[as[f]] = f
	}
	return send, nil
}

// WeightsChosen prefixes the name of a weights file a user chose alone
// (see Pick).
const WeightsChosen = "weights:"
