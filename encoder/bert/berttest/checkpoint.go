package berttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tensor"
)

// Checkpoint is a model folder as its authors published it, with tiny
// random weights: config.json with the fields the published file has
// (the sizes replaced by small ones) and the weights under the published
// tensor names, heads and prefixes included.
type Checkpoint struct {
	// Layout is the published checkpoint this one copies (see Layouts).
	Layout string
	// Family is the encoder family, as package bert names it.
	Family string
	// Prefix is where the backbone's tensors are.
	Prefix string
	// Config holds config.json's fields.
	Config map[string]any
	// Tensors holds model.safetensors' tensors.
	Tensors tensor.Set
}

// layoutSpec describes one published checkpoint.
type layoutSpec struct {
	family string
	prefix string
	pooler bool
	heads  func(add func(name string, shape ...int), h, vocab int)
	config func(s Sizes) map[string]any
}

// bertConfig is the config.json of Google's BERT checkpoints as Hugging
// Face publishes them, with s's sizes.
func bertConfig(s Sizes, modelType string, arch ...string) map[string]any {
	return map[string]any{
		"architectures":                arch,
		"attention_probs_dropout_prob": 0.1,
		"gradient_checkpointing":       false,
		"hidden_act":                   "gelu",
		"hidden_dropout_prob":          0.1,
		"hidden_size":                  s.Hidden,
		"initializer_range":            0.02,
		"intermediate_size":            s.Intermediate,
		"layer_norm_eps":               1e-12,
		"max_position_embeddings":      s.Positions,
		"model_type":                   modelType,
		"num_attention_heads":          s.Heads,
		"num_hidden_layers":            s.Layers,
		"pad_token_id":                 0,
		"position_embedding_type":      "absolute",
		"transformers_version":         "4.6.0.dev0",
		"type_vocab_size":              s.TypeVocab,
		"use_cache":                    true,
		"vocab_size":                   s.Vocab,
	}
}

// robertaConfig is the config.json of roberta-base and xlm-roberta-base.
func robertaConfig(s Sizes, modelType string, arch ...string) map[string]any {
	return map[string]any{
		"architectures":                arch,
		"attention_probs_dropout_prob": 0.1,
		"bos_token_id":                 0,
		"eos_token_id":                 2,
		"hidden_act":                   "gelu",
		"hidden_dropout_prob":          0.1,
		"hidden_size":                  s.Hidden,
		"initializer_range":            0.02,
		"intermediate_size":            s.Intermediate,
		"layer_norm_eps":               1e-05,
		"max_position_embeddings":      s.Positions,
		"model_type":                   modelType,
		"num_attention_heads":          s.Heads,
		"num_hidden_layers":            s.Layers,
		"pad_token_id":                 1,
		"type_vocab_size":              1,
		"vocab_size":                   s.Vocab,
	}
}

