// Package retrievertest writes tiny retrievers in the folder layouts
// their authors publish, for tests of the loaders, the engines and the
// pipeline: each layout's config.json fields and tensor names (from
// encoder/bert/berttest, with tiny random weights), its heads, its
// sentence-transformers module folders, prompts and manifests, and a
// real tokenizer of the family (installed by "make setup" or in
// ../shared/tokenizers).
//
// Only the tokenizer is real: the weights are random, so the embeddings
// mean nothing. What a test can check is that two engines agree on the
// same weights, that a head and a score are the family's, and that a
// whole evaluation runs.
package retrievertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/internal/sharedtest"
)

// Layout is a published retriever layout, as Write writes it, with what
// its authors' code does with it.
type Layout struct {
	// Name is the layout's name (see Layouts).
	Name string
	// Published names the published checkpoint the layout copies.
	Published string
	// Family is the encoder family (package bert's name).
	Family string
	// Towers is 1, or 2 for a folder with a query and a document tower.
	Towers int
	// Score is "dot" or "cos": how the authors score.
	Score string
	// Normalized is whether the embeddings are unit vectors.
	Normalized bool
	// QueryPrompt and DocumentPrompt are put before each side's texts.
	QueryPrompt, DocumentPrompt string
	// Head is how the encoders embed a text, as encoder.Encoder.Describe
	// begins (the prompts aside).
	Head string
	// MaxLength is the maximum length the folder states (0: none, the
	// model's positions decide).
	MaxLength int

	tok   tokenizerKind
	write func(w *writer) error
}

// tokenizerKind names the real tokenizer files a layout ships.
type tokenizerKind int

const (
	wordPiece  tokenizerKind = iota // bert-base-uncased's tokenizer.json
	dprVocab                        // vocab.txt and tokenizer_config.json (DPR's repositories)
	robertaBPE                      // roberta-base's vocab.json and merges.txt
	xlmrSPM                         // a SentencePiece Unigram model as XLM-R's sentencepiece.bpe.model
	mpnetWP                         // MPNet's tokenizer.json: BERT's vocabulary behind <s> <pad> </s> <unk>
)

// positions is the tiny models' position table: 64 tokens for every
// family (RoBERTa and MPNet start counting at 2).
func positions(family string) int {
	if family == "roberta" || family == "mpnet" {
		return 66
	}
	return 64
}

