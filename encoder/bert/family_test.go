package bert

import (
	"bytes"
	"maps"
	"math"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/modelfiles"
)

// checkpoint returns a tiny checkpoint in a published layout and its
// configuration as ReadConfig reads its config.json, after edit (when
// not nil) changes config.json's fields.
func checkpoint(t testing.TB, layout string, s berttest.Sizes, seed uint64, edit func(map[string]any)) (*berttest.Checkpoint, modelfiles.Config) {
	t.Helper()
	cp, err := berttest.New(layout, s, seed)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(cp.Config)
	}
	js, err := cp.ConfigJSON()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := modelfiles.ReadConfig(bytes.NewReader(js), layout+"/config.json")
	if err != nil {
		t.Fatal(err)
	}
	return cp, cfg
}

// TestReadConfigOfEveryLayout reads the config.json of each published
// layout and checks the family, the sizes (DistilBERT's own field names
// included) and the position rules.
func TestReadConfigOfEveryLayout(t *testing.T) {
	for _, c := range []struct {
		layout            string
		family            modelfiles.Family
		modelType         string
		arch              string
		pad, offset, maxT int
		types             int
		eps               float64
	}{
		{"bert-base-uncased", modelfiles.FamilyBERT, "bert", "BertForMaskedLM", -1, 0, 16, 2, 1e-12},
		{"sentence-transformers-bert", modelfiles.FamilyBERT, "bert", "BertModel", -1, 0, 16, 2, 1e-12},
		{"contriever", modelfiles.FamilyBERT, "bert", "Contriever", -1, 0, 16, 2, 1e-12},
		{"simcse-bert", modelfiles.FamilyBERT, "bert", "BertModel", -1, 0, 16, 2, 1e-12},
		{"dpr-question-encoder", modelfiles.FamilyBERT, "dpr", "DPRQuestionEncoder", -1, 0, 16, 2, 1e-12},
		{"dpr-ctx-encoder", modelfiles.FamilyBERT, "dpr", "DPRContextEncoder", -1, 0, 16, 2, 1e-12},
		{"roberta-base", modelfiles.FamilyRoBERTa, "roberta", "RobertaForMaskedLM", 1, 2, 16, 1, 1e-5},
		{"roberta-model", modelfiles.FamilyRoBERTa, "roberta", "RobertaModel", 1, 2, 16, 1, 1e-5},
		{"xlm-roberta-base", modelfiles.FamilyRoBERTa, "xlm-roberta", "XLMRobertaForMaskedLM", 1, 2, 16, 1, 1e-5},
		{"ance-pyserini", modelfiles.FamilyRoBERTa, "roberta", "RobertaDot_NLL_LN", 1, 2, 16, 1, 1e-5},
		{"distilbert-base-uncased", modelfiles.FamilyDistilBERT, "distilbert", "DistilBertForMaskedLM", -1, 0, 16, 0, 1e-12},
		{"all-mpnet-base-v2", modelfiles.FamilyMPNet, "mpnet", "MPNetForMaskedLM", 1, 2, 16, 0, 1e-5},
	} {
		t.Run(c.layout, func(t *testing.T) {
			_, cfg := checkpoint(t, c.layout, berttest.Sizes{}, 1, nil)
			if cfg.Family() != c.family || cfg.ModelType != c.modelType || len(cfg.Architectures) != 1 || cfg.Architectures[0] != c.arch {
				t.Errorf("family %q, model_type %q, architectures %v; want %q, %q, [%s]", cfg.Family(), cfg.ModelType, cfg.Architectures, c.family, c.modelType, c.arch)
			}
			if cfg.PaddingIdx() != c.pad || cfg.PositionOffset() != c.offset || cfg.MaxTokens() != c.maxT {
				t.Errorf("padding idx %d, offset %d, max tokens %d; want %d, %d, %d", cfg.PaddingIdx(), cfg.PositionOffset(), cfg.MaxTokens(), c.pad, c.offset, c.maxT)
			}
			if cfg.HiddenSize != 8 || cfg.NumHiddenLayers != 2 || cfg.NumAttentionHeads != 2 || cfg.IntermediateSize != 12 || cfg.VocabSize != 64 {
				t.Errorf("sizes %+v", cfg)
			}
			if cfg.TypeVocabSize != c.types || cfg.LayerNormEps != c.eps || cfg.HiddenAct != "gelu" {
				t.Errorf("type_vocab_size %d, eps %g, act %q; want %d, %g, gelu", cfg.TypeVocabSize, cfg.LayerNormEps, cfg.HiddenAct, c.types, c.eps)
			}
		})
	}
}

