package experiment

import (
	"fmt"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/retrieval"
)

// CorpusVectorsMeta describes precomputed corpus vectors ("dreval site"
// writes data/demo/MODEL.json beside MODEL.npy, "dreval serve" serves
// them): what made the rows of the matrix and the document of each row.
type CorpusVectorsMeta struct {
	Dataset string `json:"dataset"`
	Model   string `json:"model"`
	// ModelFingerprint is the document tower's fingerprint (its weights,
	// settings and engine family).
	ModelFingerprint     string `json:"model_fingerprint"`
	Engine               string `json:"engine"`
	TokenizerFingerprint string `json:"tokenizer_fingerprint"`
	// CorpusSHA256 is CorpusHash of the corpus, in order.
	CorpusSHA256 string   `json:"corpus_sha256"`
	Rows         int      `json:"rows"`
	Dim          int      `json:"dim"`
	DocIDs       []string `json:"doc_ids"`
}

// NewCorpusVectorsMeta describes mat, model m's document vectors of
// corpus (whose CorpusHash is corpusHash) in dataset dsName.
func NewCorpusVectorsMeta(m *Model, dsName string, corpus []dataset.Doc, corpusHash string, mat *retrieval.Matrix) CorpusVectorsMeta {
	ids := make([]string, len(corpus))
	for i, d := range corpus {
		ids[i] = d.ID
	}
	return CorpusVectorsMeta{Dataset: dsName, Model: m.Name, ModelFingerprint: m.Document.Fingerprint, Engine: m.Document.Engine,
		TokenizerFingerprint: m.Document.Tokenizer.Fingerprint(), CorpusSHA256: corpusHash, Rows: mat.Rows, Dim: mat.Dim, DocIDs: ids}
}

// Fits returns "" when the vectors meta describes are those model m's
// document tower computes for corpus (whose CorpusHash is corpusHash):
// made by the same tower and engine family (its fingerprint), the same
// tokenizer (its fingerprint: a tampered tokenizer never meets them), of
// the same corpus (its hash and document ids, in order), with the
// tower's dimensions; else it says why not.
func (meta CorpusVectorsMeta) Fits(m *Model, corpus []dataset.Doc, corpusHash string) string {
	if m == nil || m.Kind != Dense || m.Document.Tokenizer == nil || m.Document.Embedder == nil {
		return "the model has no document tower"
	}
	switch {
	case meta.CorpusSHA256 != corpusHash || len(meta.DocIDs) != len(corpus):
		return "they embed another version of the corpus"
	case meta.ModelFingerprint != m.Document.Fingerprint && meta.Engine != m.Document.Engine:
		return fmt.Sprintf("they were computed by engine %s, this run's vectors by %s", meta.Engine, m.Document.Engine)
	case meta.ModelFingerprint != m.Document.Fingerprint:
		return "they were made by other model files or settings (model fingerprint " + meta.ModelFingerprint + ", this run's " + m.Document.Fingerprint + ")"
	case meta.TokenizerFingerprint != m.Document.Tokenizer.Fingerprint():
		return "they were made with another tokenizer (tokenizer fingerprint " + meta.TokenizerFingerprint + ", this run's " + m.Document.Tokenizer.Fingerprint() + ")"
	case meta.Dim != m.Document.Embedder.Dim() || meta.Rows != len(corpus):
		return fmt.Sprintf("they are %d vectors of %d values, the model makes %d of %d", meta.Rows, meta.Dim, len(corpus), m.Document.Embedder.Dim())
	}
	for i, d := range corpus {
		if meta.DocIDs[i] != d.ID {
			return fmt.Sprintf("their row %d is document %q, the corpus's %q", i, meta.DocIDs[i], d.ID)
		}
	}
	return ""
}

// CheckMatrix returns an error when mat, read from where, is not the
// matrix meta describes (its rows and dimensions) or holds a value that
// is not finite.
func (meta CorpusVectorsMeta) CheckMatrix(mat *retrieval.Matrix, where string) error {
	if mat == nil {
		return fmt.Errorf("%s: no matrix", where)
	}
	if mat.Rows != meta.Rows || mat.Dim != meta.Dim {
		return fmt.Errorf("%s: the matrix is %d x %d, but its description (field rows, dim) says %d x %d", where, mat.Rows, mat.Dim, meta.Rows, meta.Dim)
	}
	return mat.CheckFinite(where)
}
