package bert

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/modelfiles"
)

// Layout names the tensors of a family's backbone as Hugging Face's
// modeling code does, relative to the checkpoint's prefix. A module "M"
// (Linear or LayerNorm) has the tensors "M.weight" and "M.bias"; a
// Linear weight is [out, in].
type Layout struct {
	WordEmbeddings     string // tensor [vocab, hidden]
	PositionEmbeddings string // tensor [max_position_embeddings, hidden]
	// TokenTypeEmbeddings is the tensor [type_vocab_size, hidden], or ""
	// when the family has no token types.
	TokenTypeEmbeddings string
	EmbeddingsLayerNorm string // module
	// LayerPrefix starts the names of layer i's modules, followed by i
	// and a dot (see Layer).
	LayerPrefix string
	// The modules of one layer, relative to Layer(i): the attention's
	// query, key, value and output projections and its LayerNorm, then
	// the feed-forward block's two projections and its LayerNorm.
	Query, Key, Value, AttentionOutput, AttentionLayerNorm string
	Intermediate, Output, OutputLayerNorm                  string
	// RelativeAttentionBias is MPNet's tensor [buckets, heads], or "".
	RelativeAttentionBias string
	// Pooler is the module of BERT's pooler (dense [hidden, hidden], then
	// tanh on the first token), or "" when the family has none. A
	// checkpoint may lack it even where the family has one.
	Pooler string
}

// Layer returns the prefix of layer i's module names, such as
// "encoder.layer.3.".
func (l Layout) Layer(i int) string { return l.LayerPrefix + strconv.Itoa(i) + "." }

// LayerLinears returns the Linear modules of one layer, in the order of
// the forward pass.
func (l Layout) LayerLinears() []string {
	return []string{l.Query, l.Key, l.Value, l.AttentionOutput, l.Intermediate, l.Output}
}

// LayerNorms returns the LayerNorm modules of one layer.
func (l Layout) LayerNorms() []string { return []string{l.AttentionLayerNorm, l.OutputLayerNorm} }

var (
	bertLayout = Layout{
		WordEmbeddings:      "embeddings.word_embeddings.weight",
		PositionEmbeddings:  "embeddings.position_embeddings.weight",
		TokenTypeEmbeddings: "embeddings.token_type_embeddings.weight",
		EmbeddingsLayerNorm: "embeddings.LayerNorm",
		LayerPrefix:         "encoder.layer.",
		Query:               "attention.self.query",
		Key:                 "attention.self.key",
		Value:               "attention.self.value",
		AttentionOutput:     "attention.output.dense",
		AttentionLayerNorm:  "attention.output.LayerNorm",
		Intermediate:        "intermediate.dense",
		Output:              "output.dense",
		OutputLayerNorm:     "output.LayerNorm",
		Pooler:              "pooler.dense",
	}
	distilBERTLayout = Layout{
		WordEmbeddings:      "embeddings.word_embeddings.weight",
		PositionEmbeddings:  "embeddings.position_embeddings.weight",
		EmbeddingsLayerNorm: "embeddings.LayerNorm",
		LayerPrefix:         "transformer.layer.",
		Query:               "attention.q_lin",
		Key:                 "attention.k_lin",
		Value:               "attention.v_lin",
		AttentionOutput:     "attention.out_lin",
		AttentionLayerNorm:  "sa_layer_norm",
		Intermediate:        "ffn.lin1",
		Output:              "ffn.lin2",
		OutputLayerNorm:     "output_layer_norm",
	}
	mpnetLayout = Layout{
		WordEmbeddings:        "embeddings.word_embeddings.weight",
		PositionEmbeddings:    "embeddings.position_embeddings.weight",
		EmbeddingsLayerNorm:   "embeddings.LayerNorm",
		LayerPrefix:           "encoder.layer.",
		Query:                 "attention.attn.q",
		Key:                   "attention.attn.k",
		Value:                 "attention.attn.v",
		AttentionOutput:       "attention.attn.o",
		AttentionLayerNorm:    "attention.LayerNorm",
		Intermediate:          "intermediate.dense",
		Output:                "output.dense",
		OutputLayerNorm:       "output.LayerNorm",
		RelativeAttentionBias: "encoder.relative_attention_bias.weight",
		Pooler:                "pooler.dense",
	}
)