func TestReadConfigDefaultsAndInference(t *testing.T) {
	for _, c := range []struct {
		json      string
		modelType string
		pad       int
		types     int
		buckets   int
	}{
		{`{"vocab_size":5,"hidden_size":4,"num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":4,"max_position_embeddings":8}`, "bert", 0, 2, 0},
		{`{"architectures":["RobertaModel"],"vocab_size":5,"hidden_size":4,"num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":4,"max_position_embeddings":8}`, "roberta", 1, 2, 0},
		{`{"architectures":["XLMRobertaForSequenceClassification"],"vocab_size":5,"hidden_size":4,"num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":4,"max_position_embeddings":8}`, "xlm-roberta", 1, 2, 0},
		{`{"architectures":["DPRContextEncoder"],"vocab_size":5,"hidden_size":4,"num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":4,"max_position_embeddings":8}`, "dpr", 0, 2, 0},
		{`{"architectures":["MPNetModel"],"vocab_size":5,"hidden_size":4,"num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":4,"max_position_embeddings":8}`, "mpnet", 1, 0, 32},
		{`{"architectures":["DistilBertModel"],"vocab_size":5,"dim":4,"n_layers":1,"n_heads":1,"hidden_dim":4,"max_position_embeddings":8}`, "distilbert", 0, 0, 0},
		{`{"model_type":"distilbert","vocab_size":5,"hidden_size":4,"num_hidden_layers":1,"num_attention_heads":1,"hidden_dim":4,"max_position_embeddings":8}`, "distilbert", 0, 0, 0},
		{`{"model_type":"roberta","pad_token_id":null,"type_vocab_size":1,"vocab_size":5,"hidden_size":4,"num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":4,"max_position_embeddings":8}`, "roberta", 1, 1, 0},
	} {
		cfg, err := modelfiles.ReadConfig(strings.NewReader(c.json), "config.json")
		if err != nil {
			t.Errorf("%s: %v", c.json, err)
			continue
		}
		if cfg.ModelType != c.modelType || cfg.PadTokenID != c.pad || cfg.TypeVocabSize != c.types || cfg.RelativeAttentionNumBuckets != c.buckets {
			t.Errorf("%s: model_type %q pad %d types %d buckets %d; want %q %d %d %d", c.json, cfg.ModelType, cfg.PadTokenID, cfg.TypeVocabSize, cfg.RelativeAttentionNumBuckets, c.modelType, c.pad, c.types, c.buckets)
		}
	}
}

