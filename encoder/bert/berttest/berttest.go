// Package berttest makes small random weights for tests that need no
// installed model: Weights for a plain BERT tensor set, New for a whole
// checkpoint of any supported family in the layout its authors publish
// (config.json and tensor names, heads and prefixes included). It does
// not import package bert, so that bert's own tests can use it.
package berttest

import (
	"fmt"
	"math/rand/v2"

	"github.com/dreval/dreval/encoder/tensor"
)

// Sizes are a model's sizes (the fields of modelfiles.Config that shape its
// weights). Positions is max_position_embeddings; Heads and Buckets
// (MPNet's relative-position buckets) matter to New, not to Weights.
type Sizes struct {
	Vocab, Hidden, Layers, Intermediate, Positions, TypeVocab int
	Heads, Buckets                                            int
}

// Weights returns random weights of a BERT encoder with sizes s under
// their Hugging Face names, each preceded by prefix ("" or "bert."): values
// normal with standard deviation 0.3, drawn in a fixed order from
// PCG(seed1, seed2), so the same arguments give the same weights.
func Weights(s Sizes, seed1, seed2 uint64, prefix string) tensor.Set {
	r := rand.New(rand.NewPCG(seed1, seed2))
	set := tensor.Set{}
	add := func(name string, shape ...int) {
		t := tensor.New(shape...)
		for i := range t.Data {
			t.Data[i] = float32(r.NormFloat64() * 0.3)
		}
		set[prefix+name] = t
	}
	H, I := s.Hidden, s.Intermediate
	add("embeddings.word_embeddings.weight", s.Vocab, H)
	add("embeddings.position_embeddings.weight", s.Positions, H)
	add("embeddings.token_type_embeddings.weight", s.TypeVocab, H)
	add("embeddings.LayerNorm.weight", H)
	add("embeddings.LayerNorm.bias", H)
	for l := range s.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		for _, n := range []string{"query", "key", "value"} {
			add(p+"attention.self."+n+".weight", H, H)
			add(p+"attention.self."+n+".bias", H)
		}
		add(p+"attention.output.dense.weight", H, H)
		add(p+"attention.output.dense.bias", H)
		add(p+"attention.output.LayerNorm.weight", H)
		add(p+"attention.output.LayerNorm.bias", H)
		add(p+"intermediate.dense.weight", I, H)
		add(p+"intermediate.dense.bias", I)
		add(p+"output.dense.weight", H, I)
		add(p+"output.dense.bias", H)
		add(p+"output.LayerNorm.weight", H)
		add(p+"output.LayerNorm.bias", H)
	}
	return set
}
