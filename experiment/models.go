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
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/retrieval"
)

// DefaultRegistry returns a registry of the models dreval knows:
//
//   - "minilm": all-MiniLM-L6-v2 installed in ModelOptions.ModelsDir
//     ("dreval model get minilm");
//   - "static": the static (token-table) model installed in
//     ModelsDir/static ("dreval model distill");
//   - "bm25": BM25 over the minilm tokenizer's WordPiece tokens (or plain
//     lower-cased words, ModelOptions.Analyzer "words"); the tokenizer is
//     needed to perturb query ids, so minilm's tokenizer.json must be
//     installed;
//   - any model directory (BERT-family or static), named by the directory.
//
// Dense models are opened with package engine, which picks how they run.
func DefaultRegistry() *Registry {
	r := NewRegistry()
	for _, name := range []string{"minilm", "static"} {
		r.Register(name, func(ctx context.Context, name string, o ModelOptions) (*Model, error) {
			return OpenDense(name, filepath.Join(o.ModelsDir, name), o)
		})
	}
	r.Register("bm25", func(ctx context.Context, name string, o ModelOptions) (*Model, error) {
		path := o.BM25Tokenizer
		if path == "" {
			path = filepath.Join(o.ModelsDir, "minilm", "tokenizer.json")
		}
		return OpenBM25(name, path, o.Analyzer)
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
// "wordpiece" (its tokens; "" too), "words" (lower-cased words) or
// "bigram" (CJK character bigrams, retrieval.BigramAnalyzer; the decoded
// query's spaces between CJK characters are removed first, see JoinCJK).
func OpenBM25(name, tokenizerPath string, analyzer Analyzer) (*Model, error) {
	tok, err := tokenizer.Load(tokenizerPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: BM25 perturbs queries through a tokenizer; install minilm (\"dreval model get minilm\" or \"make setup\")", err)
		}
		return nil, err
	}
	m := &Model{Name: name, Kind: Lexical, Tokenizer: HFTokenizer{Tokenizer: tok}}
	switch analyzer {
	case "", AnalyzerWordPiece:
		m.Analyzer, m.AnalyzerName = WordPieceAnalyzer(tok), string(AnalyzerWordPiece)
	case AnalyzerWords:
		m.Analyzer, m.AnalyzerName = retrieval.WordAnalyzer, string(AnalyzerWords)
	case AnalyzerBigram:
		m.Analyzer, m.AnalyzerName = retrieval.BigramAnalyzer, string(AnalyzerBigram)
	default:
		return nil, fmt.Errorf("unknown BM25 analyser %q: want wordpiece, words or bigram", analyzer)
	}
	m.Fingerprint = "bm25-" + m.AnalyzerName + "-" + tok.Fingerprint()
	return m, nil
}

// OpenDense opens the dense model in dir (BERT-family or static) with
// engine.Open and the engine o.Engine ("auto", "go" or "ort"); when auto
// does not use ONNX Runtime, the reason is in the model's Notes.
func OpenDense(name, dir string, o ModelOptions) (*Model, error) {
	em, err := engine.Open(dir, engine.Options{Engine: string(o.Engine), ORTLibrary: o.OrtLibrary})
	if err != nil {
		return nil, err
	}
	m := &Model{
		Name:      name,
		Kind:      Dense,
		Tokenizer: HFTokenizer{Tokenizer: em.Tokenizer(), MaxLength: em.MaxLength()},
		Embedder:  em.Embedder(),
		Engine:    em.Info.Engine,
		BatchSize: 32,
		Close:     em.Close,
	}
	m.Notes = append(m.Notes, "engine "+em.Info.String())
	// The fingerprint covers the files that make the vectors (weights,
	// config, pooling and length settings), the truncation length and the
	// engine (engines differ in the last float bits), not the tokenizer: a
	// changed tokenizer must meet the stored corpus vectors and be caught
	// by the fingerprint check.
	weights, err := weightFile(dir)
	if err != nil {
		em.Close()
		return nil, err
	}
	// config.json may be absent beside an ONNX graph (encoder.Load then
	// reads the configuration from the graph); the order is that of the
	// fingerprints already stored.
	var files []string
	if cfg := filepath.Join(dir, "config.json"); exists(cfg) {
		files = append(files, cfg)
	}
	files = append(files, weights)
	for _, f := range []string{filepath.Join(dir, "1_Pooling", "config.json"), filepath.Join(dir, "sentence_bert_config.json")} {
		if exists(f) {
			files = append(files, f)
		}
	}
	wfp, err := fileDigest(files...)
	if err != nil {
		em.Close()
		return nil, err
	}
	m.Fingerprint = safeKey(name) + "-" + m.Engine + "-" + digest(wfp, strconv.Itoa(em.MaxLength()), m.Engine)[:24]
	return m, nil
}

// weightFile returns the weights file encoder.Load reads in dir (a static
// model's is model.safetensors too).
func weightFile(dir string) (string, error) {
	return encoder.WeightFile(dir)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
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
