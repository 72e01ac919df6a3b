package modelfiles

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// ONNXFolder is the folder of ONNX graphs in the layouts of Hugging Face
// repositories exported with optimum or for Transformers.js:
// onnx/model.onnx (float32), onnx/model_quantized.onnx (int8),
// onnx/model_fp16.onnx, and others named model_VARIANT.onnx.
const ONNXFolder = "onnx"

// IsONNXGraph reports whether file (slash-separated, relative to a model
// directory or its transformer's folder) is an ONNX graph PickONNX
// chooses from: a .onnx file at the top or in ONNXFolder.
func IsONNXGraph(file string) bool {
	dir, name := path.Split(file)
	if !strings.HasSuffix(name, ".onnx") || name == ".onnx" || strings.HasPrefix(name, ".") {
		return false
	}
	return dir == "" || dir == ONNXFolder+"/"
}

// ONNXGraphs returns the ONNX graphs among files (see IsONNXGraph), sorted.
func ONNXGraphs(files []string) []string {
	var out []string
	for _, f := range files {
		if IsONNXGraph(f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// PickONNX returns which of files (a model folder's, slash-separated)
// holds the ONNX graph to run. want is "" for the default, ONNX at the
// top, else onnx/model.onnx; or a file ("onnx/model_fp16.onnx"; a bare
// name is looked for at the top, then in ONNXFolder); or a variant of the
// Transformers.js layout: "fp32" for the default, else VARIANT for
// onnx/model_VARIANT.onnx ("quantized", "fp16", "int8", "q4", ...), or
// model_VARIANT.onnx at the top. A graph that is not there is an error
// listing the graphs that are.
func PickONNX(files []string, want string) (string, error) {
	graphs := ONNXGraphs(files)
	has := func(f string) bool { return slices.Contains(graphs, f) }
	var tried []string
	try := func(fs ...string) (string, bool) {
		for _, f := range fs {
			tried = append(tried, f)
			if has(f) {
				return f, true
			}
		}
		return "", false
	}
	var f string
	var ok bool
	switch {
	case want == "" || want == "fp32":
		f, ok = try(ONNX, ONNXFolder+"/"+ONNX)
	case strings.HasSuffix(want, ".onnx"):
		if strings.Contains(want, "/") {
			f, ok = try(path.Clean(want))
		} else {
			f, ok = try(want, ONNXFolder+"/"+want)
		}
	case strings.ContainsAny(want, "/.\\"):
		return "", fmt.Errorf("ONNX graph %q is neither a .onnx file nor a variant name (such as quantized or fp16)", want)
	default:
		name := "model_" + want + ".onnx"
		f, ok = try(ONNXFolder+"/"+name, name)
	}
	if ok {
		return f, nil
	}
	avail := "none"
	if len(graphs) > 0 {
		avail = strings.Join(graphs, ", ")
	}
	return "", fmt.Errorf("no ONNX graph %s (ONNX graphs in the folder: %s)", strings.Join(tried, " or "), avail)
}

// ONNXVariant is one row of the table of ONNX graphs a user chooses from
// (PickONNX's want) in the page's menu: the name and how the menu shows
// it. Any model_VARIANT.onnx works with PickONNX; these are the variants
// Hugging Face's Transformers.js repositories publish.
type ONNXVariant struct {
	Want, Label string
}

// ONNXVariants returns the table of ONNX variants, in menu order, the
// default ("") first.
func ONNXVariants() []ONNXVariant {
	return []ONNXVariant{
		{"", "default: its weights, else model.onnx, else its only graph"},
		{"quantized", "int8: onnx/model_quantized.onnx"},
		{"fp16", "fp16: onnx/model_fp16.onnx"},
		{"fp32", "fp32: onnx/model.onnx"},
		{"int8", "onnx/model_int8.onnx"},
		{"uint8", "onnx/model_uint8.onnx"},
		{"q4", "onnx/model_q4.onnx"},
		{"q4f16", "onnx/model_q4f16.onnx"},
		{"bnb4", "onnx/model_bnb4.onnx"},
	}
}
