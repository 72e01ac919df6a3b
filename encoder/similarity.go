package encoder

import (
	"fmt"
)

// Similarity is how a retriever scores a query against a document.
type Similarity string

// The similarities.
const (
	// Cosine is the cosine of the two vectors.
	Cosine Similarity = "cos"
	// Dot is their dot product (their norms count).
	Dot Similarity = "dot"
)

// ParseSimilarity returns the similarity s names: "cos" or "cosine",
// "dot" or "dot_product" (sentence-transformers' similarity_fn_name).
func ParseSimilarity(s string) (Similarity, error) {
	switch s {
	case "cos", "cosine":
		return Cosine, nil
	case "dot", "dot_product":
		return Dot, nil
	}
	return "", fmt.Errorf("similarity %q is not supported (supported: cosine, dot)", s)
}

// Prompts are the texts a model puts before its inputs, by name
// (sentence-transformers' config_sentence_transformers.json: "query",
// "document", "passage", ...).
type Prompts struct {
	ByName  map[string]string
	Default string // the name of the prompt used when none is asked for
}

// For returns the prompt of a side of retrieval: "query" uses the prompt
// named "query"; "document" the one named "document", "passage" or
// "corpus", the first there is; either falls back to the default prompt.
// It returns "" when the model has none.
func (p Prompts) For(side string) string {
	names := []string{"query"}
	if side != "query" {
		names = []string{"document", "passage", "corpus"}
	}
	for _, n := range names {
		if v, ok := p.ByName[n]; ok {
			return v
		}
	}
	return p.ByName[p.Default]
}
