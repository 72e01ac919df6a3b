package transformer

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/modelfiles"
)

// Weights are the tensors of a weights file, as ReadWeights reads them.
type Weights struct {
	Tensors tensor.Set
	// Skipped names what was not read: the tensors of a type that is not
	// converted (integers, booleans, such as "embeddings.position_ids
	// (int64)") and, in a PyTorch checkpoint, the values that are not
	// tensors.
	Skipped []string
	// ONNX describes the graph of an ONNX weights file (nil for others):
	// its sizes, to check against config.json.
	ONNX *bert.ONNXInfo
}

// The weight formats, by how their files are named (weightFormat).
const (
	formatSafetensors = "safetensors"
	formatPyTorch     = "PyTorch"
	formatONNX        = "ONNX"
)

// weightFormat returns the format of weights file file by its name:
// *.safetensors; pytorch_model.bin or another *.bin, *.pt or *.pth (a
// PyTorch checkpoint); *.onnx.
func weightFormat(file string) (string, error) {
	name := path.Base(file)
	switch {
	case strings.HasSuffix(name, ".safetensors"):
		return formatSafetensors, nil
	case strings.HasSuffix(name, ".bin") || strings.HasSuffix(name, ".pt") || strings.HasSuffix(name, ".pth"):
		return formatPyTorch, nil
	case strings.HasSuffix(name, ".onnx"):
		return formatONNX, nil
	}
	return "", fmt.Errorf("%s is not a weights file dreval reads (safetensors, a PyTorch checkpoint such as pytorch_model.bin, or an ONNX graph)", file)
}

// ReadWeights reads weights file file of d (one of WeightFiles, or
// modelfiles.ONNX) into float32 tensors, by its format: safetensors, a PyTorch
// checkpoint (package torchckpt: a restricted unpickler that runs no
// code) or an ONNX graph's initializers. keep selects the tensors read by
// name (nil: every float tensor); a tensor keep selects must be a float
// tensor. Every loader of this package reads weights through it: the
// transformer's, a DPR or ANCE head's, a sentence-transformers module's.
func ReadWeights(d modelfiles.Dir, file string, keep func(name string) bool) (*Weights, error) {
	format, err := weightFormat(file)
	if err != nil {
		return nil, err
	}
	if format == formatONNX {
		set, info, err := readONNX(d, file)
		if err != nil {
			return nil, err
		}
		return &Weights{Tensors: filter(set, keep), ONNX: info}, nil
	}
	r, size, release, err := d.ReaderAt(file)
	if err != nil {
		return nil, err
	}
	defer release()
	name := d.Path(file)
	if format == formatSafetensors {
		if keep != nil {
			set, err := safetensors.ReadTensors(r, size, name, keep)
			return &Weights{Tensors: set}, err
		}
		f, err := safetensors.Read(r, size, name)
		if err != nil {
			return nil, err
		}
		return &Weights{Tensors: f.Tensors, Skipped: f.Skipped}, nil
	}
	if pytorch == nil {
		return nil, errNoPyTorch(name)
	}
	set, skipped, err := pytorch.read(r, size, name, keep)
	if err != nil {
		return nil, err
	}
	return &Weights{Tensors: set, Skipped: skipped}, nil
}

// filter returns the tensors of set keep selects (nil: all).
func filter(set tensor.Set, keep func(string) bool) tensor.Set {
	if keep == nil {
		return set
	}
	out := tensor.Set{}
	for n, t := range set {
		if keep(n) {
			out[n] = t
		}
	}
	return out
}

// WeightNames returns the names of the tensors of weights file file of
// d, converting none (an ONNX graph is read whole).
func WeightNames(d modelfiles.Dir, file string) ([]string, error) {
	format, err := weightFormat(file)
	if err != nil {
		return nil, err
	}
	if format == formatONNX {
		set, _, err := readONNX(d, file)
		var np *bert.NotPureGoError
		if errors.As(err, &np) {
			// A graph only ONNX Runtime runs (quantized, float16,
			// another exporter's): its initializers' names as they are.
			return onnxInitializerNames(d, file)
		}
		if err != nil {
			return nil, err
		}
		return set.Names(), nil
	}
	r, size, release, err := d.ReaderAt(file)
	if err != nil {
		return nil, err
	}
	defer release()
	if format == formatSafetensors {
		h, err := safetensors.ReadHeader(r, size, d.Path(file))
		if err != nil {
			return nil, err
		}
		names := make([]string, len(h.Entries))
		for i, e := range h.Entries {
			names[i] = e.Name
		}
		return names, nil
	}
	if pytorch == nil {
		return nil, errNoPyTorch(d.Path(file))
	}
	return pytorch.names(r, size, d.Path(file))
}

// onnxInitializerNames returns the names of the initializers of the ONNX
// graph file of d.
func onnxInitializerNames(d modelfiles.Dir, file string) ([]string, error) {
	b, err := d.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m, err := onnx.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Path(file), err)
	}
	names := make([]string, len(m.Graph.Initializers))
	for i, t := range m.Graph.Initializers {
		names[i] = t.Name
	}
	return names, nil
}

// pytorchReader reads PyTorch checkpoints (package torchckpt: a
// restricted unpickler that runs no code) for ReadWeights and
// WeightNames.
type pytorchReader struct {
	read  func(r io.ReaderAt, size int64, name string, keep func(string) bool) (tensor.Set, []string, error)
	names func(r io.ReaderAt, size int64, name string) ([]string, error)
}

// pytorch is the PyTorch reader of this build: set natively
// (pytorch_native.go); nil in the browser app, whose models are
// safetensors or ONNX (the unpickler would add 46 KB to its gzip).
var pytorch *pytorchReader

// errNoPyTorch is ReadWeights' answer to a PyTorch checkpoint in a build
// without the reader.
func errNoPyTorch(name string) error {
	return fmt.Errorf("%s is a PyTorch checkpoint, which the browser app does not read: give the model's model.safetensors or an ONNX graph (\"dreval model export-onnx\" writes one)", name)
}
