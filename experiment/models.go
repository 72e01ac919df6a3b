package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/modelfiles"
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
			return OpenDense(name, o.Dir(o.join(o.ModelsDir, name)), o)
		})
	}
	r.Register("bm25", func(ctx context.Context, name string, o ModelOptions) (*Model, error) {
		path := o.BM25Tokenizer
		if path == "" {
			path = o.join(o.ModelsDir, "minilm", "tokenizer.json")
		}
		tok, err := o.tokenizer(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: BM25 perturbs queries through a tokenizer; install minilm (\"dreval model get minilm\" or \"make setup\")", err)
		}
		if err != nil {
			return nil, err
		}
		return OpenBM25(name, tok, o.Analyzer)
	})
	r.RegisterDir(func(ctx context.Context, dir string, o ModelOptions) (*Model, error) {
		return OpenDense(o.base(dir), o.Dir(dir), o)
	})
	return r
}

// Dir returns the model directory dir: in o.Files when it is set, else on
// disk.
func (o ModelOptions) Dir(dir string) modelfiles.Dir {
	if o.Files != nil {
		return modelfiles.FSDir(o.Files, dir)
	}
	return modelfiles.OSDir(dir)
}

// join joins path elements as paths of o.Files (slash-separated) or of
// the disk.
func (o ModelOptions) join(elem ...string) string {
	if o.Files != nil {
		return path.Join(elem...)
	}
	return filepath.Join(elem...)
}

// base returns the last element of dir.
func (o ModelOptions) base(dir string) string {
	if o.Files != nil {
		return path.Base(path.Clean(dir))
	}
	return filepath.Base(filepath.Clean(dir))
}

// isDir reports whether name is a directory of o's files.
func (o ModelOptions) isDir(name string) bool {
	var fi fs.FileInfo
	var err error
	if o.Files != nil {
		fi, err = fs.Stat(o.Files, path.Clean(name))
	} else {
		fi, err = os.Stat(name)
	}
	return err == nil && fi.IsDir()
}

