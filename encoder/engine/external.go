package engine

import (
	"fmt"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/modelfiles"
)

// External is an engine that runs the transformer of BERT-family models
// outside this package: the browser app's onnxruntime-web (package
// ortweb), which Go reaches through JavaScript. Open reads the model's
// settings (tokenizer, configuration, head, maximum length; not the
// transformer's weights) and hands them to New, which returns the
// embedder (running s.Head after the transformer) and how it runs.
type External struct {
	// Name is the engine's name in Info.Engine and the model's
	// fingerprints: the engine family whose numbers the embedder gives
	// ("ort" for onnxruntime-web: ONNX Runtime's graph and kernels).
	Name string
	// New opens the transformer of the model whose settings are s.
	// close, when not nil, releases what it holds.
	New func(s *transformer.Settings) (emb encoder.Embedder, info Info, close func() error, err error)
}

// openExternal opens the BERT-family model in d with the external engine
// o.External.
func openExternal(d modelfiles.Dir, o Options) (*Model, error) {
	s, err := transformer.ReadSettings(d, o.Encoder)
	if err != nil {
		return nil, err
	}
	emb, info, closer, err := o.External.New(s)
	if err != nil {
		return nil, fmt.Errorf("engine %s: %w", o.External.Name, err)
	}
	if info.Engine == "" {
		info.Engine = o.External.Name
	}
	if info.Dims == 0 {
		info.Dims = emb.Dim()
	}
	enc, err := s.Encoder(emb)
	if err != nil {
		if closer != nil {
			closer()
		}
		return nil, err
	}
	return &Model{Encoder: enc, Info: info, close: closer}, nil
}
