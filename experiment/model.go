package experiment

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/results"
)

// Tokenizer is what an experiment needs of a tokenizer: the ids of a text
// (special tokens included, truncated as the model needs), the vocabulary
// the perturbations and the decoded examples read, and a fingerprint that
// identifies it (sha256 of its normalised vocabulary and settings).
type Tokenizer interface {
	perturb.Vocabulary
	// EncodeIDs returns the ids the model reads for text.
	EncodeIDs(text string) []int32
	// Fingerprint identifies the tokenizer; corpus embeddings are stored
	// with it and checked against it (the poisoning defence).
	Fingerprint() string
}

// Swapper is a Tokenizer that can make a tampered copy of itself, with
// pairs of vocabulary entries swapped: what the vocabswap perturbation
// (tokenizer poisoning proper) tokenizes queries with.
type Swapper interface {
	Swapped(pairs [][2]int32) (Tokenizer, error)
}

// Kind says how a model retrieves (results.Kind).
type Kind = results.Kind

// The model kinds.
const (
	// Dense models embed queries and documents and rank by cosine.
	Dense = results.Dense
	// Lexical models (BM25) rank by term statistics over an analyser's
	// terms. Perturbed queries reach them as the decoded perturbed ids
	// (PERTURBATION.md), so every model sees the same attack.
	Lexical = results.Lexical
)

// Score is how a dense model scores a query against a document.
type Score = encoder.Similarity

// The scores.
const (
	Cosine = encoder.Cosine
	Dot    = encoder.Dot
)

// Tower is one side of a model: the tokenizer of its texts and, for a
// dense model, the embedder of their ids.
type Tower struct {
	// Tokenizer tokenizes the side's texts (with the side's prompt); the
	// perturbations act on the query tower's ids.
	Tokenizer Tokenizer
	// Embedder embeds (dense models).
	Embedder encoder.Embedder
	// Fingerprint identifies the tower's weights and settings (its
	// prompt, maximum length and engine included, its tokenizer not); the
	// document tower's keys the corpus embedding cache with the corpus
	// hash.
	Fingerprint string
	// Engine names what computes the side's embeddings ("go", "ort",
	// "static"); empty for lexical models.
	Engine string
	// Dir is the tower's folder, and Description what it does after the
	// transformer ("mean, normalized"), for the results.
	Dir, Description string
	// Prompt is put before every text of the side ("" for none).
	Prompt string
	// MaxLength is the side's truncation length in ids (0: none).
	MaxLength int
	// fingerprint returns the tower's fingerprint under another engine
	// (Model.WithEngine); nil for towers OpenDense did not open.
	fingerprint func(engine string) string
}

// Model is one retriever under evaluation: a query tower, a document
// tower and a score. A single-tower model's towers share their weights
// (and embedder), differing at most in their prompts.
type Model struct {
	// Name is the name results and run files use ("minilm", "bm25").
	Name string
	Kind Kind
	// Fingerprint identifies the whole model: both towers and the
	// score.
	Fingerprint string
	// Engine names what computes the embeddings (the document tower's);
	// empty for lexical models.
	Engine string
	// Query and Document are the model's sides. A lexical model has a
	// query tokenizer (perturbed, then decoded for BM25) and no embedders.
	Query, Document Tower
	// Score is how a dense model scores (Cosine or Dot); ScoreFrom says
	// where it came from (engine.Retriever's ScoreFrom).
	Score     Score
	ScoreFrom string
	// Towers is 1, or 2 when the sides are two encoders.
	Towers int
	// Analyzer turns a text into index terms (lexical models).
	Analyzer func(text string) []string
	// AnalyzerName describes Analyzer in the results ("wordpiece",
	// "words").
	AnalyzerName string
	// BatchSize is the number of sequences per EmbedIDs call; 0 means 32.
	BatchSize int
	// Notes are remarks worth showing the user (such as the engine chosen
	// and why); Run reports them as StepInfo events.
	Notes []string
	// Close releases the model's resources; may be nil.
	Close func() error
}

// DenseModel returns a single-tower dense model: both sides tokenize with tok
// and embed with emb, scored by cosine, the whole model identified by
// fingerprint.
func DenseModel(name, fingerprint, engine string, tok Tokenizer, emb encoder.Embedder) *Model {
	t := Tower{Tokenizer: tok, Embedder: emb, Fingerprint: fingerprint, Engine: engine}
	return &Model{Name: name, Kind: Dense, Fingerprint: fingerprint, Engine: engine, Query: t, Document: t, Score: Cosine, Towers: 1}
}

func (m *Model) check() error {
	if m.Name == "" {
		return fmt.Errorf("model has no name")
	}
	if m.Query.Tokenizer == nil {
		return fmt.Errorf("model %s has no query tokenizer", m.Name)
	}
	switch m.Kind {
	case Dense:
		for _, t := range []struct {
			side string
			t    Tower
		}{{"query", m.Query}, {"document", m.Document}} {
			if t.t.Tokenizer == nil || t.t.Embedder == nil {
				return fmt.Errorf("dense model %s has no %s tokenizer or embedder", m.Name, t.side)
			}
			if t.t.Embedder.Dim() <= 0 {
				return fmt.Errorf("dense model %s: %s embedding dimension %d, want > 0", m.Name, t.side, t.t.Embedder.Dim())
			}
		}
		if q, d := m.Query.Embedder.Dim(), m.Document.Embedder.Dim(); q != d {
			return fmt.Errorf("dense model %s: query vectors of %d values, document vectors of %d: they cannot be compared", m.Name, q, d)
		}
		if m.Score != Cosine && m.Score != Dot {
			return fmt.Errorf("dense model %s: score %q, want %s or %s", m.Name, m.Score, Cosine, Dot)
		}
	case Lexical:
		if m.Analyzer == nil {
			return fmt.Errorf("lexical model %s has no analyser", m.Name)
		}
	default:
		return fmt.Errorf("model %s: unknown kind %q (want %s or %s)", m.Name, m.Kind, Dense, Lexical)
	}
	return nil
}

