package static

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/bert/berttest"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/internal/memfs"
	"github.com/dreval/dreval/modelfiles"
)

// testVocab is a small BERT vocabulary: [PAD]=0, [UNK]=1, [CLS]=2,
// [SEP]=3, [MASK]=4, then words.
var testVocab = []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
	"the", "cat", "sat", "on", "mat", "dog", "##s", "a", "big", "red",
	"blue", "green", "house", "tree", "run", "##ning", "fast", "slow", "up"}

func testTokenizer(t testing.TB) (*tokenizer.Tokenizer, []byte) {
	t.Helper()
	tok, err := tokenizer.FromVocab(strings.NewReader(strings.Join(testVocab, "\n")), "vocab.txt", tokenizer.DefaultBertSettings())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tok.Save(&b); err != nil {
		t.Fatal(err)
	}
	return tok, b.Bytes()
}

func randomTable(vocab, dims int, seed uint64) *tensor.Tensor {
	r := rand.New(rand.NewPCG(seed, 1))
	t := tensor.New(vocab, dims)
	for i := range t.Data {
		t.Data[i] = float32(r.NormFloat64())
	}
	return t
}

// handMean computes the normalised mean of the rows of ids not in skip in
// float64.
func handMean(table *tensor.Tensor, ids []int32, skip map[int32]bool) []float64 {
	d := table.Shape[1]
	sum := make([]float64, d)
	n := 0
	for _, id := range ids {
		if skip[id] {
			continue
		}
		for j := 0; j < d; j++ {
			sum[j] += float64(table.Data[int(id)*d+j])
		}
		n++
	}
	if n == 0 {
		return sum
	}
	var ss float64
	for j := range sum {
		sum[j] /= float64(n)
		ss += sum[j] * sum[j]
	}
	for j := range sum {
		sum[j] /= math.Sqrt(ss)
	}
	return sum
}

func closeTo(t *testing.T, what string, got []float32, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for j := range want {
		if math.Abs(float64(got[j])-want[j]) > 1e-6 {
			t.Fatalf("%s: value %d is %v, want %v", what, j, got[j], want[j])
		}
	}
}