var layouts = map[string]layoutSpec{
	// bert-base-uncased: BertForMaskedLM/BertForPreTraining weights.
	"bert-base-uncased": {family: "bert", prefix: "bert.", pooler: true,
		heads: func(add func(string, ...int), h, v int) {
			add("cls.predictions.bias", v)
			add("cls.predictions.transform.dense.weight", h, h)
			add("cls.predictions.transform.dense.bias", h)
			add("cls.predictions.transform.LayerNorm.weight", h)
			add("cls.predictions.transform.LayerNorm.bias", h)
			add("cls.seq_relationship.weight", 2, h)
			add("cls.seq_relationship.bias", 2)
		},
		config: func(s Sizes) map[string]any { return bertConfig(s, "bert", "BertForMaskedLM") }},
	// all-MiniLM-L6-v2 and other sentence-transformers BERT models:
	// BertModel, plain names.
	"sentence-transformers-bert": {family: "bert", pooler: true,
		config: func(s Sizes) map[string]any { return bertConfig(s, "bert", "BertModel") }},
	// facebook/contriever and contriever-msmarco: the Contriever class
	// (a BertModel), plain names.
	"contriever": {family: "bert", pooler: true,
		config: func(s Sizes) map[string]any { return bertConfig(s, "bert", "Contriever") }},
	// princeton-nlp/sup-simcse-bert-base-uncased and the unsupervised
	// one: BertModel with its pooler (the "cls" pooling's MLP).
	"simcse-bert": {family: "bert", pooler: true,
		config: func(s Sizes) map[string]any { return bertConfig(s, "bert", "BertModel") }},
	// facebook/dpr-question_encoder-single-nq-base.
	"dpr-question-encoder": {family: "bert", prefix: "question_encoder.bert_model.", pooler: true,
		config: func(s Sizes) map[string]any {
			c := bertConfig(s, "dpr", "DPRQuestionEncoder")
			c["projection_dim"] = 0
			return c
		}},
	// facebook/dpr-ctx_encoder-single-nq-base.
	"dpr-ctx-encoder": {family: "bert", prefix: "ctx_encoder.bert_model.", pooler: true,
		config: func(s Sizes) map[string]any {
			c := bertConfig(s, "dpr", "DPRContextEncoder")
			c["projection_dim"] = 0
			return c
		}},
	// roberta-base: RobertaForMaskedLM, no pooler.
	"roberta-base": {family: "roberta", prefix: "roberta.",
		heads:  robertaLMHead,
		config: func(s Sizes) map[string]any { return robertaConfig(s, "roberta", "RobertaForMaskedLM") }},
	// princeton-nlp/unsup-simcse-roberta-base, sentence-transformers'
	// msmarco-roberta-base-ance-firstp: RobertaModel, plain names.
	"roberta-model": {family: "roberta", pooler: true,
		config: func(s Sizes) map[string]any { return robertaConfig(s, "roberta", "RobertaModel") }},
	// xlm-roberta-base: XLMRobertaForMaskedLM, no pooler.
	"xlm-roberta-base": {family: "roberta", prefix: "roberta.",
		heads: robertaLMHead,
		config: func(s Sizes) map[string]any {
			c := robertaConfig(s, "xlm-roberta", "XLMRobertaForMaskedLM")
			c["output_past"] = true
			c["position_embedding_type"] = "absolute"
			c["use_cache"] = true
			return c
		}},
	// castorini/ance-msmarco-passage (pyserini): RobertaModel under
	// "roberta." with ANCE's embeddingHead (Linear) and norm (LayerNorm).
	"ance-pyserini": {family: "roberta", prefix: "roberta.", pooler: true,
		heads: func(add func(string, ...int), h, _ int) {
			add("embeddingHead.weight", h, h)
			add("embeddingHead.bias", h)
			add("norm.weight", h)
			add("norm.bias", h)
		},
		config: func(s Sizes) map[string]any {
			c := robertaConfig(s, "roberta", "RobertaDot_NLL_LN")
			c["finetuning_task"] = "msmarco"
			return c
		}},
	// distilbert-base-uncased: DistilBertForMaskedLM.
	"distilbert-base-uncased": {family: "distilbert", prefix: "distilbert.",
		heads: func(add func(string, ...int), h, v int) {
			add("vocab_transform.weight", h, h)
			add("vocab_transform.bias", h)
			add("vocab_layer_norm.weight", h)
			add("vocab_layer_norm.bias", h)
			add("vocab_projector.weight", v, h)
			add("vocab_projector.bias", v)
		},
		config: func(s Sizes) map[string]any {
			return map[string]any{
				"activation":              "gelu",
				"architectures":           []string{"DistilBertForMaskedLM"},
				"attention_dropout":       0.1,
				"dim":                     s.Hidden,
				"dropout":                 0.1,
				"hidden_dim":              s.Intermediate,
				"initializer_range":       0.02,
				"max_position_embeddings": s.Positions,
				"model_type":              "distilbert",
				"n_heads":                 s.Heads,
				"n_layers":                s.Layers,
				"pad_token_id":            0,
				"qa_dropout":              0.1,
				"seq_classif_dropout":     0.2,
				"sinusoidal_pos_embds":    false,
				"tie_weights_":            true,
				"vocab_size":              s.Vocab,
			}
		}},
	// sentence-transformers/all-mpnet-base-v2: MPNetModel weights, plain
	// names, config from microsoft/mpnet-base's MPNetForMaskedLM.
	"all-mpnet-base-v2": {family: "mpnet", pooler: true,
		config: func(s Sizes) map[string]any {
			return map[string]any{
				"_name_or_path":                  "microsoft/mpnet-base",
				"architectures":                  []string{"MPNetForMaskedLM"},
				"attention_probs_dropout_prob":   0.1,
				"bos_token_id":                   0,
				"eos_token_id":                   2,
				"hidden_act":                     "gelu",
				"hidden_dropout_prob":            0.1,
				"hidden_size":                    s.Hidden,
				"initializer_range":              0.02,
				"intermediate_size":              s.Intermediate,
				"layer_norm_eps":                 1e-05,
				"max_position_embeddings":        s.Positions,
				"model_type":                     "mpnet",
				"num_attention_heads":            s.Heads,
				"num_hidden_layers":              s.Layers,
				"pad_token_id":                   1,
				"relative_attention_num_buckets": s.Buckets,
				"transformers_version":           "4.8.2",
				"vocab_size":                     s.Vocab,
			}
		}},
}

func robertaLMHead(add func(string, ...int), h, v int) {
	add("lm_head.bias", v)
	add("lm_head.dense.weight", h, h)
	add("lm_head.dense.bias", h)
	add("lm_head.layer_norm.weight", h)
	add("lm_head.layer_norm.bias", h)
	add("lm_head.decoder.weight", v, h)
}