// Engine chooses the backend of dense models (ModelOptions.Engine), as
// package encoder/engine names them.
type Engine string

// The engines.
const (
	EngineAuto Engine = engine.Auto
	EngineGo   Engine = engine.Go
	EngineORT  Engine = engine.ORT
)

// Engines returns the engines, in the order of engine.Choices (a new
// slice each call).
func Engines() []Engine {
	var out []Engine
	for _, c := range engine.Choices() {
		out = append(out, Engine(c.Name))
	}
	return out
}

// ParseEngine returns the engine named s ("auto", "go" or "ort").
func ParseEngine(s string) (Engine, error) { return parseName(s, "engine", Engines()) }

// Analyzer chooses how BM25 turns a text into index terms
// (ModelOptions.Analyzer).
type Analyzer string

// The analysers.
const (
	AnalyzerWordPiece Analyzer = "wordpiece"
	AnalyzerWords     Analyzer = "words"
	AnalyzerBigram    Analyzer = "bigram"
)

// Analyzers returns the analysers (a new slice each call).
func Analyzers() []Analyzer { return []Analyzer{AnalyzerWordPiece, AnalyzerWords, AnalyzerBigram} }

// ParseAnalyzer returns the analyser named s ("wordpiece", "words" or
// "bigram").
func ParseAnalyzer(s string) (Analyzer, error) { return parseName(s, "analyzer", Analyzers()) }

// ModelOptions are the settings a Factory may use.
type ModelOptions struct {
	// Engine chooses the dense encoder backend: EngineAuto (the fastest
	// available), EngineGo (pure Go) or EngineORT (ONNX Runtime).
	Engine Engine
	// ModelsDir is where installed models live (one directory per model).
	ModelsDir string
	// Analyzer chooses the lexical analyser: AnalyzerWordPiece (the
	// tokenizer's tokens, the default), AnalyzerWords (lower-cased words)
	// or AnalyzerBigram (CJK character bigrams).
	Analyzer Analyzer
	// BM25Tokenizer is the tokenizer.json bm25 perturbs and decodes
	// queries with; empty means minilm's in ModelsDir. A Chinese
	// collection needs one whose vocabulary covers Chinese
	// (bert-base-chinese): through MiniLM's, most Chinese characters of a
	// query become [UNK] before BM25 sees it.
	BM25Tokenizer string
	// OrtLibrary is the ONNX Runtime shared library for engine "ort".
	OrtLibrary string
	// External, when set, runs BERT-family transformers instead of the
	// native ONNX Runtime (engine.Options.External: the browser app's
	// onnxruntime-web, engine "ort").
	External *engine.External
	// EncoderThreads is the threads of one forward pass: goroutines (go)
	// or ONNX Runtime intra-op threads (ort); 0 is the engine's default,
	// one per core. A pipeline that runs many encodings at once (the Beam
	// pipeline's bundles) sets 1.
	EncoderThreads int
	// Score, when set, overrides how dense models score (their files',
	// manifest's or family's rule otherwise).
	Score Score
	// QueryPrompt and DocumentPrompt, when set, override the dense
	// models' prompts ("" for none).
	QueryPrompt, DocumentPrompt *string
	// Files, when set, holds ModelsDir, BM25Tokenizer and every model
	// directory named (slash-separated paths in it) instead of the disk:
	// the browser app keeps its models in memory.
	Files fs.FS
	// CacheDir was where exported ONNX graphs were kept. It is no longer
	// read: engine.Open runs model.onnx from the model directory ("dreval
	// model export-onnx" writes it). Kept so existing callers compile.
	CacheDir string
}

// Factory opens a model by name. name is the name asked for (a registered
// name, or a directory for the registry's directory factory).
type Factory func(ctx context.Context, name string, opts ModelOptions) (*Model, error)

// Registry maps model names to the factories that open them, so adding a
// model is one Register call.
type Registry struct {
	mu  sync.RWMutex
	m   map[string]Factory
	dir Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[string]Factory{}} }

// Register adds a model name. Registering a name twice replaces it.
func (r *Registry) Register(name string, f Factory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[name] = f
}

// RegisterDir sets the factory used for names that are not registered but
// name an existing directory (a model folder).
func (r *Registry) RegisterDir(f Factory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dir = f
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.m))
	for n := range r.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Open opens the model called name.
func (r *Registry) Open(ctx context.Context, name string, opts ModelOptions) (*Model, error) {
	r.mu.RLock()
	f, ok := r.m[name]
	dir := r.dir
	r.mu.RUnlock()
	if !ok && dir != nil && opts.isDir(name) {
		f, ok = dir, true
	}
	if !ok {
		hint := ""
		if dir != nil {
			hint = " or a model directory"
		}
		return nil, fmt.Errorf("unknown model %q: expected one of %s%s", name, strings.Join(r.Names(), ", "), hint)
	}
	m, err := f(ctx, name, opts)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	if m == nil {
		return nil, fmt.Errorf("model %s: its factory returned no model", name)
	}
	if err := m.check(); err != nil {
		if m.Close != nil {
			m.Close()
		}
		return nil, err
	}
	return m, nil
}