// LayoutOf returns the tensor names of family f's backbone (RoBERTa's are
// BERT's). It returns the zero Layout for an unknown family.
func LayoutOf(f modelfiles.Family) Layout {
	switch f {
	case modelfiles.FamilyBERT, modelfiles.FamilyRoBERTa:
		return bertLayout
	case modelfiles.FamilyDistilBERT:
		return distilBERTLayout
	case modelfiles.FamilyMPNet:
		return mpnetLayout
	}
	return Layout{}
}

// Families returns the supported families.
func Families() []modelfiles.Family {
	return []modelfiles.Family{modelfiles.FamilyBERT, modelfiles.FamilyRoBERTa, modelfiles.FamilyDistilBERT, modelfiles.FamilyMPNet}
}

// TensorShapes returns the name (relative to the checkpoint's prefix) and
// shape of every backbone tensor of a model with c's sizes, with the
// pooler's when pooler is set and the family has one.
func TensorShapes(c modelfiles.Config, pooler bool) map[string][]int {
	l := LayoutOf(c.Family())
	H, I := c.HiddenSize, c.IntermediateSize
	m := map[string][]int{
		l.WordEmbeddings:                  {c.VocabSize, H},
		l.PositionEmbeddings:              {c.MaxPositionEmbeddings, H},
		l.EmbeddingsLayerNorm + ".weight": {H},
		l.EmbeddingsLayerNorm + ".bias":   {H},
	}
	if l.TokenTypeEmbeddings != "" {
		m[l.TokenTypeEmbeddings] = []int{c.TypeVocabSize, H}
	}
	if l.RelativeAttentionBias != "" {
		m[l.RelativeAttentionBias] = []int{c.RelativeAttentionNumBuckets, c.NumAttentionHeads}
	}
	for i := 0; i < c.NumHiddenLayers; i++ {
		p := l.Layer(i)
		for _, mod := range l.LayerLinears() {
			out, in := H, H
			switch mod {
			case l.Intermediate:
				out = I
			case l.Output:
				in = I
			}
			m[p+mod+".weight"] = []int{out, in}
			m[p+mod+".bias"] = []int{out}
		}
		for _, mod := range l.LayerNorms() {
			m[p+mod+".weight"] = []int{H}
			m[p+mod+".bias"] = []int{H}
		}
	}
	if pooler && l.Pooler != "" {
		m[l.Pooler+".weight"] = []int{H, H}
		m[l.Pooler+".bias"] = []int{H}
	}
	return m
}

// backboneRoots start the names (after the prefix) that belong to an
// encoder backbone rather than to a head: a tensor under one of them that
// the configuration does not expect means config.json and the weights
// disagree.
var backboneRoots = []string{"embeddings.", "encoder.", "transformer.", "pooler."}

// buffers are tensors some checkpoints save beside the weights (constant
// index tables, not weights): skipped wherever they are.
var buffers = []string{"embeddings.position_ids", "embeddings.token_type_ids"}

// IsBuffer reports whether name (with any prefix) is one of the index
// buffers some checkpoints save (position_ids, token_type_ids), which the
// forward pass does not read.
func IsBuffer(name string) bool {
	for _, b := range buffers {
		if name == b || strings.HasSuffix(name, "."+b) {
			return true
		}
	}
	return false
}

// KnownPrefixes are the prefixes under which published checkpoints hold
// their backbone: none (BertModel, RobertaModel, sentence-transformers,
// Contriever, SimCSE), BertFor*/RobertaFor* and pyserini's ANCE, and DPR's
// two encoders. DetectPrefix finds any prefix, these included.
var KnownPrefixes = []string{"", "bert.", "roberta.", "distilbert.", "mpnet.",
	"question_encoder.bert_model.", "ctx_encoder.bert_model."}

