package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/retrieval"
)

// DefaultRegistry returns a registry of the models dreval knows:
//
//   - "minilm": all-MiniLM-L6-v2 installed in ModelOptions.ModelsDir
//     ("dreval model get minilm");
//   - "bm25": BM25 over the minilm tokenizer's WordPiece tokens (or plain
//     lower-cased words, ModelOptions.Analyzer "words"); the tokenizer is
//     needed to perturb query ids, so minilm's tokenizer.json must be
//     installed;
//   - any directory holding config.json, tokenizer.json and safetensors
//     weights: a BERT-family dense model, named by the directory.
func DefaultRegistry() *Registry {
	r := NewRegistry()
	r.Register("minilm", func(ctx context.Context, name string, o ModelOptions) (*Model, error) {
		return OpenDense(name, filepath.Join(o.ModelsDir, "minilm"), o)
	})
	r.Register("bm25", func(ctx context.Context, name string, o ModelOptions) (*Model, error) {
		return OpenBM25(name, filepath.Join(o.ModelsDir, "minilm", "tokenizer.json"), o.Analyzer)
	})
	r.RegisterDir(func(ctx context.Context, dir string, o ModelOptions) (*Model, error) {
		return OpenDense(filepath.Base(filepath.Clean(dir)), dir, o)
	})
	return r
}

// HFTokenizer wraps a *tokenizer.Tokenizer as an experiment Tokenizer that
// truncates to MaxLength ids (special tokens included; 0: no limit).
type HFTokenizer struct {
	*tokenizer.Tokenizer
	MaxLength int
}

// EncodeIDs implements Tokenizer.
func (t HFTokenizer) EncodeIDs(text string) []int32 {
	return t.EncodeWith(text, tokenizer.Options{AddSpecial: true, MaxLength: t.MaxLength}).IDs
}

// Swapped implements Swapper.
func (t HFTokenizer) Swapped(pairs [][2]int32) (Tokenizer, error) {
	bad, err := t.WithSwappedTokens(pairs)
	if err != nil {
		return nil, err
	}
	return HFTokenizer{Tokenizer: bad, MaxLength: t.MaxLength}, nil
}

// WordPieceAnalyzer returns the analyser that indexes text as tok's
// tokens (special tokens left out, no truncation).
func WordPieceAnalyzer(tok *tokenizer.Tokenizer) func(string) []string {
	return func(text string) []string {
		return tok.EncodeWith(text, tokenizer.Options{}).Tokens
	}
}

// OpenBM25 returns the lexical model name: BM25 with the tokenizer at
// tokenizerPath (for perturbing and decoding query ids) and the analyser
// "wordpiece" (its tokens; "" too) or "words" (lower-cased words).
func OpenBM25(name, tokenizerPath, analyzer string) (*Model, error) {
	tok, err := tokenizer.Load(tokenizerPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: BM25 perturbs queries through a tokenizer; install minilm (\"dreval model get minilm\" or \"make setup\")", err)
		}
		return nil, err
	}
	m := &Model{Name: name, Kind: Lexical, Tokenizer: HFTokenizer{Tokenizer: tok}}
	switch analyzer {
	case "", "wordpiece":
		m.Analyzer, m.AnalyzerName = WordPieceAnalyzer(tok), "wordpiece"
	case "words":
		m.Analyzer, m.AnalyzerName = retrieval.WordAnalyzer, "words"
	default:
		return nil, fmt.Errorf("unknown BM25 analyser %q: want wordpiece or words", analyzer)
	}
	m.Fingerprint = "bm25-" + m.AnalyzerName + "-" + tok.Fingerprint()
	return m, nil
}

