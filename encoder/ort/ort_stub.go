//go:build !cgo || js

package ort

import (
	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/modelfiles"
)

// Embedder is the ONNX Runtime embedder; in this build it cannot be
// created (New returns ErrNotCompiled).
type Embedder struct {
	Head                   *encoder.Head
	BatchSize, BatchTokens int
	Progress               encoder.Progress
}

// Available reports ErrNotCompiled: this build has no ONNX Runtime engine.
func Available(libPath string) error { return ErrNotCompiled }

// Options configure Open (see the cgo build).
type Options struct {
	Threads int
	Config  *modelfiles.Config
	Pooler  bool
	Tokens  bool
}

// New returns ErrNotCompiled: this build has no ONNX Runtime engine.
func New(onnxPath, libPath string, threads int) (*Embedder, error) { return nil, ErrNotCompiled }

// Open returns ErrNotCompiled: this build has no ONNX Runtime engine.
func Open(onnxPath, libPath string, o Options) (*Embedder, error) { return nil, ErrNotCompiled }

// Graph returns nil in this build.
func (e *Embedder) Graph() *onnx.GraphInfo { return nil }

// Output returns the zero Value in this build.
func (e *Embedder) Output() onnx.Value { return onnx.Value{} }

// PerToken returns false in this build.
func (e *Embedder) PerToken() bool { return false }

// Version returns "" in this build.
func Version() string { return "" }

// EmbedIDs returns ErrNotCompiled.
func (e *Embedder) EmbedIDs(ids [][]int32) ([][]float32, error) { return nil, ErrNotCompiled }

// Forward returns ErrNotCompiled.
func (e *Embedder) Forward(seqs [][]int32) ([][]float32, error) { return nil, ErrNotCompiled }

// HasPooler returns false.
func (e *Embedder) HasPooler() bool { return false }

// ForwardPooled returns ErrNotCompiled.
func (e *Embedder) ForwardPooled(seqs [][]int32) (hidden, pooled [][]float32, err error) {
	return nil, nil, ErrNotCompiled
}

// Dim returns 0.
func (e *Embedder) Dim() int { return 0 }

// Hidden returns 0.
func (e *Embedder) Hidden() int { return 0 }

// VocabSize returns 0.
func (e *Embedder) VocabSize() int { return 0 }

// Threads returns 0.
func (e *Embedder) Threads() int { return 0 }

// Close does nothing.
func (e *Embedder) Close() error { return nil }

// Optimize returns ErrNotCompiled: this build has no ONNX Runtime engine.
func Optimize(onnxPath, outPath, libPath string) error { return ErrNotCompiled }