// tokenizer loads the tokenizer at file, a file or a model folder in
// any layout tokenizer.LoadFS reads (in o.Files, or on disk).
func (o ModelOptions) tokenizer(file string) (*tokenizer.Tokenizer, error) {
	if o.Files == nil {
		return tokenizer.Load(file)
	}
	return tokenizer.LoadFS(o.Files, file)
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

// OpenBM25 returns the lexical model name: BM25 with the tokenizer tok
// (for perturbing and decoding query ids) and the analyser "wordpiece"
// (its tokens; "" too), "words" (lower-cased words) or "bigram" (CJK
// character bigrams, retrieval.BigramAnalyzer; the decoded query's spaces
// between CJK characters are removed first, see JoinCJK).
func OpenBM25(name string, tok *tokenizer.Tokenizer, analyzer Analyzer) (*Model, error) {
	m := &Model{Name: name, Kind: Lexical, Towers: 1}
	m.Query.Tokenizer = HFTokenizer{Tokenizer: tok}
	m.Document.Tokenizer = m.Query.Tokenizer
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

// EncoderTokenizer is a dense model's side tokenizing as its encoder
// does (encoder.Encoder.EncodeIDs: the side's prompt and lower-casing
// applied, truncated to its maximum length) and otherwise its tokenizer.
type EncoderTokenizer struct {
	*encoder.Encoder
}

// EncodeIDs implements Tokenizer.
func (t EncoderTokenizer) EncodeIDs(text string) []int32 { return t.Encoder.EncodeIDs(text) }

// VocabSize implements perturb.Vocabulary.
func (t EncoderTokenizer) VocabSize() int { return t.Tokenizer().VocabSize() }

// IsSpecial implements perturb.Vocabulary.
func (t EncoderTokenizer) IsSpecial(id int32) bool { return t.Tokenizer().IsSpecial(id) }

// PadID implements perturb.Vocabulary.
func (t EncoderTokenizer) PadID() int32 { return t.Tokenizer().PadID() }

// Decode implements perturb.Vocabulary.
func (t EncoderTokenizer) Decode(ids []int32, skipSpecial bool) string {
	return t.Tokenizer().Decode(ids, skipSpecial)
}

// Fingerprint implements Tokenizer: the tokenizer's own (package
// tokenizer's Fingerprint).
func (t EncoderTokenizer) Fingerprint() string { return t.Tokenizer().Fingerprint() }

// Swapped implements Swapper: the same side with the tokenizer's pairs of
// vocabulary entries swapped.
func (t EncoderTokenizer) Swapped(pairs [][2]int32) (Tokenizer, error) {
	bad, err := t.Tokenizer().WithSwappedTokens(pairs)
	if err != nil {
		return nil, err
	}
	e, err := t.Encoder.WithTokenizer(bad)
	if err != nil {
		return nil, err
	}
	return EncoderTokenizer{e}, nil
}

// OpenDense opens the dense retriever in d (a BERT-family or static model
// folder, or a two-tower folder with a dreval.json: engine.OpenRetriever)
// with the engine o.Engine ("auto", "go" or "ort"), its score and prompts
// overridden as o says; when auto does not use ONNX Runtime, the reason is
// in the model's Notes.
func OpenDense(name string, d modelfiles.Dir, o ModelOptions) (*Model, error) {
	r, err := engine.OpenRetriever(d, engine.RetrieverOptions{
		Options: engine.Options{Engine: string(o.Engine), ORTLibrary: o.OrtLibrary, External: o.External, Encoder: transformer.Options{Threads: o.EncoderThreads}},
		Score:   o.Score, QueryPrompt: o.QueryPrompt, DocumentPrompt: o.DocumentPrompt,
	})
	if err != nil {
		return nil, err
	}
	m, err := DenseFromRetriever(name, r)
	if err != nil {
		r.Close()
		return nil, err
	}
	return m, nil
}

// DenseFromRetriever returns the dense model name made of the opened
// retriever r (engine.OpenRetriever), as OpenDense makes it: its towers,
// score and fingerprints, with Close closing r. "dreval encode" opens the
// retriever itself (with its encoder options) and takes the fingerprints
// its shard metadata records from here, so that they are the ones "dreval
// eval" checks. On an error r is left open.
func DenseFromRetriever(name string, r *engine.Retriever) (*Model, error) {
	m := &Model{
		Name:      name,
		Kind:      Dense,
		Engine:    r.DocumentInfo.Engine,
		Score:     r.Score,
		ScoreFrom: r.ScoreFrom,
		Towers:    r.Towers,
		BatchSize: 32,
		Close:     r.Close,
	}
	m.Notes = append(m.Notes, "engine "+r.DocumentInfo.String())
	if r.Towers > 1 {
		m.Notes = append(m.Notes, "query tower engine "+r.QueryInfo.String())
	}
	m.Notes = append(m.Notes, fmt.Sprintf("score %s (%s)", r.Score, r.ScoreFrom))
	// Both towers of a one-folder model digest the same files once (the
	// weights' SHA-256 is the costly part of opening a model in the
	// browser: 0.7 s for the static model's 31 MB under js/wasm).
	digests := map[string]string{}
	var err error
	if m.Query, err = openTower(name, r.QueryDir, r.Query, r.QueryInfo, digests); err != nil {
		return nil, err
	}
	if m.Document, err = openTower(name, r.DocumentDir, r.Document, r.DocumentInfo, digests); err != nil {
		return nil, err
	}
	m.Fingerprint = modelFingerprint(m)
	return m, nil
}

// modelFingerprint is a dense model's fingerprint: its name, its engine,
// both towers' fingerprints and its score.
func modelFingerprint(m *Model) string {
	return safeKey(m.Name) + "-" + m.Engine + "-" + digest(m.Query.Fingerprint, m.Document.Fingerprint, string(m.Score))[:24]
}

// WithEngine returns a copy of the dense model m whose embeddings come
// from engine (say "ort" where they are computed by another process's
// ONNX Runtime, such as "dreval serve"): its towers' engine names and
// fingerprints and its own are what OpenDense gives the same model
// files opened with that engine, so that corpus vectors are stored and
// found under the engine that made them. The embedders are m's; the
// caller replaces them.
func (m *Model) WithEngine(engine string) (*Model, error) {
	if m.Kind != Dense {
		return nil, fmt.Errorf("model %s is not a dense model", m.Name)
	}
	cp := *m
	for _, t := range []*Tower{&cp.Query, &cp.Document} {
		if t.fingerprint == nil {
			return nil, fmt.Errorf("model %s: its %s tower was not opened by OpenDense", m.Name, t.Dir)
		}
		t.Engine = engine
		t.Fingerprint = t.fingerprint(engine)
	}
	cp.Engine = engine
	cp.Fingerprint = modelFingerprint(&cp)
	return &cp, nil
}

// openTower describes one side of a retriever as a Tower. Its fingerprint
// covers the files that make the vectors (every file a load reads but the
// tokenizer's, modelfiles.ToLoad: the configuration, the weights,
// sentence-transformers' modules and settings), the prompt, the
// truncation length and the engine (engines differ in the last float
// bits), not the tokenizer: a changed tokenizer must meet the stored
// corpus vectors and be caught by the fingerprint check.
//
// digests keeps the digests computed so far, by folder: a tower of a
// folder already digested reuses its digest.
func openTower(name string, d modelfiles.Dir, e *encoder.Encoder, info engine.Info, digests map[string]string) (Tower, error) {
	all, err := modelfiles.ModelFiles(d)
	if err != nil {
		return Tower{}, err
	}
	var files []string
	for _, f := range modelfiles.ToLoad(all) {
		if path.Base(f) != "tokenizer.json" {
			files = append(files, f)
		}
	}
	key := d.Name() + "\x00" + strings.Join(files, "\x00")
	wfp, ok := digests[key]
	if !ok {
		if wfp, err = fileDigest(d, files...); err != nil {
			return Tower{}, err
		}
		digests[key] = wfp
	}
	fingerprint := func(engine string) string {
		parts := []string{wfp, strconv.Itoa(e.MaxLength()), engine}
		if e.Prompt() != "" {
			parts = append(parts, "prompt", e.Prompt())
		}
		return safeKey(name) + "-" + engine + "-" + digest(parts...)[:24]
	}
	t := Tower{
		Tokenizer:   EncoderTokenizer{e},
		Embedder:    e.Embedder(),
		Fingerprint: fingerprint(info.Engine),
		fingerprint: fingerprint,
		Engine:      info.Engine,
		Dir:         d.Name(),
		Prompt:      e.Prompt(),
		MaxLength:   e.MaxLength(),
		Description: e.Describe(),
	}
	return t, nil
}

// fileDigest returns the hex SHA-256 over the named files of d: each
// file's base name and the hex SHA-256 of its contents. A digest the
// directory's file system already knows is used as it is
// (modelfiles.Dir.SHA256, KnownSHA256: the browser's files carry the browser's
// native SHA-256 of a download), so the page does not hash a model's
// weights again in Go (half a second for 30 MB under js/wasm); both ways
// give the same fingerprint.
func fileDigest(d modelfiles.Dir, files ...string) (string, error) {
	h := sha256.New()
	for _, name := range files {
		sum, err := d.SHA256(name)
		if err != nil {
			return "", err
		}
		writeField(h, path.Base(name))
		writeField(h, sum)
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