// OpenDense opens the BERT-family model in dir with the engine
// o.Engine: "go" (pure Go), "ort" (ONNX Runtime; the ONNX graph is
// exported from the safetensors weights into o.CacheDir on first use) or
// "auto" (ort when it can run here, else go; the reason is in the
// model's Notes).
func OpenDense(name, dir string, o ModelOptions) (*Model, error) {
	enc, err := encoder.Load(dir, encoder.Options{})
	if err != nil {
		return nil, err
	}
	bertEmb, ok := enc.Embedder().(*encoder.BERT)
	if !ok {
		return nil, fmt.Errorf("%s: unexpected embedder %T", dir, enc.Embedder())
	}
	weights, err := weightFile(dir)
	if err != nil {
		return nil, err
	}
	wfp, err := fileDigest(filepath.Join(dir, "config.json"), weights)
	if err != nil {
		return nil, err
	}
	m := &Model{
		Name:      name,
		Kind:      Dense,
		Tokenizer: HFTokenizer{Tokenizer: enc.Tokenizer(), MaxLength: enc.MaxLength()},
		Embedder:  bertEmb,
		Engine:    "go",
		BatchSize: 32,
	}
	switch o.Engine {
	case "go":
	case "ort", "auto", "":
		emb, err := openORT(dir, weights, wfp, bertEmb.Pooling, o)
		switch {
		case err == nil:
			m.Embedder, m.Engine = emb, "ort"
			m.Close = emb.Close
		case o.Engine == "ort":
			return nil, err
		default:
			m.Notes = append(m.Notes, "engine go (ONNX Runtime unavailable: "+err.Error()+")")
		}
	default:
		return nil, fmt.Errorf("unknown engine %q: want auto, go or ort", o.Engine)
	}
	// The fingerprint covers the weights, the settings that change the
	// vectors and the engine (engines differ in the last float bits), not
	// the tokenizer: a changed tokenizer must meet the stored corpus
	// vectors and be caught by the fingerprint check.
	m.Fingerprint = name + "-" + m.Engine + "-" + digest(wfp, string(bertEmb.Pooling), strconv.Itoa(enc.MaxLength()), m.Engine)[:24]
	return m, nil
}

// openORT returns an ONNX Runtime embedder for the model in dir, exporting
// its ONNX graph to o.CacheDir/onnx/<weights digest>.onnx when missing.
func openORT(dir, weights, wfp string, pooling encoder.Pooling, o ModelOptions) (*ort.Embedder, error) {
	if err := ort.Available(o.OrtLibrary); err != nil {
		return nil, err
	}
	if o.CacheDir == "" {
		return nil, errors.New("no cache directory for the exported ONNX graph")
	}
	path := filepath.Join(o.CacheDir, "onnx", wfp[:32]+".onnx")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := exportONNX(dir, weights, path); err != nil {
			return nil, err
		}
	}
	emb, err := ort.New(path, o.OrtLibrary, 0)
	if err != nil {
		return nil, err
	}
	emb.Pooling = pooling
	return emb, nil
}

func exportONNX(dir, weights, path string) error {
	cfgPath := filepath.Join(dir, "config.json")
	f, err := os.Open(cfgPath)
	if err != nil {
		return err
	}
	cfg, err := bert.ReadConfig(f, cfgPath)
	f.Close()
	if err != nil {
		return err
	}
	st, err := safetensors.ReadFile(weights)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := onnx.WriteFile(tmp, st.Tensors, cfg, onnx.ExportOptions{ProducerVersion: "dreval"}); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("exporting %s to ONNX: %w", dir, err)
	}
	return os.Rename(tmp, path)
}

func weightFile(dir string) (string, error) {
	for _, name := range encoder.WeightFiles {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s holds no weights (expected one of %v)", dir, encoder.WeightFiles)
}

// fileDigest returns the hex SHA-256 over the named files' contents, each
// preceded by its base name.
func fileDigest(paths ...string) (string, error) {
	h := sha256.New()
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		writeField(h, filepath.Base(p))
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		writeField(h, p)
	}
	return hex.EncodeToString(h.Sum(nil))
}
