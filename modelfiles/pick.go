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
// beside safetensors or PyTorch weights (only an ONNX graph states its
// own sizes).
// A path WeightsChosen+NAME stands for a weights file chosen alone,
// whatever its name: it is read as model.onnx, model.safetensors or
// pytorch_model.bin (.bin, .pt, .pth: a PyTorch checkpoint) by its
// extension.
//
// A folder with a dreval.json is a retriever whose towers are folders of
// it: Pick then keeps the manifest and, of every folder directly inside
// it, the files its towers' loads read; the loader checks the towers are
// those the manifest names.
func Pick(from string, files []string) (send map[string]string, err error) {
	return PickGraph(from, files, "")
}

// PickGraph is Pick with the ONNX graph of the folder to load chosen by
// graph, PickONNX's want: a variant ("quantized" for
// onnx/model_quantized.onnx, "fp16", "fp32", ...) or a file
// ("onnx/model_fp16.onnx"). The graph is sent as model.onnx and is the
// model's weights: the safetensors or PyTorch weights at the folder's top
// are left out, so the ort engines run that graph and the pure-Go engine
// reads its weights from it (refusing a graph it cannot run), as
// transformer.Options.ONNXFile has them do natively. With graph "", a folder
// whose only weights are graphs in its onnx/ folder other than
// onnx/model.onnx (a Transformers.js layout with model_quantized.onnx
// alone, say) loads its one graph; with several, the error lists them.
// A graph that is not there is an error listing those that are.
func PickGraph(from string, files []string, graph string) (map[string]string, error) {
	if graph == "" {
		graphs := ONNXGraphs(files)
		if len(graphs) == 0 || slices.ContainsFunc(files, isWeights) || slices.Contains(files, ONNXFolder+"/"+ONNX) || slices.Contains(files, ManifestFile) {
			return pick(from, files)
		}
		if len(graphs) > 1 {
			return nil, fmt.Errorf("%s has no model.onnx, model.safetensors or pytorch_model.bin, and several ONNX graphs (%s): choose which one to load", from, strings.Join(graphs, ", "))
		}
		graph = graphs[0]
	}
	g, err := PickONNX(files, graph)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	rest := slices.DeleteFunc(slices.Clone(files), func(f string) bool { return IsONNXGraph(f) || isWeights(f) })
	send, err := pick(from, append(rest, WeightsChosen+g))
	if err != nil {
		return nil, err
	}
	send[g] = send[WeightsChosen+g]
	delete(send, WeightsChosen+g)
	return send, nil
}

// isWeights reports whether file is a weights file at a model folder's
// top (not a module's): one of Weights, or ONNX.
func isWeights(file string) bool {
	return file == ONNX || slices.Contains(Weights(), file)
}

func pick(from string, files []string) (send map[string]string, err error) {
	if slices.Contains(files, ManifestFile) {
		// A single tower at the top with a manifest (say SimCSE's
		// pooling), or two towers in folders.
		rest := slices.DeleteFunc(slices.Clone(files), func(f string) bool { return f == ManifestFile })
		if send, err := Pick(from, rest); err == nil {
			send[ManifestFile] = ManifestFile
			return send, nil
		}
		return pickRetriever(from, files)
	}
	as := map[string]string{} // path in the model directory -> path offered
	for _, f := range files {
		if name, ok := strings.CutPrefix(f, WeightsChosen); ok {
			switch {
			case strings.HasSuffix(name, ".onnx"):
				as[ONNX] = f
			case strings.HasSuffix(name, ".safetensors"):
				as[Weights()[0]] = f
			case strings.HasSuffix(name, ".bin") || strings.HasSuffix(name, ".pt") || strings.HasSuffix(name, ".pth"):
				as[PyTorch] = f
			default:
				return nil, fmt.Errorf("the weights file %s is neither an ONNX graph (.onnx), safetensors (.safetensors) nor a PyTorch checkpoint (.bin, .pt, .pth)", name)
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
		return nil, errors.New("choose your model first: its folder, or tokenizer.json and model.onnx, model.safetensors or pytorch_model.bin")
	}
	keys := make([]string, 0, len(as))
	for k := range as {
		keys = append(keys, k)
	}
	load := ToLoad(keys)
	if !HasTokenizer(load) {
		return nil, fmt.Errorf("tokenizer.json is missing from %s: the model's tokenizer is required (tokenizer.json, or vocab.json with merges.txt, a SentencePiece .model, or vocab.txt)", from)
	}
	var weights string
	for _, f := range load {
		if f == ONNX || f == PyTorch || strings.HasSuffix(f, ".safetensors") {
			weights = f
		}
	}
	if weights == "" {
		return nil, fmt.Errorf("the weights are missing from %s: choose model.onnx, model.safetensors or pytorch_model.bin", from)
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

// HasTokenizer reports whether files (paths in a model directory) hold
// a tokenizer in a layout the loaders read: tokenizer.json, vocab.json
// with merges.txt, a SentencePiece model, or vocab.txt.
func HasTokenizer(files []string) bool {
	has := func(f string) bool { return slices.Contains(files, f) }
	return has("tokenizer.json") || (has("vocab.json") && has("merges.txt")) || has("vocab.txt") ||
		slices.ContainsFunc(files, func(f string) bool { return !strings.Contains(f, "/") && strings.HasSuffix(f, ".model") })
}

// WeightsChosen prefixes the name of a weights file a user chose alone
// (see Pick).
const WeightsChosen = "weights:"

// pickRetriever is Pick of a retriever's folder: its manifest, and each
// tower (a folder directly inside it) picked as a model folder.
func pickRetriever(from string, files []string) (map[string]string, error) {
	send := map[string]string{ManifestFile: ManifestFile}
	byFolder := map[string][]string{}
	var folders []string
	for _, f := range files {
		folder, rest, ok := strings.Cut(f, "/")
		if !ok {
			continue
		}
		if _, seen := byFolder[folder]; !seen {
			folders = append(folders, folder)
		}
		byFolder[folder] = append(byFolder[folder], rest)
	}
	slices.Sort(folders)
	towers := 0
	for _, folder := range folders {
		if isModuleFolder(folder) {
			continue
		}
		sub, err := Pick(from+"/"+folder, byFolder[folder])
		if err != nil {
			continue // not a tower: the loader says so if the manifest names it
		}
		for k, v := range sub {
			send[folder+"/"+k] = folder + "/" + v
		}
		towers++
	}
	if towers == 0 {
		return nil, fmt.Errorf("%s has a %s but no folder holding a model (a tokenizer and weights): its towers are missing", from, ManifestFile)
	}
	return send, nil
}