// Layouts returns every layout Write knows.
func Layouts() []Layout {
	return []Layout{
		{Name: "bert", Head: "mean (no pooling files)", Published: "bert-base-uncased (BertForMaskedLM, bert. prefix, no sentence-transformers files)", Family: "bert", Towers: 1, Score: "cos",
			tok: wordPiece, write: func(w *writer) error { return w.checkpoint("", "bert-base-uncased", nil) }},
		{Name: "dpr", Head: "cls (DPR)", Published: "facebook/dpr-question_encoder-single-nq-base and dpr-ctx_encoder (projection_dim 0) as two towers", Family: "bert", Towers: 2, Score: "dot",
			tok: dprVocab, write: func(w *writer) error { return w.dpr(0) }},
		{Name: "dpr-projection", Head: "cls, dense 16->6 (DPR)", Published: "DPR's encoders with projection_dim 6 (encode_proj)", Family: "bert", Towers: 2, Score: "dot",
			tok: dprVocab, write: func(w *writer) error { return w.dpr(6) }},
		{Name: "contriever", Head: "mean (Contriever)", Published: "facebook/contriever (Contriever, mean pooling, dot product)", Family: "bert", Towers: 1, Score: "dot",
			tok: wordPiece, write: func(w *writer) error { return w.checkpoint("", "contriever", nil) }},
		{Name: "simcse-sup", Head: "cls, dense 16->16 tanh (pooling asked for), max 32 tokens", Published: "princeton-nlp/sup-simcse-bert-base-uncased with dreval model get's manifest (the [CLS] state through the pooler)", Family: "bert", Towers: 1, Score: "cos", MaxLength: 32,
			tok: wordPiece, write: func(w *writer) error { return w.simcse("pooler") }},
		{Name: "simcse-unsup", Head: "cls (pooling asked for), max 32 tokens", Published: "princeton-nlp/unsup-simcse-bert-base-uncased with dreval model get's manifest (the [CLS] state before the pooler)", Family: "bert", Towers: 1, Score: "cos", MaxLength: 32,
			tok: wordPiece, write: func(w *writer) error { return w.simcse("cls") }},
		{Name: "ance-pyserini", Head: "cls, dense 16->16, layernorm 16 (ANCE)", Published: "castorini/ance-msmarco-passage (roberta. prefix, embeddingHead and norm)", Family: "roberta", Towers: 1, Score: "dot",
			tok: robertaBPE, write: func(w *writer) error { return w.checkpoint("", "ance-pyserini", nil) }},
		{Name: "ance-sentence-transformers", Head: "cls, dense 16->16, layernorm 16 (sentence-transformers modules, ANCE), max 48 tokens", Published: "sentence-transformers/msmarco-roberta-base-ance-firstp (Transformer, Pooling cls, Dense, LayerNorm)", Family: "roberta", Towers: 1, Score: "dot", MaxLength: 48,
			tok: robertaBPE, write: func(w *writer) error { return w.anceST() }},
		{Name: "roberta", Head: "mean (no pooling files)", Published: "roberta-base (RobertaForMaskedLM, roberta. prefix)", Family: "roberta", Towers: 1, Score: "cos",
			tok: robertaBPE, write: func(w *writer) error { return w.checkpoint("", "roberta-base", nil) }},
		{Name: "xlm-roberta", Head: "mean (no pooling files)", Published: "xlm-roberta-base (XLMRobertaForMaskedLM, sentencepiece.bpe.model)", Family: "roberta", Towers: 1, Score: "cos",
			tok: xlmrSPM, write: func(w *writer) error { return w.checkpoint("", "xlm-roberta-base", nil) }},
		{Name: "distilbert", Head: "mean (no pooling files)", Published: "distilbert-base-uncased (DistilBertForMaskedLM)", Family: "distilbert", Towers: 1, Score: "cos",
			tok: wordPiece, write: func(w *writer) error { return w.checkpoint("", "distilbert-base-uncased", nil) }},
		{Name: "mpnet", Head: "mean, normalized (sentence-transformers modules), max 48 tokens", Published: "sentence-transformers/all-mpnet-base-v2 (Transformer, Pooling mean, Normalize)", Family: "mpnet", Towers: 1, Score: "cos", Normalized: true, MaxLength: 48,
			tok: mpnetWP, write: func(w *writer) error { return w.sentenceTransformers("all-mpnet-base-v2", 48, nil, "cosine") }},
		{Name: "e5", Head: "mean, normalized (sentence-transformers modules), max 48 tokens", Published: "an e5-style sentence-transformers BERT (Pooling mean, Normalize; prompts \"query: \" and \"passage: \")", Family: "bert", Towers: 1, Score: "cos", Normalized: true, MaxLength: 48,
			QueryPrompt: "query: ", DocumentPrompt: "passage: ",
			tok: wordPiece, write: func(w *writer) error {
				return w.sentenceTransformers("sentence-transformers-bert", 48, map[string]string{"query": "query: ", "passage": "passage: "}, "cosine")
			}},
	}
}

// Lookup returns the layout called name.
func Lookup(name string) (Layout, bool) {
	for _, l := range Layouts() {
		if l.Name == name {
			return l, true
		}
	}
	return Layout{}, false
}

