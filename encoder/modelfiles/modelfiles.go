// Package modelfiles says which files make a model directory: the ones
// the loaders of package encoder (and static, engine) read, and of those
// the ones a load needs. The server serves them, "dreval site" copies
// them and the browser app fetches them, all by these rules, so a model
// folder is read the same everywhere. The package has no dependencies, so
// that the Cloudflare Worker can use it without the neural stack.
package modelfiles

import (
	"slices"
	"strings"
)

// ONNX is the ONNX graph of a model directory: what the ort engine runs,
// and what encoder.Load reads the weights from when there are no
// safetensors weights.
const ONNX = "model.onnx"

// Weights returns the safetensors weight files encoder.Load looks for, in
// order of preference.
func Weights() []string { return []string{"model.safetensors", "model.fp16.safetensors"} }

// settings are the files of a model directory, besides the weights, that
// the loaders read: the configuration, the tokenizer and
// sentence-transformers' settings.
var settings = []string{
	"config.json",
	"tokenizer.json",
	"sentence_bert_config.json",
	"1_Pooling/config.json",
}

// Is reports whether file (slash-separated, relative to a model
// directory) is one the loaders read: the configuration, the tokenizer,
// sentence-transformers' settings and the weights (*.safetensors at the
// top, model.onnx). Everything else of a downloaded model folder
// (READMEs, other frameworks' weights) is not.
func Is(file string) bool {
	if slices.Contains(settings, file) || file == ONNX {
		return true
	}
	return !strings.Contains(file, "/") && strings.HasSuffix(file, ".safetensors") && !strings.HasPrefix(file, ".")
}

// ToLoad returns, of a model directory's files, those encoder.Load reads,
// sorted: the settings files present and the one weights file it picks
// (the first of Weights present, else ONNX). Whoever copies a model to
// load it elsewhere (the browser app fetching a served model) copies
// these.
func ToLoad(files []string) []string {
	var out []string
	for _, f := range files {
		if slices.Contains(settings, f) {
			out = append(out, f)
		}
	}
	for _, w := range append(Weights(), ONNX) {
		if slices.Contains(files, w) {
			out = append(out, w)
			break
		}
	}
	slices.Sort(out)
	return out
}