func TestEmbedIDsIsNormalisedMeanOfRows(t *testing.T) {
	table := randomTable(8, 5, 1)
	e, err := New(table, []int32{0, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	skip := map[int32]bool{0: true, 2: true, 3: true}
	tests := []struct {
		name string
		ids  []int32
	}{
		{"one token", []int32{2, 5, 3}},
		{"several", []int32{2, 5, 6, 7, 3}},
		{"repeated token counts twice", []int32{2, 5, 5, 6, 3}},
		{"padding ignored", []int32{2, 4, 1, 3, 0, 0}},
		{"no specials", []int32{7, 1}},
	}
	var seqs [][]int32
	for _, tc := range tests {
		seqs = append(seqs, tc.ids)
	}
	got, err := e.EmbedIDs(seqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range tests {
		closeTo(t, tc.name, got[i], handMean(table, tc.ids, skip))
	}
	// "repeated" differs from the set {5, 6}: a mean, not a set.
	if a, b := handMean(table, []int32{5, 5, 6}, skip), handMean(table, []int32{5, 6}, skip); a[0] == b[0] {
		t.Fatal("test table too regular")
	}
}

func TestEmbedIDsOnlySpecialsGivesZeroVector(t *testing.T) {
	e, err := New(randomTable(8, 5, 2), []int32{0, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.EmbedIDs([][]int32{{2, 3}, {2, 0, 3}})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		for j, x := range v {
			if x != 0 {
				t.Fatalf("sequence %d value %d is %v, want 0", i, j, x)
			}
		}
	}
}

func TestEmbedIDsBadInput(t *testing.T) {
	e, err := New(randomTable(8, 5, 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ids  [][]int32
		want string
	}{
		{[][]int32{{1}, {}}, "sequence 1 has no ids"},
		{[][]int32{{1, 8}}, "sequence 0 position 1: token id 8 is outside the vocabulary [0, 8)"},
		{[][]int32{{1}, {2, 3, -1}}, "sequence 1 position 2: token id -1"},
	}
	for _, tc := range tests {
		_, err := e.EmbedIDs(tc.ids)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("EmbedIDs(%v) = %v, want an error containing %q", tc.ids, err, tc.want)
		}
	}
	if _, err := (&Embedder{}).EmbedIDs([][]int32{{1}}); err == nil {
		t.Error("zero Embedder: no error")
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		table *tensor.Tensor
		skip  []int32
		want  string
	}{
		{nil, nil, "shape [vocabulary size, dims], got []"},
		{tensor.New(4), nil, "got [4]"},
		{tensor.New(4, 0), nil, "got [4 0]"},
		{&tensor.Tensor{Shape: []int{2, 2}, Data: make([]float32, 3)}, nil, "holds 3 values"},
		{tensor.New(4, 2), []int32{4}, "skipped token id 4 is outside"},
	}
	for _, tc := range tests {
		_, err := New(tc.table, tc.skip)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%v) = %v, want an error containing %q", tc.table, err, tc.want)
		}
	}
}

func saveTestModel(t *testing.T, dt safetensors.DType) (string, *tensor.Tensor) {
	t.Helper()
	_, tokJSON := testTokenizer(t)
	table := randomTable(len(testVocab), 6, 4)
	dir := t.TempDir()
	if err := Save(dir, table, tokJSON, Config{Source: "test", MaxLength: 8}, dt); err != nil {
		t.Fatal(err)
	}
	return dir, table
}

func TestSaveLoadRoundTrip(t *testing.T) {
	for _, dt := range []safetensors.DType{safetensors.F32, safetensors.F16} {
		t.Run(string(dt), func(t *testing.T) {
			dir, table := saveTestModel(t, dt)
			enc, cfg, err := Load(modelfiles.OSDir(dir), 0)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Dims != 6 || cfg.VocabSize != len(testVocab) || cfg.Source != "test" || cfg.DType != string(dt) || enc.MaxLength() != 8 {
				t.Fatalf("config %+v, max length %d", cfg, enc.MaxLength())
			}
			emb := enc.Embedder().(*Embedder)
			if got := fmt.Sprint(emb.Skipped()); got != "[0 2 3]" {
				t.Fatalf("skipped ids %s, want [0 2 3] ([PAD], [CLS], [SEP])", got)
			}
			for i, want := range table.Data {
				got := emb.table[i]
				if dt == safetensors.F32 && got != want || math.Abs(float64(got-want)) > 1e-3*math.Abs(float64(want))+1e-7 {
					t.Fatalf("table value %d is %v after the round trip, want %v", i, got, want)
				}
			}
			// The whole pipeline: text -> ids -> mean of the stored rows.
			texts := []string{"The big red cats", "", "a dog running up a tree, a dog running up a tree"}
			vecs, truncated, err := enc.Encode(texts)
			if err != nil {
				t.Fatal(err)
			}
			if truncated != 1 {
				t.Errorf("%d texts truncated, want 1 (max length 8)", truncated)
			}
			ids, _ := enc.Tokenize(texts)
			if fmt.Sprint(ids[0]) != "[2 5 13 14 6 11 3]" {
				t.Fatalf("ids %v", ids[0])
			}
			stored := &tensor.Tensor{Shape: table.Shape, Data: emb.table}
			skip := map[int32]bool{0: true, 2: true, 3: true}
			for i := range texts {
				closeTo(t, texts[i], vecs[i], handMean(stored, ids[i], skip))
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	_, tokJSON := testTokenizer(t)
	vocab := len(testVocab)
	// write builds a model directory from the given tensors and config
	// edits, with a fingerprint matching the weights unless edit changes it.
	write := func(t *testing.T, tensors tensor.Set, edit func(map[string]any)) string {
		dir := t.TempDir()
		var b bytes.Buffer
		if err := safetensors.Write(&b, tensors, safetensors.F32, nil); err != nil {
			t.Fatal(err)
		}
		cfg := map[string]any{"model_type": "static", "dims": 6, "vocab_size": vocab, "normalize": true, "fingerprint": Fingerprint(b.Bytes())}
		if edit != nil {
			edit(cfg)
		}
		cj, _ := json.Marshal(cfg)
		for name, data := range map[string][]byte{WeightsFile: b.Bytes(), TokenizerFile: tokJSON, ConfigFile: cj} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	good := tensor.Set{TensorName: randomTable(vocab, 6, 5)}
	tests := []struct {
		name    string
		tensors tensor.Set
		edit    func(map[string]any)
		want    string
	}{
		{"wrong dims", good, func(c map[string]any) { c["dims"] = 8 },
			fmt.Sprintf(`tensor "embeddings" has shape [%d 6], expected [%d 8]`, vocab, vocab)},
		{"missing tensor", tensor.Set{"table": randomTable(vocab, 6, 5)}, nil,
			fmt.Sprintf(`tensor "embeddings" is missing (expected shape [%d 6])`, vocab)},
		{"vocabulary mismatch", tensor.Set{TensorName: randomTable(vocab+1, 6, 5)}, func(c map[string]any) { c["vocab_size"] = vocab + 1 },
			fmt.Sprintf("vocab_size is %d but tokenizer.json has %d tokens", vocab+1, vocab)},
		{"fingerprint", good, func(c map[string]any) { c["fingerprint"] = "abc" },
			`records fingerprint "abc"; the files do not belong together`},
		{"model type", good, func(c map[string]any) { c["model_type"] = "bert" }, `model_type is "bert", expected "static"`},
		{"zero dims", good, func(c map[string]any) { c["dims"] = 0 }, "dims is 0, expected a positive dimension"},
		{"not normalised", good, func(c map[string]any) { c["normalize"] = false }, "normalize is false"},
		{"bad json", good, func(c map[string]any) { c["dims"] = "six" }, "config.json: json: cannot unmarshal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := write(t, tc.tensors, tc.edit)
			_, _, err := Load(modelfiles.OSDir(dir), 0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, _, err := Load(modelfiles.OSDir(t.TempDir()), 0); err == nil {
		t.Error("Load of an empty directory: no error")
	}
}

func TestIsModelDir(t *testing.T) {
	dir, _ := saveTestModel(t, safetensors.F32)
	if ok, err := IsModelDir(modelfiles.OSDir(dir)); !ok || err != nil {
		t.Errorf("IsModelDir(static) = %v, %v", ok, err)
	}
	bertDir := t.TempDir()
	os.WriteFile(filepath.Join(bertDir, ConfigFile), []byte(`{"model_type":"bert"}`), 0o644)
	if ok, err := IsModelDir(modelfiles.OSDir(bertDir)); ok || err != nil {
		t.Errorf("IsModelDir(bert) = %v, %v", ok, err)
	}
	if _, err := IsModelDir(modelfiles.OSDir(t.TempDir())); err == nil {
		t.Error("IsModelDir(empty dir): no error")
	}
}

// tinyBERT returns a small random BERT for distillation tests.
func tinyBERT(t testing.TB, vocab int) *bert.Model {
	t.Helper()
	c := modelfiles.Config{VocabSize: vocab, HiddenSize: 8, NumHiddenLayers: 2, NumAttentionHeads: 2,
		IntermediateSize: 12, HiddenAct: "gelu", MaxPositionEmbeddings: 16, TypeVocabSize: 2, LayerNormEps: 1e-12}
	s := berttest.Weights(berttest.Sizes{Vocab: c.VocabSize, Hidden: c.HiddenSize, Layers: c.NumHiddenLayers,
		Intermediate: c.IntermediateSize, Positions: c.MaxPositionEmbeddings, TypeVocab: c.TypeVocabSize}, 5, 6, "")
	m, err := bert.New(c, s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDistillIsDeterministic(t *testing.T) {
	_, tokJSON := testTokenizer(t)
	var files [2]map[string][]byte
	for run := range files {
		m := tinyBERT(t, len(testVocab))
		m.SetThreads(1 + run) // thread count must not change the bits
		calls := 0
		table, err := Distill(m, DistillOptions{Vocab: len(testVocab), Dims: 4, Prefix: []int32{2}, Suffix: []int32{3}, BatchSize: 5,
			Progress: func(done, total int) { calls++ }})
		if err != nil {
			t.Fatal(err)
		}
		if calls != 5 {
			t.Errorf("progress called %d times, want 5 (24 ids in batches of 5)", calls)
		}
		dir := t.TempDir()
		if err := Save(dir, table, tokJSON, Config{Source: "tiny", Recipe: Recipe}, safetensors.F32); err != nil {
			t.Fatal(err)
		}
		files[run] = map[string][]byte{}
		for _, name := range []string{ConfigFile, WeightsFile, TokenizerFile} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			files[run][name] = b
		}
		if _, _, err := Load(modelfiles.OSDir(dir), 0); err != nil {
			t.Fatalf("distilled model does not load: %v", err)
		}
	}
	for name, b := range files[0] {
		if !bytes.Equal(b, files[1][name]) {
			t.Errorf("%s differs between two distillations", name)
		}
	}
}

// fakeForwarder returns fixed hidden states: row t of sequence [p, id, s]
// is hidden[id] shifted by t.
type fakeForwarder struct{ hidden [][]float64 }

func (f fakeForwarder) Forward(seqs [][]int32) ([][]float32, error) {
	var out [][]float32
	for _, s := range seqs {
		var h []float32
		for t := range s {
			for _, v := range f.hidden[s[1]] {
				h = append(h, float32(v+float64(t)))
			}
		}
		out = append(out, h)
	}
	return out, nil
}

func TestDistillPCA(t *testing.T) {
	const n, hidden = 40, 5
	r := rand.New(rand.NewPCG(7, 8))
	f := fakeForwarder{}
	for i := 0; i < n; i++ {
		row := make([]float64, hidden)
		for j := range row { // decreasing variance by column, correlated
			row[j] = r.NormFloat64() * float64(hidden-j)
		}
		row[1] += 0.5 * row[0]
		f.hidden = append(f.hidden, row)
	}
	o := DistillOptions{Vocab: n, Dims: hidden, Prefix: []int32{0}, Suffix: []int32{0}, SIFCoefficient: -1}
	y, err := Distill(f, o)
	if err != nil {
		t.Fatal(err)
	}
	// With all components kept and no weighting, the projection is a
	// rotation of the centred token vectors (mean of the three rows is
	// hidden[id] + 1): distances between rows are preserved, columns have
	// mean 0, are uncorrelated and have decreasing variance.
	col := func(k int) []float64 {
		c := make([]float64, n)
		for i := range c {
			c[i] = float64(y.Data[i*hidden+k])
		}
		return c
	}
	dot := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	prevVar := math.Inf(1)
	for k := 0; k < hidden; k++ {
		c := col(k)
		if m := sum(c) / n; math.Abs(m) > 1e-4 {
			t.Errorf("component %d has mean %v, want 0", k, m)
		}
		v := dot(c, c) / (n - 1)
		if v > prevVar*(1+1e-6) {
			t.Errorf("component %d variance %v exceeds the previous %v", k, v, prevVar)
		}
		prevVar = v
		for l := 0; l < k; l++ {
			if cv := dot(c, col(l)) / (n - 1); math.Abs(cv) > 1e-3 {
				t.Errorf("components %d and %d have covariance %v, want 0", k, l, cv)
			}
		}
	}
	for _, p := range [][2]int{{0, 1}, {3, 17}, {38, 39}} {
		var dx, dy float64
		for j := 0; j < hidden; j++ {
			d := f.hidden[p[0]][j] - f.hidden[p[1]][j]
			dx += d * d
			e := float64(y.Data[p[0]*hidden+j] - y.Data[p[1]*hidden+j])
			dy += e * e
		}
		if math.Abs(math.Sqrt(dx)-math.Sqrt(dy)) > 1e-4*math.Sqrt(dx) {
			t.Errorf("distance between %v is %v after PCA, %v before", p, math.Sqrt(dy), math.Sqrt(dx))
		}
	}

	// SIF: row r of the weighted table is the unweighted row times
	// a/(a+p(r)), p(r) = (1/(r+2)) / sum_j 1/(j+2).
	o.SIFCoefficient = 0.01
	w, err := Distill(f, o)
	if err != nil {
		t.Fatal(err)
	}
	z := 0.0
	for j := 0; j < n; j++ {
		z += 1 / float64(j+2)
	}
	for _, row := range []int{0, 1, 20, 39} {
		p := 1 / float64(row+2) / z
		want := 0.01 / (0.01 + p)
		for k := 0; k < hidden; k++ {
			got := float64(w.Data[row*hidden+k]) / float64(y.Data[row*hidden+k])
			if math.Abs(got-want) > 1e-5 {
				t.Fatalf("row %d component %d weighted by %v, want %v", row, k, got, want)
			}
		}
	}
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

func TestDistillErrors(t *testing.T) {
	f := fakeForwarder{hidden: make([][]float64, 10)}
	for i := range f.hidden {
		f.hidden[i] = make([]float64, 4)
		f.hidden[i][i%4] = 1
	}
	tests := []struct {
		o    DistillOptions
		want string
	}{
		{DistillOptions{Vocab: 10, Dims: 5, Prefix: []int32{0}, Suffix: []int32{0}}, "dims 5 exceeds the model's hidden size 4"},
		{DistillOptions{Vocab: 10, Limit: 3, Dims: 3, Prefix: []int32{0}}, "PCA to 3 dims needs more than 3 token vectors, have 3"},
		{DistillOptions{Vocab: 10, Dims: 0}, "dims 0 is not positive"},
		{DistillOptions{Vocab: 0, Dims: 2}, "vocabulary size 0"},
		{DistillOptions{Vocab: 10, Limit: -1, Dims: 2}, "limit -1 is negative"},
	}
	for _, tc := range tests {
		_, err := Distill(f, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Distill(%+v) = %v, want an error containing %q", tc.o, err, tc.want)
		}
	}
}

// TestEmbedIDsSameBitsEverywhere checks the vectors of a fixed random table
// against testdata/embed.sha256, written natively: under js/wasm (and any
// other platform) the static model must give the same bits. Regenerate
// with DREVAL_WRITE_GOLDEN=1 after a deliberate change.
func TestEmbedIDsSameBitsEverywhere(t *testing.T) {
	e, err := New(randomTable(500, 32, 11), []int32{0, 101, 102})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(12, 13))
	ids := make([][]int32, 200)
	for i := range ids {
		ids[i] = []int32{101}
		for j := 0; j < 1+r.IntN(40); j++ {
			ids[i] = append(ids[i], int32(r.IntN(500)))
		}
		ids[i] = append(ids[i], 102)
	}
	vecs, err := e.EmbedIDs(ids)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, v := range vecs {
		for _, x := range v {
			binary.Write(h, binary.LittleEndian, math.Float32bits(x))
		}
	}
	got := hex.EncodeToString(h.Sum(nil))
	path := filepath.Join("testdata", "embed.sha256")
	if os.Getenv("DREVAL_WRITE_GOLDEN") == "1" {
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != strings.TrimSpace(string(want)) {
		t.Errorf("vectors hash to %s, %s holds %s", got, path, strings.TrimSpace(string(want)))
	}
}

// FuzzParseConfig checks that any config.json is either refused or gives a
// config Load can use.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"model_type":"static","dims":256,"vocab_size":30522,"normalize":true,"fingerprint":"ab"}`))
	f.Add([]byte(`{"model_type":"static","dims":-1}`))
	f.Add([]byte(`{"model_type":"bert"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseConfig(b, "config.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "config.json: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if c.ModelType != ModelType || c.Dims < 1 || c.VocabSize < 1 || !c.Normalize || c.MaxLength < 0 {
			t.Fatalf("accepted %+v", c)
		}
	})
}

// TestLoadUsesKnownDigest: where the file system knows the weights'
// SHA-256 (the browser's files, memfs.PutWithSHA256), Load checks the
// config's fingerprint against it: the right digest loads the table the
// file holds (read in place, without a copy of the file), a wrong one is
// refused as a mismatch.
func TestLoadUsesKnownDigest(t *testing.T) {
	dir, table := saveTestModel(t, safetensors.F32)
	for _, c := range []struct {
		name string
		sum  func(weights []byte) string
		ok   bool
	}{
		{"right", Fingerprint, true},
		{"wrong", func([]byte) string { return strings.Repeat("0", 64) }, false},
	} {
		var m memfs.FS
		for _, f := range []string{ConfigFile, TokenizerFile, WeightsFile} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if f == WeightsFile {
				err = m.PutWithSHA256("m/"+f, b, c.sum(b))
			} else {
				err = m.Put("m/"+f, b)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		enc, _, err := Load(modelfiles.FSDir(&m, "m"), 0)
		if c.ok && err != nil {
			t.Errorf("%s digest: %v", c.name, err)
		}
		if c.ok && err == nil {
			got := enc.Embedder().(*Embedder).table
			if !slices.Equal(got, table.Data) {
				t.Errorf("%s digest: the table read from memory differs from the one saved", c.name)
			}
		}
		if !c.ok && (err == nil || !strings.Contains(err.Error(), "do not belong together")) {
			t.Errorf("%s digest: error %v, want the fingerprint mismatch", c.name, err)
		}
	}
}