// Layouts returns the names of the published checkpoint layouts New
// writes, sorted.
func Layouts() []string {
	var s []string
	for k := range layouts {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// Tiny returns s with every zero size set to a tiny default for family
// (one of bert, roberta, distilbert, mpnet): vocabulary 64, hidden size
// 8, 2 layers, 2 heads, feed-forward 12, 16 token positions (18 position
// embeddings for RoBERTa and MPNet, whose positions start at 2), 2 token
// types (1 for RoBERTa, none for DistilBERT and MPNet), 32 buckets.
func Tiny(family string, s Sizes) Sizes {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&s.Vocab, 64)
	def(&s.Hidden, 8)
	def(&s.Layers, 2)
	def(&s.Heads, 2)
	def(&s.Intermediate, 12)
	switch family {
	case "roberta", "mpnet":
		def(&s.Positions, 18)
	default:
		def(&s.Positions, 16)
	}
	switch family {
	case "bert":
		def(&s.TypeVocab, 2)
	case "roberta":
		s.TypeVocab = 1
	default:
		s.TypeVocab = 0
	}
	if family == "mpnet" {
		def(&s.Buckets, 32)
	}
	return s
}

// New returns a checkpoint in the named layout (see Layouts) with sizes s
// (zero fields take Tiny's defaults) and random weights: values uniform in
// [-0.5, 0.5) (standard deviation about 0.29), drawn in the order of the
// sorted tensor names from PCG(seed, 0x5eed), so the same arguments give
// the same bits on every platform.
func New(layout string, s Sizes, seed uint64) (*Checkpoint, error) {
	spec, ok := layouts[layout]
	if !ok {
		return nil, fmt.Errorf("berttest: no layout %q (known: %v)", layout, Layouts())
	}
	s = Tiny(spec.family, s)
	shapes := map[string][]int{}
	add := func(name string, shape ...int) { shapes[name] = shape }
	H, I := s.Hidden, s.Intermediate
	p := spec.prefix
	add(p+"embeddings.word_embeddings.weight", s.Vocab, H)
	add(p+"embeddings.position_embeddings.weight", s.Positions, H)
	add(p+"embeddings.LayerNorm.weight", H)
	add(p+"embeddings.LayerNorm.bias", H)
	if s.TypeVocab > 0 {
		add(p+"embeddings.token_type_embeddings.weight", s.TypeVocab, H)
	}
	linear := func(name string, out, in int) {
		add(name+".weight", out, in)
		add(name+".bias", out)
	}
	norm := func(name string) {
		add(name+".weight", H)
		add(name+".bias", H)
	}
	for l := range s.Layers {
		switch spec.family {
		case "distilbert":
			q := fmt.Sprintf("%stransformer.layer.%d.", p, l)
			for _, n := range []string{"q_lin", "k_lin", "v_lin", "out_lin"} {
				linear(q+"attention."+n, H, H)
			}
			norm(q + "sa_layer_norm")
			linear(q+"ffn.lin1", I, H)
			linear(q+"ffn.lin2", H, I)
			norm(q + "output_layer_norm")
		case "mpnet":
			q := fmt.Sprintf("%sencoder.layer.%d.", p, l)
			for _, n := range []string{"q", "k", "v", "o"} {
				linear(q+"attention.attn."+n, H, H)
			}
			norm(q + "attention.LayerNorm")
			linear(q+"intermediate.dense", I, H)
			linear(q+"output.dense", H, I)
			norm(q + "output.LayerNorm")
		default:
			q := fmt.Sprintf("%sencoder.layer.%d.", p, l)
			for _, n := range []string{"query", "key", "value"} {
				linear(q+"attention.self."+n, H, H)
			}
			linear(q+"attention.output.dense", H, H)
			norm(q + "attention.output.LayerNorm")
			linear(q+"intermediate.dense", I, H)
			linear(q+"output.dense", H, I)
			norm(q + "output.LayerNorm")
		}
	}
	if spec.family == "mpnet" {
		add(p+"encoder.relative_attention_bias.weight", s.Buckets, s.Heads)
	}
	if spec.pooler {
		linear(p+"pooler.dense", H, H)
	}
	if spec.heads != nil {
		spec.heads(add, H, s.Vocab)
	}
	names := make([]string, 0, len(shapes))
	for n := range shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	set := tensor.Set{}
	for _, n := range names {
		t := tensor.New(shapes[n]...)
		for i := range t.Data {
			t.Data[i] = float32(r.Float64() - 0.5)
		}
		set[n] = t
	}
	return &Checkpoint{Layout: layout, Family: spec.family, Prefix: p, Config: spec.config(s), Tensors: set}, nil
}

// ConfigJSON returns config.json's bytes, indented as Hugging Face writes
// them.
func (c *Checkpoint) ConfigJSON() ([]byte, error) {
	b, err := json.MarshalIndent(c.Config, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("berttest: config.json of %s: %w", c.Layout, err)
	}
	return append(b, '\n'), nil
}

// Write writes config.json and model.safetensors (float32) into dir,
// creating it if needed.
func (c *Checkpoint) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cfg, err := c.ConfigJSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, c.Tensors, safetensors.F32, map[string]string{"format": "pt"}); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "model.safetensors"), buf.Bytes(), 0o644)
}
