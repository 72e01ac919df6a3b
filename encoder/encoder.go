// Package encoder turns texts into normalised embedding vectors.
//
// An Encoder is a tokenizer plus an Embedder. The Embedder interface is the
// seam between the pipeline and a backend: it takes token ids (so the ids
// can be perturbed between tokenization and embedding) and returns one
// L2-normalised vector per sequence. BERT runs the pure-Go forward pass of
// package bert (natively and under js/wasm); other backends (ONNX Runtime,
// static token-table models) implement the same interface.
//
// Behaviour at the edges, the same for every text:
//   - A text longer than the maximum length (MaxLength ids, [CLS] and [SEP]
//     included) is truncated from the end; Encode reports how many texts
//     were truncated.
//   - An empty text (or one with no tokens) is encoded as [CLS] [SEP] and
//     gets the embedding of that two-token sequence; it is never an error.
//   - An empty id sequence passed to EmbedIDs is an error naming its index.
package encoder

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dreval/dreval/encoder/tokenizer"
)

// Embedder embeds sequences of token ids. EmbedIDs returns one
// L2-normalised vector of Dim values per sequence, in input order.
type Embedder interface {
	EmbedIDs(ids [][]int32) ([][]float32, error)
	Dim() int
}

// VocabSizer is implemented by embedders that know the vocabulary size they
// accept; New checks it against the tokenizer's.
type VocabSizer interface {
	VocabSize() int
}

// Progress reports that done of total sequences have been embedded. It is
// called from the goroutine that called EmbedIDs or Encode, after each
// batch.
type Progress func(done, total int)

// Encoder tokenizes texts and embeds them. A model's encoder may put a
// prompt before every text and lower-case it (sentence-transformers'
// prompts and do_lower_case); WithPrompt returns the encoder of one side
// of retrieval.
type Encoder struct {
	tok        *tokenizer.Tokenizer
	emb        Embedder
	maxLen     int
	lowercase  bool
	prompt     string
	prompts    Prompts
	similarity Similarity
	head       *Head
	layout     string
}

// HeadEmbedder is an Embedder that runs a Head after its transformer,
// and can be copied with another (a prompt's tokens left out of the
// pooling).
type HeadEmbedder interface {
	Embedder
	WithHead(h *Head) Embedder
}

// New returns an Encoder that tokenizes with tok, truncating to maxLen ids
// (special tokens included; 0 means the tokenizer's own truncation length),
// and embeds with emb. A vocabulary size mismatch between tok and emb is an
// error.
func New(tok *tokenizer.Tokenizer, emb Embedder, maxLen int) (*Encoder, error) {
	if tok == nil || emb == nil {
		return nil, errors.New("encoder: New needs a tokenizer and an embedder")
	}
	if vs, ok := emb.(VocabSizer); ok && vs.VocabSize() != tok.VocabSize() {
		return nil, fmt.Errorf("encoder: the tokenizer has %d tokens but the model's vocabulary has %d; they do not belong together", tok.VocabSize(), vs.VocabSize())
	}
	if maxLen == 0 {
		maxLen = tok.MaxLength()
	}
	if maxLen < 0 {
		return nil, fmt.Errorf("encoder: maximum length %d is negative", maxLen)
	}
	if maxLen > 0 && maxLen < tok.NumSpecial()+1 {
		return nil, fmt.Errorf("encoder: maximum length %d leaves no room for text beside %d special tokens", maxLen, tok.NumSpecial())
	}
	e := &Encoder{tok: tok, emb: emb, maxLen: maxLen}
	if he, ok := emb.(interface{ HeadOf() *Head }); ok {
		e.head = he.HeadOf()
	}
	return e, nil
}

// Reading is how a model reads and scores texts, besides its embedder:
// its tokenizer, maximum length (ids, special tokens included),
// lower-casing, prompts, similarity, and its head (pooling and the layers
// after it; nil for a model that pools itself) with where the head came
// from (Layout). A loader of a model folder fills it from the folder's
// files (package transformer for the BERT family, package static).
type Reading struct {
	Tokenizer *tokenizer.Tokenizer
	MaxLength int
	// Lowercase lower-cases every text before it is tokenized
	// (sentence_bert_config.json's do_lower_case).
	Lowercase bool
	// Prompts are the model's prompts; Similarity how it scores, "" when
	// it does not say.
	Prompts    Prompts
	Similarity Similarity
	Head       *Head
	// Layout names where the head came from: "sentence-transformers
	// modules", "DPR", "ANCE", "1_Pooling", "no pooling files", or
	// "pooling asked for".
	Layout string
}

