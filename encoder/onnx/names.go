package onnx

import (
	"strconv"
	"strings"
)

// Hugging Face BERT tensor names. A Linear layer "X" has "X.weight"
// [out, in] and "X.bias" [out]; a LayerNorm "X" has "X.weight" and "X.bias"
// [hidden].
const (
	wordEmbeddings      = "embeddings.word_embeddings.weight"
	positionEmbeddings  = "embeddings.position_embeddings.weight"
	tokenTypeEmbeddings = "embeddings.token_type_embeddings.weight"
	embeddingsLayerNorm = "embeddings.LayerNorm"
	poolerDense         = "pooler.dense"
	positionIDsBuffer   = "embeddings.position_ids"
)

// layerParts are the sub-modules of one encoder layer, relative to
// "encoder.layer.N.": four Linear layers inside attention, two in the
// feed-forward block, and two LayerNorms.
var (
	layerLinears    = []string{"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense", "intermediate.dense", "output.dense"}
	layerLayerNorms = []string{"attention.output.LayerNorm", "output.LayerNorm"}
)

func layerName(i int, part string) string {
	return "encoder.layer." + strconv.Itoa(i) + "." + part
}

// shapes describes the sizes of a BERT encoder's tensors.
type shapes struct {
	vocab, hidden, layers, intermediate, positions, types int
	pooler                                                bool
}

// expected returns the Hugging Face name and shape of every tensor of a
// BERT encoder with the given sizes.
func (s shapes) expected() map[string][]int {
	h := s.hidden
	m := map[string][]int{
		wordEmbeddings:                  {s.vocab, h},
		positionEmbeddings:              {s.positions, h},
		tokenTypeEmbeddings:             {s.types, h},
		embeddingsLayerNorm + ".weight": {h},
		embeddingsLayerNorm + ".bias":   {h},
	}
	for i := 0; i < s.layers; i++ {
		for _, p := range layerLinears {
			out, in := h, h
			switch p {
			case "intermediate.dense":
				out = s.intermediate
			case "output.dense":
				in = s.intermediate
			}
			m[layerName(i, p)+".weight"] = []int{out, in}
			m[layerName(i, p)+".bias"] = []int{out}
		}
		for _, p := range layerLayerNorms {
			m[layerName(i, p)+".weight"] = []int{h}
			m[layerName(i, p)+".bias"] = []int{h}
		}
	}
	if s.pooler {
		m[poolerDense+".weight"] = []int{h, h}
		m[poolerDense+".bias"] = []int{h}
	}
	return m
}

// canonicalName maps an initializer name to a Hugging Face BERT tensor
// name, dropping a module prefix such as "bert." or "0.auto_model.". It
// reports false when the name is not one of BERT's tensors.
func canonicalName(name string) (string, bool) {
	for _, root := range []string{"embeddings.", "encoder.layer.", "pooler."} {
		i := strings.Index(name, root)
		if i < 0 || (i > 0 && name[i-1] != '.') {
			continue
		}
		c := name[i:]
		if isBERTName(c) {
			return c, true
		}
	}
	return "", false
}

// isBERTName reports whether name is a Hugging Face BERT weight name.
func isBERTName(name string) bool {
	switch name {
	case wordEmbeddings, positionEmbeddings, tokenTypeEmbeddings,
		embeddingsLayerNorm + ".weight", embeddingsLayerNorm + ".bias",
		poolerDense + ".weight", poolerDense + ".bias":
		return true
	}
	_, ok := layerIndex(name)
	return ok
}

// layerIndex returns N for a valid "encoder.layer.N.<part>.{weight,bias}".
func layerIndex(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "encoder.layer.")
	if !ok {
		return 0, false
	}
	num, part, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || n > 1000 || strconv.Itoa(n) != num {
		return 0, false
	}
	var module string
	switch {
	case strings.HasSuffix(part, ".weight"):
		module = strings.TrimSuffix(part, ".weight")
	case strings.HasSuffix(part, ".bias"):
		module = strings.TrimSuffix(part, ".bias")
	default:
		return 0, false
	}
	for _, p := range layerLinears {
		if module == p {
			return n, true
		}
	}
	for _, p := range layerLayerNorms {
		if module == p {
			return n, true
		}
	}
	return 0, false
}

// isLinearWeight reports whether name is the weight of a Linear layer (as
// opposed to an embedding table or a LayerNorm scale).
func isLinearWeight(name string) bool {
	if name == poolerDense+".weight" {
		return true
	}
	for _, p := range layerLinears {
		if strings.HasSuffix(name, "."+p+".weight") {
			return true
		}
	}
	return false
}
