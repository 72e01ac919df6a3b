package bert

import (
	"strconv"
	"strings"
)

// Tensor names shared by the families (see Layout): the word table,
// which every family names alike, and the buffer of position ids some
// checkpoints save.
const (
	wordEmbeddings    = "embeddings.word_embeddings.weight"
	positionIDsBuffer = "embeddings.position_ids"
)

// rootsOfNames start every backbone tensor name of every family.
var rootsOfNames = []string{"embeddings.", "encoder.", "transformer.", "pooler."}

// canonicalName maps an initializer name to a backbone tensor name of one
// of the families (as Layout gives them), dropping a module prefix
// such as "bert.", "roberta." or "0.auto_model.". It reports false when
// the name is no family's backbone tensor.
func canonicalName(name string) (string, bool) {
	for _, root := range rootsOfNames {
		for off := 0; off < len(name); {
			i := strings.Index(name[off:], root)
			if i < 0 {
				break
			}
			i += off
			if i == 0 || name[i-1] == '.' {
				if c := name[i:]; isBackboneName(c) {
					return c, true
				}
			}
			off = i + 1
		}
	}
	return "", false
}

// isBackboneName reports whether name is a backbone tensor name of one of
// the families.
func isBackboneName(name string) bool {
	for _, f := range Families() {
		l := LayoutOf(f)
		for _, n := range []string{l.WordEmbeddings, l.PositionEmbeddings, l.TokenTypeEmbeddings, l.RelativeAttentionBias,
			l.EmbeddingsLayerNorm + ".weight", l.EmbeddingsLayerNorm + ".bias"} {
			if n != "" && name == n {
				return true
			}
		}
		if l.Pooler != "" && (name == l.Pooler+".weight" || name == l.Pooler+".bias") {
			return true
		}
	}
	_, _, ok := layerIndex(name)
	return ok
}

// layerIndex returns N, and the family's layout, for a layer tensor
// "<layer prefix>N.<module>.{weight,bias}" of one of the families.
func layerIndex(name string) (int, Layout, bool) {
	for _, f := range Families() {
		l := LayoutOf(f)
		rest, ok := strings.CutPrefix(name, l.LayerPrefix)
		if !ok {
			continue
		}
		num, part, ok := strings.Cut(rest, ".")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 || n > 1000 || strconv.Itoa(n) != num {
			continue
		}
		module, ok := strings.CutSuffix(part, ".weight")
		if !ok {
			if module, ok = strings.CutSuffix(part, ".bias"); !ok {
				continue
			}
		}
		for _, m := range append(l.LayerLinears(), l.LayerNorms()...) {
			if module == m {
				return n, l, true
			}
		}
	}
	return 0, Layout{}, false
}

// isLinearWeight reports whether name is the weight of a Linear layer of
// one of the families (as opposed to an embedding table or a LayerNorm
// scale).
func isLinearWeight(name string) bool {
	module, ok := strings.CutSuffix(name, ".weight")
	if !ok {
		return false
	}
	for _, f := range Families() {
		l := LayoutOf(f)
		if l.Pooler != "" && module == l.Pooler {
			return true
		}
	}
	n, l, ok := layerIndex(name)
	if !ok {
		return false
	}
	for _, m := range l.LayerLinears() {
		if module == l.Layer(n)+m {
			return true
		}
	}
	return false
}