// Write writes the layout called name into dir (created) with weights
// drawn from seed, and returns the layout. It skips t, or fails it under
// CI, when the real tokenizer files are not installed.
func Write(t testing.TB, name, dir string, seed uint64) Layout {
	t.Helper()
	l, ok := Lookup(name)
	if !ok {
		t.Fatalf("retrievertest: no layout %q", name)
	}
	w := &writer{t: t, dir: dir, seed: seed, layout: l}
	w.files, w.vocab = tokenizerFiles(t, l.tok)
	if err := l.write(w); err != nil {
		t.Fatalf("retrievertest: %s: %v", name, err)
	}
	return l
}

// writer writes one layout's files.
type writer struct {
	t      testing.TB
	dir    string
	seed   uint64
	layout Layout
	files  map[string][]byte // the tokenizer's files
	vocab  int
}

// tokenizerFiles returns the files of a tokenizer kind and its
// vocabulary size.
func tokenizerFiles(t testing.TB, k tokenizerKind) (map[string][]byte, int) {
	t.Helper()
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	minilm := func() []byte { return read(filepath.Join(sharedtest.ModelDir(t, "minilm"), "tokenizer.json")) }
	var files map[string][]byte
	switch k {
	case wordPiece:
		files = map[string][]byte{"tokenizer.json": minilm()}
	case dprVocab:
		tk, err := tokenizer.FromJSON(bytes.NewReader(minilm()), "tokenizer.json")
		if err != nil {
			t.Fatal(err)
		}
		var vocab bytes.Buffer
		for id := range tk.VocabSize() {
			tok, _ := tk.Token(int32(id))
			vocab.WriteString(tok + "\n")
		}
		files = map[string][]byte{
			"vocab.txt":             vocab.Bytes(),
			"tokenizer_config.json": []byte(`{"do_lower_case": true, "model_max_length": 512}` + "\n"),
		}
	case robertaBPE:
		dir := sharedtest.Path(t, "tokenizers/roberta-base")
		files = map[string][]byte{
			"vocab.json":  read(filepath.Join(dir, "vocab.json")),
			"merges.txt":  read(filepath.Join(dir, "merges.txt")),
			"config.json": nil, // the model's own
		}
		delete(files, "config.json")
	case xlmrSPM:
		dir := sharedtest.TokenizerDir(t, "sentencepiece")
		files = map[string][]byte{
			"sentencepiece.bpe.model": read(filepath.Join(dir, "smart-50k.model")),
			"tokenizer_config.json":   []byte(`{"tokenizer_class": "XLMRobertaTokenizer", "model_max_length": 512}` + "\n"),
		}
	case mpnetWP:
		files = map[string][]byte{"tokenizer.json": mpnetTokenizer(t, minilm())}
	}
	return files, vocabSize(t, files)
}

// vocabSize loads the tokenizer files from a temporary folder and
// returns its vocabulary size.
func vocabSize(t testing.TB, files map[string][]byte) int {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tk, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatalf("retrievertest: the tokenizer files: %v", err)
	}
	return tk.VocabSize()
}

