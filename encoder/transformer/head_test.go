package transformer

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/modelfiles"
)

// writeTree writes files (slash-separated paths) under dir, making their
// folders.
func writeTree(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// safetensorsBytes encodes set as safetensors (F32).
func safetensorsBytes(t testing.TB, set tensor.Set) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := safetensors.Write(&b, set, safetensors.F32, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// randTensor returns a tensor of shape with deterministic values.
func randTensor(seed float64, shape ...int) *tensor.Tensor {
	x := tensor.New(shape...)
	for i := range x.Data {
		x.Data[i] = float32(math.Sin(seed*float64(i+1)) * 0.5)
	}
	return x
}

func jsonBytes(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stModelDir writes tinyBERT (hidden size 8) as a sentence-transformers
// folder: modules.json with extra (after Transformer and Pooling), the
// pooling config, and files.
func stModelDir(t *testing.T, pooling map[string]any, extra []map[string]any, files map[string][]byte) string {
	t.Helper()
	set, _, cfgJSON, tokJSON := tinyBERT(t)
	dir := t.TempDir()
	mods := []map[string]any{
		{"idx": 0, "name": "0", "path": "", "type": modelfiles.ModuleTransformer},
		{"idx": 1, "name": "1", "path": "1_Pooling", "type": modelfiles.ModulePooling},
	}
	mods = append(mods, extra...)
	all := map[string][]byte{
		"config.json": cfgJSON, "tokenizer.json": tokJSON, "model.safetensors": safetensorsBytes(t, set),
		"modules.json": jsonBytes(t, mods), "1_Pooling/config.json": jsonBytes(t, pooling),
	}
	for k, v := range files {
		all[k] = v
	}
	writeTree(t, dir, all)
	return dir
}

// TestSentenceTransformersHead loads a folder whose modules pool by cls
// and mean, then run a Dense layer (tanh), a LayerNorm and Normalize, and
// checks every embedding against the same computation done here in
// float64 on the transformer's hidden states.
func TestSentenceTransformersHead(t *testing.T) {
	w, b := randTensor(0.7, 6, 16), randTensor(1.3, 6)
	g, beta := randTensor(2.1, 6), randTensor(0.3, 6)
	dir := stModelDir(t,
		map[string]any{"word_embedding_dimension": 8, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true},
		[]map[string]any{
			{"idx": 2, "name": "2", "path": "2_Dense", "type": modelfiles.ModuleDense},
			{"idx": 3, "name": "3", "path": "3_LayerNorm", "type": modelfiles.ModuleLayerNorm},
			{"idx": 4, "name": "4", "path": "4_Normalize", "type": modelfiles.ModuleNormalize},
		},
		map[string][]byte{
			"2_Dense/config.json":           []byte(`{"in_features": 16, "out_features": 6, "bias": true, "activation_function": "torch.nn.modules.activation.Tanh"}`),
			"2_Dense/model.safetensors":     safetensorsBytes(t, tensor.Set{"linear.weight": w, "linear.bias": b}),
			"3_LayerNorm/config.json":       []byte(`{"dimension": 6}`),
			"3_LayerNorm/model.safetensors": safetensorsBytes(t, tensor.Set{"norm.weight": g, "norm.bias": beta}),
		})
	e, err := Load(modelfiles.OSDir(dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 6 || e.Head().String() != "cls+mean, dense 16->6 tanh, layernorm 6, normalized" || e.Layout() != "sentence-transformers modules" {
		t.Fatalf("dim %d, head %q, layout %q", e.Dim(), e.Head(), e.Layout())
	}
	ids, _ := e.Tokenize([]string{"the cat sat on the mat", "mat", ""})
	got, err := e.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	hidden, err := e.Embedder().(*bert.Embedder).Model.Forward(ids)
	if err != nil {
		t.Fatal(err)
	}
	for s, h := range hidden {
		n := len(h) / 8
		pooled := make([]float64, 16)
		for c := 0; c < 8; c++ {
			pooled[c] = float64(h[c])
			for tok := 0; tok < n; tok++ {
				pooled[8+c] += float64(h[tok*8+c]) / float64(n)
			}
		}
		y := make([]float64, 6)
		for o := range y {
			sum := float64(b.Data[o])
			for i := range pooled {
				sum += float64(w.Data[o*16+i]) * pooled[i]
			}
			y[o] = math.Tanh(sum)
		}
		var mean, vr float64
		for _, v := range y {
			mean += v / 6
		}
		for _, v := range y {
			vr += (v - mean) * (v - mean) / 6
		}
		var norm float64
		for o := range y {
			y[o] = (y[o]-mean)/math.Sqrt(vr+1e-5)*float64(g.Data[o]) + float64(beta.Data[o])
			norm += y[o] * y[o]
		}
		for o := range y {
			if d := math.Abs(y[o]/math.Sqrt(norm) - float64(got[s][o])); d > 1e-5 {
				t.Fatalf("sequence %d value %d: %v, computed here %v", s, o, got[s][o], y[o]/math.Sqrt(norm))
			}
		}
	}
}

// TestPrompts checks the prompts of config_sentence_transformers.json:
// each side gets its own, put before the text and, with include_prompt
// false, left out of the pooling.
func TestPrompts(t *testing.T) {
	dir := stModelDir(t, map[string]any{"pooling_mode_mean_tokens": true, "include_prompt": false}, nil,
		map[string][]byte{"config_sentence_transformers.json": []byte(`{"prompts": {"query": "cat ", "passage": "mat mat "}, "default_prompt_name": null, "similarity_fn_name": "dot"}`)})
	e, err := Load(modelfiles.OSDir(dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Similarity() != encoder.Dot {
		t.Errorf("similarity %q, want dot", e.Similarity())
	}
	q, err := e.ForSide("query")
	if err != nil {
		t.Fatal(err)
	}
	d, err := e.ForSide("document")
	if err != nil {
		t.Fatal(err)
	}
	if q.Prompt() != "cat " || d.Prompt() != "mat mat " {
		t.Fatalf("prompts %q and %q, want the query and passage prompts", q.Prompt(), d.Prompt())
	}
	plain := e.EncodeIDs("the sat")
	qids := q.EncodeIDs("the sat")
	if want := append([]int32{plain[0], e.Tokenizer().EncodeWith("cat", tokenizer.Options{}).IDs[0]}, plain[1:]...); !equalIDs(qids, want) {
		t.Errorf("query ids %v, want the prompt's before the text's %v", qids, want)
	}
	// With include_prompt false the prompt's tokens ([CLS] and "cat")
	// are not pooled: the query vector is the mean of the text's tokens.
	if q.Head().Skip != 2 || d.Head().Skip != 3 {
		t.Errorf("skips %d and %d, want 2 ([CLS] cat) and 3 ([CLS] mat mat)", q.Head().Skip, d.Head().Skip)
	}
	vq, err := q.EmbedIDs([][]int32{qids})
	if err != nil {
		t.Fatal(err)
	}
	hidden, err := e.Embedder().(*bert.Embedder).Model.Forward([][]int32{qids})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float32, 8)
	encoder.Mean.Pool(want, hidden[0], 8, 2)
	for i := range want {
		if want[i] != vq[0][i] {
			t.Fatalf("query vector %v, want the mean of the text's tokens %v", vq[0], want)
		}
	}
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestHeadErrors checks that every broken head names the file and what
// was expected.
func TestHeadErrors(t *testing.T) {
	dense := func(cfg string, set tensor.Set) map[string][]byte {
		return map[string][]byte{"2_Dense/config.json": []byte(cfg), "2_Dense/model.safetensors": safetensorsBytes(t, set)}
	}
	denseMod := []map[string]any{{"idx": 2, "name": "2", "path": "2_Dense", "type": modelfiles.ModuleDense}}
	mean := map[string]any{"pooling_mode_mean_tokens": true}
	for _, tc := range []struct {
		name    string
		pooling map[string]any
		extra   []map[string]any
		files   map[string][]byte
		want    []string
	}{
		{"unknown pooling mode", map[string]any{"pooling_mode_median_tokens": true}, nil, nil,
			[]string{"1_Pooling/config.json", "pooling_mode_median_tokens is not a pooling mode"}},
		{"no pooling mode", map[string]any{"pooling_mode_mean_tokens": false}, nil, nil,
			[]string{"1_Pooling/config.json", "no pooling_mode_* is true"}},
		{"dense in_features", mean, denseMod, dense(`{"in_features": 9, "out_features": 4}`, tensor.Set{"linear.weight": randTensor(1, 4, 9)}),
			[]string{"2_Dense/config.json", "in_features is 9, but the module before gives 8 values"}},
		{"dense weight shape", mean, denseMod, dense(`{"in_features": 8, "out_features": 4}`, tensor.Set{"linear.weight": randTensor(1, 4, 7)}),
			[]string{"2_Dense/model.safetensors", "linear.weight has shape [4 7], expected [4 8]"}},
		{"dense weights missing", mean, denseMod, map[string][]byte{"2_Dense/config.json": []byte(`{"in_features": 8, "out_features": 4}`)},
			[]string{"2_Dense: the module's weights are missing (expected one of model.safetensors"}},
		{"dense tensor missing", mean, denseMod, dense(`{"in_features": 8, "out_features": 4}`, tensor.Set{"other": randTensor(1, 2)}),
			[]string{"2_Dense/model.safetensors", "tensor linear.weight is missing"}},
		{"unknown activation", mean, denseMod, dense(`{"in_features": 8, "out_features": 4, "activation_function": "torch.nn.Softsign"}`, tensor.Set{"linear.weight": randTensor(1, 4, 8)}),
			[]string{"2_Dense/config.json", `activation function "torch.nn.Softsign" is not supported`}},
		{"unknown module", mean, []map[string]any{{"idx": 2, "name": "2", "path": "2_X", "type": "sentence_transformers.models.WordWeights"}}, nil,
			[]string{"modules.json", `type "sentence_transformers.models.WordWeights", which dreval does not run`}},
		{"normalize not last", mean, []map[string]any{{"idx": 2, "name": "2", "path": "", "type": modelfiles.ModuleNormalize}, {"idx": 3, "name": "3", "path": "2_Dense", "type": modelfiles.ModuleDense}},
			dense(`{"in_features": 8, "out_features": 4}`, tensor.Set{"linear.weight": randTensor(1, 4, 8)}),
			[]string{"modules.json", "(Normalize) is not the last"}},
		{"layer norm dimension", mean, []map[string]any{{"idx": 2, "name": "2", "path": "2_LayerNorm", "type": modelfiles.ModuleLayerNorm}},
			map[string][]byte{"2_LayerNorm/config.json": []byte(`{"dimension": 5}`)},
			[]string{"2_LayerNorm/config.json", "dimension is 5, but the module before gives 8 values"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := stModelDir(t, tc.pooling, tc.extra, tc.files)
			_, err := Load(modelfiles.OSDir(dir), Options{})
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// FuzzModelSettings feeds arbitrary contents to the parsers of a model
// folder's settings files (modules.json, a Pooling module's config,
// config_sentence_transformers.json, sentence_bert_config.json, a Dense
// module's config, dreval.json): they return errors, never panic.
func FuzzModelSettings(f *testing.F) {
	for _, s := range []string{
		`[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}, {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]`,
		`{"word_embedding_dimension": 384, "pooling_mode_mean_tokens": true, "include_prompt": false}`,
		`{"prompts": {"query": "query: "}, "default_prompt_name": "query", "similarity_fn_name": "cosine"}`,
		`{"max_seq_length": 256, "do_lower_case": true}`,
		`{"in_features": 8, "out_features": 4, "bias": true, "activation_function": "torch.nn.modules.activation.Tanh"}`,
		`{"query": "q", "document": "d", "score": "dot", "pooling": "pooler", "query_max_length": 64}`,
		`[`, `{"query": "../x"}`, `null`, `{"pooling_mode_cls_token": 1}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fsys := fstest.MapFS{}
		for _, name := range []string{"modules.json", "1_Pooling/config.json", "config_sentence_transformers.json", "sentence_bert_config.json",
			"2_Dense/config.json", "3_LayerNorm/config.json", modelfiles.ManifestFile} {
			fsys["m/"+name] = &fstest.MapFile{Data: []byte(s)}
		}
		d := modelfiles.FSDir(fsys, "m")
		modelfiles.ReadModules(d)
		readPoolingConfig(d, "1_Pooling/config.json")
		readSTConfig(d)
		readSBERTConfig(d)
		denseModule(d, "2_Dense", 8)
		layerNormModule(d, "3_LayerNorm", 8)
		if m, err := modelfiles.ParseManifest([]byte(s), "dreval.json"); err == nil && m == nil {
			t.Fatal("modelfiles.ParseManifest returned nil without an error")
		}
	})
}
