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
// and what transformer.Load reads the weights from when there are no other
// weights.
const ONNX = "model.onnx"

// PyTorch is the PyTorch checkpoint (torch.save's pickle) of a model
// directory, as Hugging Face repositories older than safetensors publish
// their weights; package torchckpt reads it without running any code.
const PyTorch = "pytorch_model.bin"

// Weights returns the weight files transformer.Load looks for, in order of
// preference: safetensors, then the PyTorch checkpoint. (ONNX, the
// graph, comes after them all.)
func Weights() []string { return []string{"model.safetensors", "model.fp16.safetensors", PyTorch} }

// settings are the files of a model directory, besides the weights, that
// the loaders read: the configuration, the tokenizer (tokenizer.json, or
// the older vocabulary files with tokenizer_config.json and
// special_tokens_map.json, or a SentencePiece model), sentence-transformers'
// settings and module list, and dreval's two-tower manifest.
var settings = []string{
	"config.json",
	"tokenizer.json",
	"tokenizer_config.json",
	"special_tokens_map.json",
	"vocab.txt",
	"vocab.json",
	"merges.txt",
	"sentencepiece.bpe.model",
	"spiece.model",
	"tokenizer.model",
	"sentence_bert_config.json",
	"modules.json",
	"config_sentence_transformers.json",
	"dreval.json",
}

// isModuleFolder reports whether dir names a sentence-transformers module
// folder: a number, an underscore and a name ("1_Pooling", "2_Dense",
// "0_Transformer").
func isModuleFolder(dir string) bool {
	num, name, ok := strings.Cut(dir, "_")
	if !ok || num == "" || name == "" {
		return false
	}
	for _, r := range num {
		if r < '0' || r > '9' {
			return false
		}
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// split returns file's folder ("" at the top, or one module folder) and
// its name, and false when it lies deeper or in another folder.
func split(file string) (dir, name string, ok bool) {
	dir, name, nested := strings.Cut(file, "/")
	if !nested {
		return "", file, true
	}
	if strings.Contains(name, "/") || !isModuleFolder(dir) {
		return "", "", false
	}
	return dir, name, true
}

// Is reports whether file (slash-separated, relative to a model
// directory) is one the loaders read: the configuration, the tokenizer,
// sentence-transformers' settings and module list, and the weights
// (*.safetensors, pytorch_model.bin, model.onnx), at the top or in a
// sentence-transformers module's folder ("1_Pooling/config.json",
// "2_Dense/model.safetensors", "2_Dense/pytorch_model.bin"). Everything
// else of a downloaded model folder (READMEs, other frameworks' weights
// such as tf_model.h5, an onnx/ folder of graphs) is not.
func Is(file string) bool {
	_, name, ok := split(file)
	if !ok || name == "" || strings.HasPrefix(name, ".") {
		return false
	}
	return slices.Contains(settings, name) || name == ONNX || name == PyTorch || strings.HasSuffix(name, ".safetensors")
}

// ToLoad returns, of a model directory's files, those transformer.Load reads,
// sorted: in every folder (the top and each module's), the settings files
// present and the one weights file it picks (the first of Weights
// present, else ONNX). Whoever copies a model to load it elsewhere (the
// browser app fetching a served model) copies these.
func ToLoad(files []string) []string {
	byDir := map[string][]string{}
	for _, f := range files {
		if dir, name, ok := split(f); ok && Is(f) {
			byDir[dir] = append(byDir[dir], name)
		}
	}
	var out []string
	for dir, names := range byDir {
		join := func(n string) string {
			if dir == "" {
				return n
			}
			return dir + "/" + n
		}
		for _, n := range names {
			if slices.Contains(settings, n) {
				out = append(out, join(n))
			}
		}
		for _, w := range append(Weights(), ONNX) {
			if slices.Contains(names, w) {
				out = append(out, join(w))
				break
			}
		}
	}
	slices.Sort(out)
	return out
}
