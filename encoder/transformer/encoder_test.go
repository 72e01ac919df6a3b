package transformer

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

var (
	miniOnce sync.Once
	miniEnc  *encoder.Encoder
	miniErr  error
)

func miniLM(t testing.TB) *encoder.Encoder {
	t.Helper()
	dir := sharedtest.ModelDir(t, "minilm")
	miniOnce.Do(func() { miniEnc, miniErr = Load(modelfiles.OSDir(dir), Options{}) })
	if miniErr != nil {
		t.Fatal(miniErr)
	}
	return miniEnc
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// TestMiniLMExample checks the sentence-transformers reference embedding of
// "This is an example sentence": ids, then the first values (mean pooling,
// normalised).
func TestMiniLMExample(t *testing.T) {
	e := miniLM(t)
	ids, trunc := e.Tokenize([]string{"This is an example sentence"})
	if want := []int32{101, 2023, 2003, 2019, 2742, 6251, 102}; !slices.Equal(ids[0], want) || trunc != 0 {
		t.Fatalf("ids %v (truncated %d), want %v", ids[0], trunc, want)
	}
	vecs, _, err := e.Encode([]string{"This is an example sentence"})
	if err != nil {
		t.Fatal(err)
	}
	v := vecs[0]
	if len(v) != 384 || math.Abs(norm(v)-1) > 1e-5 {
		t.Fatalf("dim %d, norm %v", len(v), norm(v))
	}
	for i, w := range []float32{0.0677, 0.0636, 0.0487, 0.0794} {
		if math.Abs(float64(v[i]-w)) > 1e-4 {
			t.Errorf("v[%d] = %.5f, want %.4f", i, v[i], w)
		}
	}
}

// TestMiniLMBatchInvariance encodes a text alone and in a batch with longer
// texts (which, in a padded implementation, would pad it).
func TestMiniLMBatchInvariance(t *testing.T) {
	e := miniLM(t)
	text := "This is an example sentence"
	alone, _, err := e.Encode([]string{text})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("A much longer text about retrieval evaluation and tokenizers. ", 6)
	batch, _, err := e.Encode([]string{long, text, long[:100], "short"})
	if err != nil {
		t.Fatal(err)
	}
	if c := cosine(alone[0], batch[1]); c < 0.99999 {
		t.Errorf("cosine alone vs in batch = %.7f", c)
	}
}

func TestMiniLMEdges(t *testing.T) {
	e := miniLM(t)
	// Empty text: the [CLS] [SEP] embedding.
	vecs, _, err := e.Encode([]string{"", "   "})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := e.EmbedIDs([][]int32{{101, 102}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range vecs {
		if c := cosine(vecs[i], direct[0]); c < 0.99999 {
			t.Errorf("empty text %d: cosine with [CLS][SEP] = %v", i, c)
		}
	}
	// Truncation: counted, and equal to embedding the truncated ids.
	long := strings.Repeat("word ", 1000)
	ids, trunc := e.Tokenize([]string{long, "short"})
	if trunc != 1 || len(ids[0]) != e.MaxLength() {
		t.Fatalf("truncated %d texts to %d ids, want 1 text to %d", trunc, len(ids[0]), e.MaxLength())
	}
	if _, n, err := e.Encode([]string{long}); err != nil || n != 1 {
		t.Errorf("Encode of a long text: truncated %d, %v", n, err)
	}
	// Bad ids name the caller's index, not the batch's.
	_, err = e.EmbedIDs([][]int32{{101, 102}, {101, 2023, 2003, 102}, {101, 99999, 102}})
	if err == nil || !strings.Contains(err.Error(), "sequence 2: position 1: token id 99999") {
		t.Errorf("bad id: %v", err)
	}
	if _, err := e.EmbedIDs([][]int32{{101, 102}, {}}); err == nil || !strings.Contains(err.Error(), "sequence 1 has no ids") {
		t.Errorf("empty ids: %v", err)
	}
	if out, err := e.EmbedIDs(nil); err != nil || len(out) != 0 {
		t.Errorf("no sequences: %v %v", out, err)
	}
}

func TestMiniLMPoolingAndProgress(t *testing.T) {
	dir := sharedtest.ModelDir(t, "minilm")
	var calls [][2]int
	e, err := Load(modelfiles.OSDir(dir), Options{Pooling: encoder.CLS, BatchSize: 2, MaxLength: 16, Threads: 1,
		Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }})
	if err != nil {
		t.Fatal(err)
	}
	if e.MaxLength() != 16 {
		t.Errorf("MaxLength = %d", e.MaxLength())
	}
	texts := []string{"a", "b c", "d e f", "g h i j", "k"}
	vecs, _, err := e.Encode(texts)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][2]int{{2, 5}, {4, 5}, {5, 5}}; !reflect.DeepEqual(calls, want) {
		t.Errorf("progress calls %v, want %v", calls, want)
	}
	mean := miniLM(t)
	mv, _, _ := mean.Encode(texts[:1])
	if c := cosine(vecs[0], mv[0]); c > 0.999 {
		t.Errorf("CLS and mean pooling agree (cosine %v): the override did nothing", c)
	}
	if _, err := Load(modelfiles.OSDir(dir), Options{Pooling: "median"}); err == nil || !strings.Contains(err.Error(), `pooling "median" is not known`) {
		t.Errorf("median pooling: %v", err)
	}
	if _, err := Load(modelfiles.OSDir(dir), Options{MaxLength: 513}); err == nil || !strings.Contains(err.Error(), "exceeds the model's 512 positions") {
		t.Errorf("MaxLength 513: %v", err)
	}
}

func TestLoadMissingDir(t *testing.T) {
	_, err := Load(modelfiles.OSDir(t.TempDir()), Options{})
	if err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("got %v", err)
	}
}