// mpnetTokenizer returns an MPNet tokenizer.json made from BERT's
// (bertJSON): MPNetTokenizer's vocabulary is BERT's with <s>, <pad>,
// </s> and <unk> before it and <mask> after, and it adds <s> ... </s> as
// RoBERTa does.
func mpnetTokenizer(t testing.TB, bertJSON []byte) []byte {
	t.Helper()
	var j map[string]any
	if err := json.Unmarshal(bertJSON, &j); err != nil {
		t.Fatal(err)
	}
	model := j["model"].(map[string]any)
	old := model["vocab"].(map[string]any)
	vocab := map[string]any{"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
	for tok, id := range old {
		vocab[tok] = int(id.(float64)) + 4
	}
	vocab["<mask>"] = len(old) + 4
	model["vocab"] = vocab
	model["unk_token"] = "[UNK]"
	var added []any
	for tok, id := range map[string]int{"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": len(old) + 4} {
		added = append(added, map[string]any{"id": id, "content": tok, "single_word": false, "lstrip": tok == "<mask>", "rstrip": false, "normalized": false, "special": true})
	}
	j["added_tokens"] = added
	j["post_processor"] = map[string]any{"type": "RobertaProcessing", "sep": []any{"</s>", 2}, "cls": []any{"<s>", 0}, "trim_offsets": true, "add_prefix_space": false}
	if p, ok := j["padding"].(map[string]any); ok {
		p["pad_id"], p["pad_token"] = 1, "<pad>"
	}
	j["truncation"] = nil
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkpoint writes berttest's layout into sub of the writer's folder,
// with the tokenizer's files, then edit's changes to the checkpoint
// (nil: none).
func (w *writer) checkpoint(sub, layout string, edit func(*berttest.Checkpoint)) error {
	cp, err := berttest.New(layout, berttest.Sizes{Vocab: w.vocab, Positions: positions(w.layout.Family), Hidden: 16, Heads: 2, Intermediate: 24}, w.seed)
	if err != nil {
		return err
	}
	if edit != nil {
		edit(cp)
	}
	dir := filepath.Join(w.dir, sub)
	if err := cp.Write(dir); err != nil {
		return err
	}
	for name, b := range w.files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	w.seed++ // the next tower's weights differ
	return nil
}

// file writes a file under the writer's folder: bytes as they are,
// anything else as indented JSON.
func (w *writer) file(rel string, v any) error {
	p := filepath.Join(w.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	b, ok := v.([]byte)
	if !ok {
		var err error
		if b, err = json.MarshalIndent(v, "", "  "); err != nil {
			return err
		}
	}
	return os.WriteFile(p, b, 0o644)
}

// weights writes a module's model.safetensors with random tensors of
// the given shapes.
func (w *writer) weights(rel string, shapes map[string][]int) error {
	set := tensor.Set{}
	i := 0
	for name, shape := range shapes {
		tt := tensor.New(shape...)
		for k := range tt.Data {
			// Deterministic, varied, small: a LayerNorm's gamma near 1.
			tt.Data[k] = float32((int(w.seed)*31+i*17+k*7)%23-11) / 23
			if len(shape) == 1 && name == "norm.weight" {
				tt.Data[k] += 1
			}
		}
		set[name] = tt
		i++
	}
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, set, safetensors.F32, map[string]string{"format": "pt"}); err != nil {
		return err
	}
	return w.file(rel, buf.Bytes())
}

// dpr writes DPR's two published repositories as the towers of a
// two-tower folder, with the manifest "dreval model get dpr-nq" writes.
func (w *writer) dpr(projection int) error {
	edit := func(tower string) func(*berttest.Checkpoint) {
		return func(cp *berttest.Checkpoint) {
			if projection == 0 {
				return
			}
			cp.Config["projection_dim"] = projection
			h := cp.Config["hidden_size"].(int)
			for _, n := range []string{"weight", "bias"} {
				shape := []int{projection, h}
				if n == "bias" {
					shape = []int{projection}
				}
				tt := tensor.New(shape...)
				for k := range tt.Data {
					tt.Data[k] = float32(k%13-6) / 13
				}
				cp.Tensors[tower+".encode_proj."+n] = tt
			}
		}
	}
	if err := w.checkpoint("question_encoder", "dpr-question-encoder", edit("question_encoder")); err != nil {
		return err
	}
	if err := w.checkpoint("ctx_encoder", "dpr-ctx-encoder", edit("ctx_encoder")); err != nil {
		return err
	}
	return w.file("dreval.json", map[string]any{"query": "question_encoder", "document": "ctx_encoder", "score": "dot"})
}

// simcse writes a SimCSE checkpoint with the manifest "dreval model get
// simcse-sup" (pooling "pooler") or simcse-unsup ("cls") writes.
func (w *writer) simcse(pooling string) error {
	if err := w.checkpoint("", "simcse-bert", nil); err != nil {
		return err
	}
	return w.file("dreval.json", map[string]any{"score": "cos", "pooling": pooling, "query_max_length": 32, "document_max_length": 32})
}

// stModule is one entry of modules.json.
type stModule struct {
	Idx  int    `json:"idx"`
	Name string `json:"name"`
	Path string `json:"path"`
	Type string `json:"type"`
}

// stFiles writes the sentence-transformers files of a folder whose
// transformer is at its top: modules.json with Transformer, Pooling
// (mode) and the extra modules, 1_Pooling/config.json,
// sentence_bert_config.json and config_sentence_transformers.json.
func (w *writer) stFiles(mode string, maxLen int, prompts map[string]string, similarity string, extra ...stModule) error {
	mods := []stModule{
		{0, "0", "", "sentence_transformers.models.Transformer"},
		{1, "1", "1_Pooling", "sentence_transformers.models.Pooling"},
	}
	mods = append(mods, extra...)
	if err := w.file("modules.json", mods); err != nil {
		return err
	}
	if err := w.file("1_Pooling/config.json", map[string]any{
		"word_embedding_dimension":          16,
		"pooling_mode_cls_token":            mode == "cls",
		"pooling_mode_mean_tokens":          mode == "mean",
		"pooling_mode_max_tokens":           false,
		"pooling_mode_mean_sqrt_len_tokens": false,
	}); err != nil {
		return err
	}
	if err := w.file("sentence_bert_config.json", map[string]any{"max_seq_length": maxLen, "do_lower_case": false}); err != nil {
		return err
	}
	st := map[string]any{"__version__": map[string]string{"sentence_transformers": "3.0.1", "transformers": "4.41.2", "pytorch": "2.3.0"}}
	if prompts != nil {
		st["prompts"], st["default_prompt_name"] = prompts, nil
	}
	if similarity != "" {
		st["similarity_fn_name"] = similarity
	}
	return w.file("config_sentence_transformers.json", st)
}

// sentenceTransformers writes a sentence-transformers folder of
// berttest's layout: mean pooling, then Normalize.
func (w *writer) sentenceTransformers(layout string, maxLen int, prompts map[string]string, similarity string) error {
	if err := w.checkpoint("", layout, nil); err != nil {
		return err
	}
	return w.stFiles("mean", maxLen, prompts, similarity, stModule{2, "2", "2_Normalize", "sentence_transformers.models.Normalize"})
}

// anceST writes sentence-transformers' ANCE: a RobertaModel, the first
// token, a Dense layer (identity) and a LayerNorm; no similarity named
// (the folder predates similarity_fn_name).
func (w *writer) anceST() error {
	if err := w.checkpoint("", "roberta-model", nil); err != nil {
		return err
	}
	const h = 16
	if err := w.stFiles("cls", 48, nil, "",
		stModule{2, "2", "2_Dense", "sentence_transformers.models.Dense"},
		stModule{3, "3", "3_LayerNorm", "sentence_transformers.models.LayerNorm"}); err != nil {
		return err
	}
	if err := w.file("2_Dense/config.json", map[string]any{"in_features": h, "out_features": h, "bias": true, "activation_function": "torch.nn.modules.linear.Identity"}); err != nil {
		return err
	}
	if err := w.weights("2_Dense/model.safetensors", map[string][]int{"linear.weight": {h, h}, "linear.bias": {h}}); err != nil {
		return err
	}
	if err := w.file("3_LayerNorm/config.json", map[string]any{"dimension": h}); err != nil {
		return err
	}
	return w.weights("3_LayerNorm/model.safetensors", map[string][]int{"norm.weight": {h}, "norm.bias": {h}})
}

// String describes the layout in one line.
func (l Layout) String() string {
	return fmt.Sprintf("%s (%s; %d tower(s), score %s)", l.Name, l.Published, l.Towers, l.Score)
}
