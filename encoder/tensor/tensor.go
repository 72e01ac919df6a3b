// Package tensor holds the common currency of dreval's weight readers and
// writers: named, dense, row-major float32 arrays.
//
// Every weight format (safetensors, ONNX initializers) is read into a Set
// keyed by the Hugging Face BERT tensor names (for example
// "encoder.layer.0.attention.self.query.weight"), so a model can be built
// from any of them by the same code.
package tensor

import (
	"fmt"
	"sort"
)

// Tensor is a dense row-major float32 array.
type Tensor struct {
	Shape []int
	Data  []float32
}

// New returns a zero tensor of the given shape.
func New(shape ...int) *Tensor {
	return &Tensor{Shape: append([]int(nil), shape...), Data: make([]float32, Numel(shape))}
}

// Numel returns the number of elements of a tensor of the given shape.
func Numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// Set is a collection of named tensors, as read from a weight file.
type Set map[string]*Tensor

// Names returns the tensor names in sorted order.
func (s Set) Names() []string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Get returns the tensor called name, checking that it has the given shape.
// The error names the tensor and both shapes.
func (s Set) Get(name string, shape ...int) (*Tensor, error) {
	t, ok := s[name]
	if !ok {
		return nil, fmt.Errorf("tensor %q is missing (expected shape %v)", name, shape)
	}
	if !sameShape(t.Shape, shape) {
		return nil, fmt.Errorf("tensor %q has shape %v, expected %v", name, t.Shape, shape)
	}
	if len(t.Data) != Numel(t.Shape) {
		return nil, fmt.Errorf("tensor %q holds %d values, its shape %v needs %d", name, len(t.Data), t.Shape, Numel(t.Shape))
	}
	return t, nil
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