func TestBatches(t *testing.T) {
	seq := func(n int) []int32 { return make([]int32, n) }
	seqs := [][]int32{seq(3), seq(10), seq(1), seq(10), seq(5)}
	for _, c := range []struct {
		maxSeqs, maxTokens int
		want               [][]int
	}{
		{0, 0, [][]int{{1, 3, 4, 0, 2}}},
		{2, 0, [][]int{{1, 3}, {4, 0}, {2}}},
		{0, 15, [][]int{{1}, {3, 4}, {0, 2}}},
		{0, 4, [][]int{{1}, {3}, {4}, {0, 2}}}, // a sequence over the limit gets its own batch
	} {
		if got := encoder.Batches(seqs, c.maxSeqs, c.maxTokens); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Batches(%d, %d) = %v, want %v", c.maxSeqs, c.maxTokens, got, c.want)
		}
	}
	if got := encoder.Batches(nil, 2, 2); len(got) != 0 {
		t.Errorf("no sequences gave %v", got)
	}
}

func TestReadPoolingConfig(t *testing.T) {
	for _, c := range []struct {
		dir  string
		want encoder.Pooling
		err  string
	}{
		{"testdata/pool-mean", encoder.Mean, ""},
		{"testdata/pool-cls", encoder.CLS, ""},
		{"testdata/pool-max", encoder.Max, ""},
		{"testdata/absent", encoder.Mean, ""},
	} {
		got, err := ReadPoolingConfig(modelfiles.OSDir(c.dir))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.dir, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.dir, got, err, c.want)
		}
	}
}