// TestReadConfigRefuses checks that configurations the encoder cannot run
// are refused with an error naming the file, the field and what is
// supported.
func TestReadConfigRefuses(t *testing.T) {
	sizes := `"vocab_size":5,"hidden_size":4,"num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":4,"max_position_embeddings":8`
	for _, c := range []struct{ json, want string }{
		{`{"model_type":"electra","architectures":["ElectraModel"],` + sizes + `}`,
			`cfg/config.json: model_type "electra" (architectures ElectraModel) is not supported; supported model types: bert, distilbert, dpr, mpnet, roberta, xlm-roberta`},
		{`{"model_type":"xlm-roberta-xl",` + sizes + `}`, `model_type "xlm-roberta-xl" is not supported`},
		{`{"architectures":["AlbertModel"],` + sizes + `}`, `no model_type, and architectures AlbertModel name no supported model; supported model types: bert, distilbert`},
		{`{"architectures":["XLMRobertaXLModel"],` + sizes + `}`, `architectures XLMRobertaXLModel name no supported model`},
		{`{"model_type":"bert","hidden_act":"silu",` + sizes + `}`, `hidden_act "silu" is not supported (supported: gelu, gelu_new, gelu_pytorch_tanh, relu)`},
		{`{"model_type":"distilbert","activation":"swish","vocab_size":5,"dim":4,"n_layers":1,"n_heads":1,"hidden_dim":4,"max_position_embeddings":8}`, `activation "swish" is not supported`},
		{`{"model_type":"distilbert","vocab_size":5,"dim":4,"n_layers":1,"n_heads":3,"hidden_dim":4,"max_position_embeddings":8}`, `dim 4 is not a multiple of n_heads 3`},
		{`{"model_type":"distilbert","vocab_size":5,"dim":4,"n_layers":1,"n_heads":1,"max_position_embeddings":8}`, `field "hidden_dim" must be a positive integer, got 0`},
		{`{"model_type":"bert","position_embedding_type":"relative_key",` + sizes + `}`, `position_embedding_type "relative_key" is not supported`},
		{`{"model_type":"bert","is_decoder":true,` + sizes + `}`, `a decoder is not a text encoder`},
		{`{"model_type":"roberta","pad_token_id":8,` + sizes + `}`, `pad_token_id 8 must lie in [0, max_position_embeddings 8)`},
		{`{"model_type":"roberta","pad_token_id":7,` + sizes + `}`, `max_position_embeddings 8 leaves no position for a token (positions start at 8)`},
		{`{"model_type":"mpnet","relative_attention_num_buckets":16,` + sizes + `}`, `relative_attention_num_buckets 16 is below the 32 buckets`},
		{`{"model_type":"bert","layer_norm_eps":-1,` + sizes + `}`, `layer_norm_eps -1 must be a positive number`},
		{`{"model_type":"bert","hidden_size":"768"}`, `cfg/config.json: field "hidden_size" is a JSON string, expected an integer`},
		{`{"model_type":"bert","architectures":"BertModel"}`, `field "architectures" is a JSON string, expected a list`},
		{`{"model_type":"bert"`, `not a valid config.json`},
		{`{"model_type":"bert","vocab_size":5}`, `field "hidden_size" must be a positive integer, got 0`},
	} {
		_, err := modelfiles.ReadConfig(strings.NewReader(c.json), "cfg/config.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n error %v\n want one containing %s", c.json, err, c.want)
		}
	}
}

// familyCases are tiny models of each family that the tests run.
var familyCases = []struct {
	name   string
	layout string
	sizes  berttest.Sizes
	edit   func(map[string]any)
	seqs   [][]int32
}{
	{"bert", "contriever", berttest.Sizes{}, nil,
		[][]int32{{2, 7, 9, 11, 3}, {2, 3}, {2, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 3}}},
	{"bert-gelu_new", "bert-base-uncased", berttest.Sizes{}, func(c map[string]any) { c["hidden_act"] = "gelu_new" },
		[][]int32{{2, 7, 9, 11, 3}, {5}}},
	{"dpr", "dpr-question-encoder", berttest.Sizes{}, nil, [][]int32{{2, 7, 9, 11, 3}, {5}}},
	// Padding ids (1) inside a sequence keep position padding_idx and do
	// not advance the others'.
	{"roberta", "roberta-base", berttest.Sizes{}, nil,
		[][]int32{{0, 7, 9, 11, 2}, {0, 1, 1, 5, 2}, {1}, {0, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 2}}},
	{"xlm-roberta", "xlm-roberta-base", berttest.Sizes{}, func(c map[string]any) { c["pad_token_id"] = 3 },
		[][]int32{{0, 7, 3, 11, 2}, {0, 5, 2}}},
	{"ance", "ance-pyserini", berttest.Sizes{}, nil, [][]int32{{0, 7, 9, 11, 2}}},
	{"distilbert", "distilbert-base-uncased", berttest.Sizes{}, nil,
		[][]int32{{2, 7, 9, 11, 3}, {0, 0, 5}, {2, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 3}}},
	{"distilbert-relu", "distilbert-base-uncased", berttest.Sizes{}, func(c map[string]any) { c["activation"] = "relu" },
		[][]int32{{2, 7, 9, 11, 3}}},
	// Sequences up to 150 tokens reach every bucket, distances past 128
	// included.
	{"mpnet", "all-mpnet-base-v2", berttest.Sizes{Positions: 152}, nil,
		[][]int32{{0, 7, 9, 11, 2}, {0, 1, 5, 2}, ramp(150, 64), ramp(20, 64)}},
}

