package modelfiles

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
)

// WeightFile returns the name of the weights file a load reads in d: the
// first of Weights present, else ONNX, else onnx/model.onnx (a folder laid
// out for Transformers.js, with graphs only).
func (d Dir) WeightFile() (string, error) {
	for _, name := range append(Weights(), ONNX, ONNXFolder+"/"+ONNX) {
		ok, err := d.Exists(name)
		if err != nil {
			return "", err
		}
		if ok {
			return name, nil
		}
	}
	return "", fmt.Errorf("%s holds no weights (expected one of %v, or %s or %s)", d.Name(), Weights(), ONNX, ONNXFolder+"/"+ONNX)
}

// ONNXGraphs returns the ONNX graphs of d (IsONNXGraph: .onnx files at the
// top and in its onnx/ folder), sorted as ONNXGraphs sorts a list.
func (d Dir) ONNXGraphs() ([]string, error) {
	var files []string
	for _, sub := range []string{".", ONNXFolder} {
		es, err := d.ReadDir(sub)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		for _, e := range es {
			f := path.Join(sub, e.Name())
			if !e.IsDir() && IsONNXGraph(f) {
				files = append(files, f)
			}
		}
	}
	return ONNXGraphs(files), nil
}

// PickONNX returns the ONNX graph of d that want chooses (see PickONNX);
// the error names d.
func (d Dir) PickONNX(want string) (string, error) {
	files, err := d.ONNXGraphs()
	if err != nil {
		return "", err
	}
	f, err := PickONNX(files, want)
	if err != nil {
		return "", fmt.Errorf("%s: %w", d.Name(), err)
	}
	return f, nil
}