func TestPool(t *testing.T) {
	hidden := []float32{1, 2, 3, 4, 5, 8} // 3 tokens of dim 2
	for _, c := range []struct {
		p    encoder.Pooling
		skip int
		want []float32
	}{
		{encoder.Mean, 0, []float32{3, 14.0 / 3}},
		{encoder.Mean, 1, []float32{4, 6}},
		{encoder.CLS, 0, []float32{1, 2}},
		{encoder.CLS, 2, []float32{1, 2}}, // the first token, skipped or not (sentence-transformers)
		{encoder.Max, 0, []float32{5, 8}},
		{encoder.Max, 3, []float32{-1e9, -1e9}},
		{encoder.MeanSqrtLen, 0, []float32{float32(9 / math.Sqrt(3)), float32(14 / math.Sqrt(3))}},
		{encoder.WeightedMean, 0, []float32{(1 + 6 + 15) / 6.0, (2 + 8 + 24) / 6.0}},
		{encoder.LastToken, 0, []float32{5, 8}},
		{encoder.LastToken, 3, []float32{0, 0}},
		{"cls+mean", 0, []float32{1, 2, 3, 14.0 / 3}},
	} {
		got := make([]float32, c.p.Width(2))
		c.p.Pool(got, hidden, 2, c.skip)
		for i := range got {
			if math.Abs(float64(got[i]-c.want[i])) > 1e-6 {
				t.Errorf("%s skip %d = %v, want %v", c.p, c.skip, got, c.want)
				break
			}
		}
	}
	for _, s := range []string{"mean+cls", "cls", "lasttoken+max"} {
		if _, err := encoder.ParsePooling(s); err != nil {
			t.Errorf("ParsePooling(%q): %v", s, err)
		}
	}
	if p, _ := encoder.ParsePooling("mean+cls"); p != "cls+mean" {
		t.Errorf("modes not put in sentence-transformers' order: %s", p)
	}
	for _, s := range []string{"", "mean+mean", "median", "cls+"} {
		if _, err := encoder.ParsePooling(s); err == nil {
			t.Errorf("ParsePooling(%q) accepted", s)
		}
	}
	v := []float32{3, 4}
	encoder.Normalize(v)
	if v[0] != 0.6 || v[1] != 0.8 {
		t.Errorf("Normalize = %v", v)
	}
	z := []float32{0, 0}
	encoder.Normalize(z)
	if z[0] != 0 || z[1] != 0 {
		t.Errorf("Normalize of zero = %v", z)
	}
}

type fakeEmbedder struct{ vocab int }

func (f fakeEmbedder) EmbedIDs(ids [][]int32) ([][]float32, error) { return nil, nil }
func (f fakeEmbedder) Dim() int                                    { return 1 }
func (f fakeEmbedder) VocabSize() int                              { return f.vocab }

func TestNewChecksVocabulary(t *testing.T) {
	tok, err := tokenizer.FromVocab(strings.NewReader("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n"), "vocab.txt", tokenizer.DefaultBertSettings())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := encoder.New(tok, fakeEmbedder{6}, 0); err != nil {
		t.Errorf("matching vocabulary: %v", err)
	}
	if _, err := encoder.New(tok, fakeEmbedder{30522}, 0); err == nil || !strings.Contains(err.Error(), "the tokenizer has 6 tokens but the model's vocabulary has 30522") {
		t.Errorf("mismatch: %v", err)
	}
	if _, err := encoder.New(tok, fakeEmbedder{6}, 2); err == nil {
		t.Error("MaxLength 2 with 2 special tokens accepted")
	}
}

func TestReadSBERTConfig(t *testing.T) {
	if c, err := readSBERTConfig(modelfiles.OSDir("testdata/stcfg")); c.MaxSeqLength != 256 || err != nil {
		t.Errorf("got %+v, %v; want max_seq_length 256", c, err)
	}
	if c, err := readSBERTConfig(modelfiles.OSDir("testdata/absent")); c.MaxSeqLength != 0 || err != nil {
		t.Errorf("absent file: %+v, %v", c, err)
	}
}

func TestWeightFilesIsACopy(t *testing.T) {
	modelfiles.Weights()[0] = "changed"
	if w := modelfiles.Weights(); w[0] != "model.safetensors" || len(w) != 3 || w[2] != "pytorch_model.bin" {
		t.Errorf("WeightFiles %v", w)
	}
}
