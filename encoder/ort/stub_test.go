//go:build !cgo || js

package ort

import (
	"errors"
	"testing"
)

func TestStubReportsNotCompiled(t *testing.T) {
	if err := Available("/any/libonnxruntime.so.1"); !errors.Is(err, ErrNotCompiled) {
		t.Errorf("Available = %v, want ErrNotCompiled", err)
	}
	if _, err := New("model.onnx", "/any/libonnxruntime.so.1", 1); !errors.Is(err, ErrNotCompiled) {
		t.Errorf("New = %v, want ErrNotCompiled", err)
	}
	var e Embedder
	if _, err := e.EmbedIDs([][]int32{{101, 102}}); !errors.Is(err, ErrNotCompiled) {
		t.Errorf("EmbedIDs = %v, want ErrNotCompiled", err)
	}
}
