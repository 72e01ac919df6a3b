package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

// passages reads the passage texts of the named shared collections.
func passages(b *testing.B, names ...string) []string {
	b.Helper()
	var out []string
	for _, name := range names {
		p := filepath.Join(sharedtest.Path(b, "data/"+name), "corpus.jsonl")
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var d struct{ Text string }
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				b.Fatalf("%s: %v", p, err)
			}
			out = append(out, d.Text)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// BenchmarkTokenize encodes every passage of the shared collections with
// the MiniLM tokenizer (no truncation) and reports tokens/s on one core.
func BenchmarkTokenize(b *testing.B) {
	tk := minilm(b)
	for _, c := range []struct {
		name  string
		names []string
	}{
		{"en", []string{"cranfield", "vaswani-npl", "cacm", "squad-v1.1-dev", "hotpotqa-dev-100"}},
		{"zh", []string{"dureader-demo-zh"}},
	} {
		texts := passages(b, c.names...)
		var size int64
		for _, s := range texts {
			size += int64(len(s))
		}
		b.Run(c.name+"/AppendIDs", func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			var ids []int32
			tokens := 0
			for b.Loop() {
				for _, s := range texts {
					ids = tk.AppendIDs(ids[:0], s)
					tokens += len(ids)
				}
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
		b.Run(c.name+"/Encode", func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			tokens := 0
			o := Options{AddSpecial: true}
			for b.Loop() {
				for _, s := range texts {
					tokens += len(tk.EncodeWith(s, o).IDs)
				}
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkFamilies encodes the English passages of the shared collections
// with a tokenizer of each family and reports tokens/s on one core: BERT's
// WordPiece (MiniLM), byte-level BPE (roberta-base), SentencePiece-style BPE
// with byte fallback (LLaMA-2's tokenizer.json), Unigram (ALBERT as Hugging
// Face converts it), and SentencePiece's own Unigram (ALBERT's .model) and
// BPE (testdata/spm-bpe.model).
func BenchmarkFamilies(b *testing.B) {
	texts := passages(b, "cranfield", "vaswani-npl", "cacm", "squad-v1.1-dev", "hotpotqa-dev-100")
	var size int64
	for _, s := range texts {
		size += int64(len(s))
	}
	for _, c := range []struct {
		name string
		tk   func() *Tokenizer
	}{
		{"wordpiece", func() *Tokenizer { return minilm(b) }},
		{"bpe-bytelevel", func() *Tokenizer { return base(b, "roberta") }},
		{"bpe-sentencepiece", func() *Tokenizer { return base(b, "llama2") }},
		{"unigram", func() *Tokenizer { return base(b, "albert-hf") }},
		{"spm-unigram", func() *Tokenizer { return loadSPM(b, "albert") }},
		{"spm-bpe", func() *Tokenizer { return loadSPM(b, "spm-bpe") }},
	} {
		b.Run(c.name, func(b *testing.B) {
			tk := c.tk()
			b.SetBytes(size)
			b.ReportAllocs()
			var ids []int32
			tokens := 0
			for b.Loop() {
				for _, s := range texts {
					ids = tk.AppendIDs(ids[:0], s)
					tokens += len(ids)
				}
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkFromJSON reads MiniLM's tokenizer.json (skipped when MiniLM is
// not installed; 466 KB, a WordPiece vocabulary of 30,522 tokens), as
// every browser worker does when it opens the static model or MiniLM.
// Under js/wasm: GOOS=js GOARCH=wasm go test ./encoder/tokenizer -exec
// "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" -run '^$' -bench FromJSON.
func BenchmarkFromJSON(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(sharedtest.ModelDir(b, "minilm"), "tokenizer.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := FromJSON(bytes.NewReader(data), "tokenizer.json"); err != nil {
			b.Fatal(err)
		}
	}
}