// Encoder returns the encoder of the model that reads as r says and
// embeds with emb (the transformer and r.Head), without a prompt.
func (r *Reading) Encoder(emb Embedder) (*Encoder, error) {
	e, err := New(r.Tokenizer, emb, r.MaxLength)
	if err != nil {
		return nil, err
	}
	e.lowercase, e.prompts, e.similarity, e.head, e.layout = r.Lowercase, r.Prompts, r.Similarity, r.Head, r.Layout
	return e, nil
}

// WithPrompt returns a copy of e that puts prompt before every text
// ("" for none). When the model's head leaves the prompt out of the
// pooling, the copy's embedder skips the prompt's tokens (as
// sentence-transformers counts them: the prompt's ids without a special
// token at their end).
func (e *Encoder) WithPrompt(prompt string) (*Encoder, error) {
	c := *e
	c.prompt = prompt
	if e.head == nil || !e.head.ExcludePrompt {
		return &c, nil
	}
	skip := 0
	if prompt != "" {
		ids := e.tok.EncodeWith(e.prepare(prompt, false), tokenizer.Options{AddSpecial: true}).IDs
		skip = promptTokens(ids, e.tok.IsSpecial)
	}
	he, ok := e.emb.(HeadEmbedder)
	if !ok {
		return nil, fmt.Errorf("encoder: the model leaves its prompt out of the pooling, but its embedder (%T) cannot", e.emb)
	}
	h := *e.head
	h.Skip = skip
	c.head = &h
	c.emb = he.WithHead(&h)
	return &c, nil
}

// WithTokenizer returns a copy of e tokenizing with tok, which must have
// the same vocabulary size (a tampered copy of e's tokenizer, say).
func (e *Encoder) WithTokenizer(tok *tokenizer.Tokenizer) (*Encoder, error) {
	if tok.VocabSize() != e.tok.VocabSize() {
		return nil, fmt.Errorf("encoder: the new tokenizer has %d tokens, the model's %d", tok.VocabSize(), e.tok.VocabSize())
	}
	c := *e
	c.tok = tok
	return &c, nil
}

// WithMaxLength returns a copy of e truncating to n ids (special tokens
// included; 0 keeps e's), checked against the model's positions by the
// caller.
func (e *Encoder) WithMaxLength(n int) (*Encoder, error) {
	c := *e
	if n == 0 {
		return &c, nil
	}
	if n < 0 || n < e.tok.NumSpecial()+1 {
		return nil, fmt.Errorf("encoder: maximum length %d leaves no room for text beside %d special tokens", n, e.tok.NumSpecial())
	}
	c.maxLen = n
	return &c, nil
}

// ForSide returns the encoder of one side of retrieval ("query" or
// "document") with the model's prompt for that side (Prompts.For).
func (e *Encoder) ForSide(side string) (*Encoder, error) {
	return e.WithPrompt(e.prompts.For(side))
}

// Prompt returns the text put before every input ("" for none).
func (e *Encoder) Prompt() string { return e.prompt }

// Prompts returns the model's prompts.
func (e *Encoder) Prompts() Prompts { return e.prompts }

// Similarity returns how the model scores ("" when it does not say).
func (e *Encoder) Similarity() Similarity { return e.similarity }

// Head returns the model's head, nil for a model without one (static
// models pool and normalise themselves).
func (e *Encoder) Head() *Head { return e.head }

// Layout names where the model's head came from (see Settings.Layout).
func (e *Encoder) Layout() string { return e.layout }

