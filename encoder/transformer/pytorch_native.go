//go:build !js

package transformer

import (
	"io"

	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/torchckpt"
)

// Natively, PyTorch checkpoints are read with package torchckpt.
func init() {
	pytorch = &pytorchReader{
		read: func(r io.ReaderAt, size int64, name string, keep func(string) bool) (tensor.Set, []string, error) {
			c, err := torchckpt.Open(r, size, name)
			if err != nil {
				return nil, nil, err
			}
			set, err := c.Read(keep)
			if err != nil {
				return nil, nil, err
			}
			return set, c.Skipped(), nil
		},
		names: func(r io.ReaderAt, size int64, name string) ([]string, error) {
			c, err := torchckpt.Open(r, size, name)
			if err != nil {
				return nil, err
			}
			return c.Names(), nil
		},
	}
}
