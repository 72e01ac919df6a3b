package static

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/internal/memfs"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

// benchSentence is a Cranfield-like sentence of about 30 WordPiece tokens.
const benchSentence = "an experimental study of a wing in a propeller slipstream was made in order to determine the spanwise distribution of the lift increase"

// BenchmarkEmbedIDs reports sentences per second for the table lookup
// alone: a MiniLM-sized table (30522 x 256) and batches of 64 sentences of
// 32 random ids. It runs natively and under js/wasm (see
// scripts/bench-static.sh).
func BenchmarkEmbedIDs(b *testing.B) {
	const vocab, dims, tokens = 30522, 256, 32
	e, err := New(randomTable(vocab, dims, 9), []int32{0, 101, 102})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	ids := make([][]int32, 64)
	for i := range ids {
		ids[i] = make([]int32, tokens)
		ids[i][0], ids[i][tokens-1] = 101, 102
		for j := 1; j < tokens-1; j++ {
			ids[i][j] = int32(1000 + r.IntN(vocab-1000))
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.EmbedIDs(ids); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ids)*b.N)/b.Elapsed().Seconds(), "sentences/s")
}

// BenchmarkEncode reports sentences per second for text to vector:
// MiniLM's WordPiece tokenizer (skipped when MiniLM is not installed) and a
// 30522 x 256 table, batches of 64 sentences of about 30 tokens.
func BenchmarkEncode(b *testing.B) {
	tok, err := tokenizer.Load(filepath.Join(sharedtest.ModelDir(b, "minilm"), "tokenizer.json"))
	if err != nil {
		b.Fatal(err)
	}
	e, err := New(randomTable(tok.VocabSize(), 256, 10), SkipIDs(tok))
	if err != nil {
		b.Fatal(err)
	}
	enc, err := encoder.New(tok, e, 256)
	if err != nil {
		b.Fatal(err)
	}
	words := strings.Fields(benchSentence)
	texts := make([]string, 64)
	for i := range texts { // rotate the words so sentences differ
		k := i % len(words)
		texts[i] = strings.Join(append(append([]string{}, words[k:]...), words[:k]...), " ")
	}
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := enc.Encode(texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "sentences/s")
}

// BenchmarkLoad opens the installed static model (skipped when it is not
// installed) from memory, as the browser's workers do: the files in a
// memfs with the digests the page's SHA-256 gave, so Load reads the
// weights in place and hashes nothing. Under js/wasm:
// GOOS=js GOARCH=wasm go test ./encoder/static -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" -run '^$' -bench Load.
func BenchmarkLoad(b *testing.B) {
	dir := sharedtest.ModelDir(b, "static")
	var m memfs.FS
	for _, f := range []string{ConfigFile, TokenizerFile, WeightsFile} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			b.Fatal(err)
		}
		if err := m.PutWithSHA256("m/"+f, data, Fingerprint(data)); err != nil {
			b.Fatal(err)
		}
	}
	d := modelfiles.FSDir(&m, "m")
	for b.Loop() {
		if _, _, err := Load(d, 0); err != nil {
			b.Fatal(err)
		}
	}
}
