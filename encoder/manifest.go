package encoder

import (
	"fmt"

	"github.com/dreval/dreval/modelfiles"
)

// Pooler is the pooling of the first token through BERT's pooler layer
// (pooler.dense, tanh), as a dreval.json or a flag may ask for it.
const Pooler = "pooler"

// CheckManifest checks what a dreval.json's settings mean, as
// modelfiles.ParseManifest checks its shape: its score is a similarity
// (ParseSimilarity) and its pooling a pooling (ParsePooling) or Pooler.
// name names the file in errors.
func CheckManifest(m *modelfiles.Manifest, name string) error {
	if m == nil {
		return nil
	}
	if m.Score != "" {
		if _, err := ParseSimilarity(m.Score); err != nil {
			return fmt.Errorf("%s: score: %w", name, err)
		}
	}
	if m.Pooling != "" && m.Pooling != Pooler {
		if _, err := ParsePooling(m.Pooling); err != nil {
			return fmt.Errorf("%s: pooling: %w (or \"pooler\")", name, err)
		}
	}
	return nil
}

// ReadManifest reads the dreval.json of d (modelfiles.ReadManifest) and
// checks what its settings mean (CheckManifest); nil (no error) when d
// has none.
func ReadManifest(d modelfiles.Dir) (*modelfiles.Manifest, error) {
	m, err := modelfiles.ReadManifest(d)
	if err != nil {
		return nil, err
	}
	if err := CheckManifest(m, d.Path(modelfiles.ManifestFile)); err != nil {
		return nil, err
	}
	return m, nil
}
