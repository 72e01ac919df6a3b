// Package ort embeds token ids with ONNX Runtime, the native engine for
// encoding large corpora quickly.
//
// It runs an encoder graph of any family package bert runs (BERT,
// RoBERTa/XLM-RoBERTa, DistilBERT, MPNet) in the standard layout (as
// written by "dreval model export-onnx"; see package onnx) through
// github.com/yalue/onnxruntime_go, which loads the ONNX Runtime shared
// library (libonnxruntime.so.1, version 1.24.1 or newer) at run time;
// scripts/setup-ort.sh installs it under DefaultLibPath. The engine needs
// cgo: in builds without cgo, and under js/wasm, New and Available return
// ErrNotCompiled and the pure-Go encoder (package bert) is the engine.
//
// Before running a graph, New reads it with package onnx, so ONNX Runtime
// only ever runs graphs that the pure-Go encoder can run too, with the same
// weights.
package ort

import (
	"errors"
	"path/filepath"
)

// OptimizedLevel is the graph optimization level of ONNX Runtime at which
// Optimize writes a graph ("extended": the fusions, not the layout
// changes of "all", which depend on the machine).
const OptimizedLevel = "extended"

// LibName is the file name of the ONNX Runtime shared library.
const LibName = "libonnxruntime.so.1"

// DefaultLibPath returns where scripts/setup-ort.sh installs the library,
// given the user cache directory (os.UserCacheDir, usually ~/.cache):
// <cacheDir>/dreval/lib/libonnxruntime.so.1.
func DefaultLibPath(cacheDir string) string {
	return filepath.Join(cacheDir, "dreval", "lib", LibName)
}

// ErrNotCompiled is returned by New and Available in builds without the
// engine.
var ErrNotCompiled = errors.New("ONNX Runtime engine not compiled in (needs cgo; build natively with CGO_ENABLED=1)")