// ramp returns n ids cycling through [3, vocab).
func ramp(n, vocab int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(3 + (i*7)%(vocab-3))
	}
	return s
}

// TestFamiliesMatchReference runs every family's tiny model and checks
// each token's hidden state, and the pooler output where the checkpoint
// has one, against the float64 transcription of Hugging Face's code.
func TestFamiliesMatchReference(t *testing.T) {
	for _, c := range familyCases {
		t.Run(c.name, func(t *testing.T) {
			cp, cfg := checkpoint(t, c.layout, c.sizes, 3, c.edit)
			ref := refModel{cfg: cfg, set: maps.Clone(cp.Tensors), prefix: cp.Prefix}
			m, err := New(cfg, cp.Tensors)
			if err != nil {
				t.Fatal(err)
			}
			out, err := m.Forward(c.seqs)
			if err != nil {
				t.Fatal(err)
			}
			var pooled [][]float32
			if m.HasPooler() {
				if pooled, err = m.Pooled(out); err != nil {
					t.Fatal(err)
				}
			}
			H := cfg.HiddenSize
			worst := 0.0
			for s, ids := range c.seqs {
				want, wantPooled := ref.forward(ids)
				for tok := range ids {
					got := out[s][tok*H : (tok+1)*H]
					worst = max(worst, maxDiff(got, want[tok]))
					if cs := cosine64(got, want[tok]); cs < 0.999999 {
						t.Errorf("sequence %d token %d: cosine %.8f to the reference", s, tok, cs)
					}
				}
				if (wantPooled != nil) != m.HasPooler() {
					t.Fatalf("HasPooler %v, reference pooler %v", m.HasPooler(), wantPooled != nil)
				}
				if wantPooled != nil {
					worst = max(worst, maxDiff(pooled[s], wantPooled))
				}
			}
			if worst > 2e-5 {
				t.Errorf("largest difference to the reference %g", worst)
			}
			t.Logf("largest difference to the float64 reference: %.2g", worst)
		})
	}
}

func maxDiff(a []float32, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-b[i]))
	}
	return d
}

func cosine64(a []float32, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * b[i]
		aa += float64(a[i]) * float64(a[i])
		bb += b[i] * b[i]
	}
	return ab / math.Sqrt(aa*bb)
}