// FindPrefixes returns, sorted, every prefix under which set holds the
// word embedding table of cfg's family: the candidate backbones.
func FindPrefixes(cfg modelfiles.Config, set tensor.Set) []string {
	key := LayoutOf(cfg.Family()).WordEmbeddings
	if key == "" {
		return nil
	}
	var out []string
	for name := range set {
		p, ok := strings.CutSuffix(name, key)
		if ok && (p == "" || strings.HasSuffix(p, ".")) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// DetectPrefix returns the prefix under which set holds cfg's backbone:
// the one prefix with a word embedding table. None, or several (a file
// with two towers), is an error naming what was found; NewWithPrefix then
// takes the prefix to use.
func DetectPrefix(cfg modelfiles.Config, set tensor.Set) (string, error) {
	ps := FindPrefixes(cfg, set)
	switch len(ps) {
	case 1:
		return ps[0], nil
	case 0:
		key := LayoutOf(cfg.Family()).WordEmbeddings
		tried := make([]string, len(KnownPrefixes))
		for i, p := range KnownPrefixes {
			tried[i] = strconv.Quote(p + key)
		}
		return "", fmt.Errorf("no %s backbone: no tensor named *%s (looked for any prefix, as in %s); found %s",
			cfg.Family(), key, strings.Join(tried, ", "), sampleNames(set, 6))
	}
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = strconv.Quote(p)
	}
	return "", fmt.Errorf("several %s backbones, under the prefixes %s: choose one (NewWithPrefix)", cfg.Family(), strings.Join(q, ", "))
}

// sampleNames describes the names in set for an error message: the first
// n in order, and how many more.
func sampleNames(set tensor.Set, n int) string {
	names := set.Names()
	if len(names) == 0 {
		return "no tensors"
	}
	q := make([]string, 0, n)
	for _, name := range names[:min(n, len(names))] {
		q = append(q, strconv.Quote(name))
	}
	s := fmt.Sprintf("%d tensors: %s", len(names), strings.Join(q, ", "))
	if len(names) > n {
		s += ", ..."
	}
	return s
}

// Backbone returns the backbone tensors of cfg's family held in set under
// prefix, renamed without it, with their shapes checked, and the names of
// set's other tensors (heads, projections, buffers), sorted. A missing
// or misshapen backbone tensor is an error naming it in full (prefix
// included) with the shape expected, and listing every other one that is
// wrong too; so is a tensor under the prefix that looks like a backbone
// tensor (embeddings.*, encoder.*, transformer.*, pooler.*) but that cfg
// does not expect, such as a layer beyond num_hidden_layers. The pooler
// is taken when the checkpoint has it. The tensors are shared with set,
// not copied.
func Backbone(cfg modelfiles.Config, set tensor.Set, prefix string) (tensor.Set, []string, error) {
	if err := cfg.Validate("config"); err != nil {
		return nil, nil, err
	}
	l := LayoutOf(cfg.Family())
	_, hasPooler := set[prefix+l.Pooler+".weight"]
	hasPooler = hasPooler && l.Pooler != ""
	want := TensorShapes(cfg, hasPooler)
	out := tensor.Set{}
	var rest, problems []string
	for _, name := range set.Names() {
		rel, ok := strings.CutPrefix(name, prefix)
		if !ok || IsBuffer(name) {
			rest = append(rest, name)
			continue
		}
		if _, ok := want[rel]; ok {
			continue
		}
		inBackbone := false
		for _, r := range backboneRoots {
			inBackbone = inBackbone || strings.HasPrefix(rel, r)
		}
		if inBackbone {
			problems = append(problems, fmt.Sprintf("tensor %q is not part of a %s backbone with %d layers (does config.json match the weights?)", name, cfg.Family(), cfg.NumHiddenLayers))
			continue
		}
		rest = append(rest, name)
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return lessTensorName(names[i], names[j]) })
	for _, name := range names {
		t, err := set.Get(prefix+name, want[name]...)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		out[name] = t
	}
	if len(problems) > 0 {
		const show = 8
		msg := strings.Join(problems[:min(show, len(problems))], "; ")
		if len(problems) > show {
			msg += fmt.Sprintf("; and %d more", len(problems)-show)
		}
		return nil, nil, fmt.Errorf("%s backbone under prefix %q: %s", cfg.Family(), prefix, msg)
	}
	return out, rest, nil
}

// lessTensorName orders tensor names with layer numbers compared as
// numbers, so errors list layer 2 before layer 10.
func lessTensorName(a, b string) bool {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, _ := strconv.Atoi(a[:da])
			nb, _ := strconv.Atoi(b[:db])
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