// Describe says in one line how the encoder embeds a text: its head (the
// pooling and the layers after it) and where the head came from, its
// maximum length, its prompt, lower-casing.
func (e *Encoder) Describe() string {
	d := "static token table, mean, normalized"
	if e.head != nil {
		d = e.head.String()
		if e.layout != "" {
			d += " (" + e.layout + ")"
		}
	}
	if e.maxLen > 0 {
		d += fmt.Sprintf(", max %d tokens", e.maxLen)
	}
	if e.prompt != "" {
		d += fmt.Sprintf(", prompt %q", e.prompt)
	}
	if e.lowercase {
		d += ", lower-cased"
	}
	return d
}

// Lowercase reports whether texts are lower-cased before tokenization.
func (e *Encoder) Lowercase() bool { return e.lowercase }

// prepare returns what the tokenizer reads of text: the prompt before it
// (when withPrompt), lower-cased when the model says so.
func (e *Encoder) prepare(text string, withPrompt bool) string {
	if withPrompt {
		text = e.prompt + text
	}
	if e.lowercase {
		text = strings.ToLower(text)
	}
	return text
}

// EncodeIDs returns the ids the model reads for text: its prompt and
// lower-casing applied, special tokens added, truncated to MaxLength.
func (e *Encoder) EncodeIDs(text string) []int32 {
	return e.tok.EncodeWith(e.prepare(text, true), tokenizer.Options{AddSpecial: true, MaxLength: e.maxLen}).IDs
}

// Tokenizer returns the encoder's tokenizer.
func (e *Encoder) Tokenizer() *tokenizer.Tokenizer { return e.tok }

// Embedder returns the encoder's embedder.
func (e *Encoder) Embedder() Embedder { return e.emb }

// MaxLength returns the truncation length in ids (0: none).
func (e *Encoder) MaxLength() int { return e.maxLen }

// Dim returns the embedding dimension.
func (e *Encoder) Dim() int { return e.emb.Dim() }

// Tokenize returns the ids of each text (prompt and lower-casing applied)
// with special tokens, truncated to MaxLength, and how many texts were
// truncated.
func (e *Encoder) Tokenize(texts []string) (ids [][]int32, truncated int) {
	ids = make([][]int32, len(texts))
	o := tokenizer.Options{AddSpecial: true, MaxLength: e.maxLen}
	for i, t := range texts {
		enc := e.tok.EncodeWith(e.prepare(t, true), o)
		ids[i] = enc.IDs
		if enc.Truncated > 0 {
			truncated++
		}
	}
	return ids, truncated
}

// EmbedIDs embeds id sequences (for example perturbed ones) with the
// encoder's embedder.
func (e *Encoder) EmbedIDs(ids [][]int32) ([][]float32, error) { return e.emb.EmbedIDs(ids) }

// Encode tokenizes and embeds texts, returning one normalised vector per
// text and the number of texts that were truncated.
func (e *Encoder) Encode(texts []string) (vecs [][]float32, truncated int, err error) {
	ids, truncated := e.Tokenize(texts)
	vecs, err = e.emb.EmbedIDs(ids)
	return vecs, truncated, err
}

// Batches groups the indices of seqs into batches for embedding: sequences
// are sorted by length (longest first, ties in input order), so a batch
// holds sequences of similar length, and each batch has at most maxSeqs
// sequences and, unless a single sequence exceeds it, at most maxTokens
// tokens in all. A value <= 0 means no limit.
func Batches(seqs [][]int32, maxSeqs, maxTokens int) [][]int {
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(seqs[order[a]]) > len(seqs[order[b]]) })
	var out [][]int
	var cur []int
	tokens := 0
	for _, i := range order {
		n := len(seqs[i])
		if len(cur) > 0 && ((maxSeqs > 0 && len(cur) >= maxSeqs) || (maxTokens > 0 && tokens+n > maxTokens)) {
			out = append(out, cur)
			cur, tokens = nil, 0
		}
		cur = append(cur, i)
		tokens += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// Normalize scales v to unit L2 norm in place. A zero vector stays zero.
func Normalize(v []float32) { normalize(v) }

// normalize is Normalize in precision F (for float32 its arithmetic); it
// returns the norm v had, computed in float64.
func normalize[F Float](v []F) float64 {
	var ss float64
	for _, x := range v {
		ss += float64(float64(x) * float64(x)) // rounded: no fused multiply-add
	}
	if ss == 0 {
		return 0
	}
	inv := F(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
	return math.Sqrt(ss)
}