// TestEveryLayoutLoads builds a model from each published layout with New
// (prefix found) and checks the prefix, the pooler and that the heads are
// left in the set.
func TestEveryLayoutLoads(t *testing.T) {
	for _, layout := range berttest.Layouts() {
		t.Run(layout, func(t *testing.T) {
			cp, cfg := checkpoint(t, layout, berttest.Sizes{}, 2, nil)
			p, err := DetectPrefix(cfg, cp.Tensors)
			if err != nil || p != cp.Prefix {
				t.Fatalf("DetectPrefix = %q, %v; want %q", p, err, cp.Prefix)
			}
			_, rest, err := Backbone(cfg, cp.Tensors, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range rest {
				if strings.HasPrefix(name, p+"encoder.") || strings.HasPrefix(name, p+"embeddings.") {
					t.Errorf("backbone tensor %q counted as a head", name)
				}
			}
			wantPooler := cp.Tensors[p+"pooler.dense.weight"] != nil
			m, err := New(cfg, cp.Tensors)
			if err != nil {
				t.Fatal(err)
			}
			if m.HasPooler() != wantPooler {
				t.Errorf("HasPooler = %v, want %v", m.HasPooler(), wantPooler)
			}
			for _, name := range rest {
				if cp.Tensors[name] == nil {
					t.Errorf("head tensor %q was removed from the set", name)
				}
			}
			if _, err := m.Forward([][]int32{{4, 5, 6}}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestPooledWithoutPooler(t *testing.T) {
	cp, cfg := checkpoint(t, "distilbert-base-uncased", berttest.Sizes{}, 1, nil)
	m, err := New(cfg, cp.Tensors)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := m.Forward([][]int32{{1, 2}})
	if _, err := m.Pooled(out); err != ErrNoPooler {
		t.Errorf("Pooled without pooler: %v, want ErrNoPooler", err)
	}
	cp, cfg = checkpoint(t, "simcse-bert", berttest.Sizes{}, 1, nil)
	if m, err = New(cfg, cp.Tensors); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Pooled([][]float32{make([]float32, 3)}); err == nil || !strings.Contains(err.Error(), "sequence 0: 3 hidden values") {
		t.Errorf("Pooled of a short row: %v", err)
	}
}

// TestBackboneErrorsNameTensorsAndPrefix checks the errors for missing,
// misshapen and unexpected backbone tensors, and for a set with no or
// two backbones.
func TestBackboneErrorsNameTensorsAndPrefix(t *testing.T) {
	for _, c := range []struct {
		layout string
		edit   func(tensor.Set)
		want   []string
	}{
		{"ance-pyserini", func(s tensor.Set) {
			delete(s, "roberta.encoder.layer.1.output.dense.bias")
			delete(s, "roberta.embeddings.LayerNorm.weight")
		}, []string{`roberta backbone under prefix "roberta.": `, `tensor "roberta.embeddings.LayerNorm.weight" is missing (expected shape [8])`,
			`tensor "roberta.encoder.layer.1.output.dense.bias" is missing (expected shape [8])`}},
		{"distilbert-base-uncased", func(s tensor.Set) {
			s["distilbert.transformer.layer.0.ffn.lin1.weight"] = tensor.New(12, 7)
		}, []string{`tensor "distilbert.transformer.layer.0.ffn.lin1.weight" has shape [12 7], expected [12 8]`}},
		{"all-mpnet-base-v2", func(s tensor.Set) {
			delete(s, "encoder.relative_attention_bias.weight")
		}, []string{`mpnet backbone under prefix "": tensor "encoder.relative_attention_bias.weight" is missing (expected shape [32 2])`}},
		{"dpr-ctx-encoder", func(s tensor.Set) {
			s["ctx_encoder.bert_model.encoder.layer.2.output.dense.bias"] = tensor.New(8)
		}, []string{`tensor "ctx_encoder.bert_model.encoder.layer.2.output.dense.bias" is not part of a bert backbone with 2 layers`}},
		{"bert-base-uncased", func(s tensor.Set) {
			delete(s, "bert.pooler.dense.bias")
		}, []string{`tensor "bert.pooler.dense.bias" is missing`}},
		{"roberta-model", func(s tensor.Set) {
			for name := range s {
				if strings.HasPrefix(name, "embeddings.word") {
					delete(s, name)
				}
			}
		}, []string{`no roberta backbone: no tensor named *embeddings.word_embeddings.weight (looked for any prefix, as in "embeddings.word_embeddings.weight", "bert.embeddings.word_embeddings.weight", "roberta.embeddings.word_embeddings.weight"`}},
	} {
		t.Run(c.layout, func(t *testing.T) {
			cp, cfg := checkpoint(t, c.layout, berttest.Sizes{}, 1, nil)
			c.edit(cp.Tensors)
			_, err := New(cfg, cp.Tensors)
			for _, w := range c.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v\nwant one containing %s", err, w)
				}
			}
		})
	}
}

// TestTwoTowersInOneSet loads each of DPR's two encoders from one set
// holding both: New refuses to guess, NewWithPrefix takes each.
func TestTwoTowersInOneSet(t *testing.T) {
	q, cfg := checkpoint(t, "dpr-question-encoder", berttest.Sizes{}, 1, nil)
	c, _ := checkpoint(t, "dpr-ctx-encoder", berttest.Sizes{}, 2, nil)
	both := maps.Clone(q.Tensors)
	maps.Copy(both, c.Tensors)
	if got := FindPrefixes(cfg, both); len(got) != 2 || got[0] != "ctx_encoder.bert_model." || got[1] != "question_encoder.bert_model." {
		t.Errorf("FindPrefixes = %q", got)
	}
	if _, err := New(cfg, both); err == nil || !strings.Contains(err.Error(), `several bert backbones, under the prefixes "ctx_encoder.bert_model.", "question_encoder.bert_model."`) {
		t.Errorf("New on two towers: %v", err)
	}
	ids := [][]int32{{2, 7, 9, 3}}
	var outs [][]float32
	for _, p := range []string{"question_encoder.bert_model.", "ctx_encoder.bert_model."} {
		alone := q.Tensors
		if p == c.Prefix {
			alone = c.Tensors
		}
		want, err := New(cfg, maps.Clone(alone))
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewWithPrefix(cfg, both, p)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := m.Forward(ids)
		b, _ := want.Forward(ids)
		for i := range a[0] {
			if a[0][i] != b[0][i] {
				t.Fatalf("%s: value %d differs from the tower loaded alone", p, i)
			}
		}
		outs = append(outs, a[0])
	}
	if outs[0][0] == outs[1][0] {
		t.Error("the two towers gave the same output")
	}
}

func TestMaxTokens(t *testing.T) {
	cp, cfg := checkpoint(t, "roberta-base", berttest.Sizes{}, 1, nil)
	m, err := New(cfg, cp.Tensors)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Forward([][]int32{ramp(16, 64)}); err != nil {
		t.Errorf("16 tokens with 18 positions: %v", err)
	}
	_, err = m.Forward([][]int32{ramp(17, 64)})
	if err == nil || !strings.Contains(err.Error(), "sequence 0: 17 tokens, more than the model's 16 (its 18 positions start at 2)") {
		t.Errorf("17 tokens: %v", err)
	}
}

// TestRelativePositionBucket checks the exact integer buckets against
// Hugging Face's float32 formula for every distance up to 4096 each way,
// and a few by hand.
func TestRelativePositionBucket(t *testing.T) {
	for rel := -4096; rel <= 4096; rel++ {
		if got, want := RelativePositionBucket(rel), refBucket(rel); got != want {
			t.Fatalf("bucket(%d) = %d, Hugging Face's formula gives %d", rel, got, want)
		}
	}
	for _, c := range [][2]int{{0, 0}, {-1, 1}, {-7, 7}, {-8, 8}, {-11, 8}, {-12, 9}, {-16, 10}, {-32, 12}, {-64, 14}, {-127, 15}, {-128, 15}, {-5000, 15},
		{1, 17}, {7, 23}, {8, 24}, {16, 26}, {127, 31}, {128, 31}, {9999, 31}} {
		if got := RelativePositionBucket(c[0]); got != c[1] {
			t.Errorf("bucket(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}

// TestFamiliesKernelsAndThreads runs every family with both kernels and
// with 1 and 3 goroutines: the same bits each way.
func TestFamiliesKernelsAndThreads(t *testing.T) {
	for _, c := range familyCases {
		cp, cfg := checkpoint(t, c.layout, c.sizes, 4, c.edit)
		m, err := New(cfg, cp.Tensors)
		if err != nil {
			t.Fatal(err)
		}
		m.SetThreads(1)
		want, _ := m.Forward(c.seqs)
		for _, v := range []struct {
			kernel  string
			f       gemmFunc
			threads int
		}{{"portable", gemmPortable, 1}, {"native", gemmNative, 3}, {"portable", gemmPortable, 3}} {
			mm := m.clone()
			mm.gemm = v.f
			mm.SetThreads(v.threads)
			got, err := mm.Forward(c.seqs)
			if err != nil {
				t.Fatal(err)
			}
			for s := range want {
				for i := range want[s] {
					if math.Float32bits(got[s][i]) != math.Float32bits(want[s][i]) {
						t.Fatalf("%s: %s kernel, %d threads: sequence %d value %d is %v, want %v", c.name, v.kernel, v.threads, s, i, got[s][i], want[s][i])
					}
				}
			}
		}
	}
}
