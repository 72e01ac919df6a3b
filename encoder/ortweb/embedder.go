package ortweb

import (
	"errors"
	"fmt"
	"sync"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/modelfiles"
)

// Forwarder runs a graph's forward pass on one batch, padded as pad says,
// and returns each sequence's token vectors (len(seqs[i]) rows of dim
// values): a Session of onnxruntime-web in the browser (ortweb_js.go).
type Forwarder interface {
	Forward(seqs [][]int32, pad Padding, dim int) ([][]float32, error)
	Close() error
}

// Embedder embeds token ids with a session and the model's Head, as
// package ort's Embedder does natively: sequences sorted by length and
// run in batches (encoder.Batches), padded with the model's padding id
// and masked, then pooled, through the head's layers and normalised in
// Go. It implements encoder.Embedder, encoder.HeadEmbedder and
// encoder.VocabSizer. The session is opened on first use (Open), so a
// model whose vectors come from elsewhere (a server) never loads
// onnxruntime-web.
type Embedder struct {
	// Head turns the token vectors into the embedding.
	Head *encoder.Head
	// BatchSize and BatchTokens bound one run (0: 32 and 8192).
	BatchSize, BatchTokens int
	// Progress, when not nil, is called after each batch.
	Progress encoder.Progress

	cfg  modelfiles.Config
	open *opener
}

// opener opens the session once; a failure is kept and reported by every
// call.
type opener struct {
	once sync.Once
	f    func() (Forwarder, error)
	sess Forwarder
	err  error
}

func (o *opener) get() (Forwarder, error) {
	o.once.Do(func() {
		if o.sess, o.err = o.f(); o.err != nil {
			o.sess = nil // no typed nil: Close closes only a session
		}
	})
	return o.sess, o.err
}

// NewEmbedder returns the embedder of the transformer cfg describes,
// running on the session open returns (called once, on first use) and
// then head.
func NewEmbedder(cfg modelfiles.Config, head *encoder.Head, open func() (Forwarder, error)) *Embedder {
	return &Embedder{Head: head, cfg: cfg, open: &opener{f: open}}
}

// Session returns the embedder's session, opening it if needed.
func (e *Embedder) Session() (Forwarder, error) { return e.open.get() }

// Dim returns the embedding's length.
func (e *Embedder) Dim() int { return e.Head.Dim(e.cfg.HiddenSize) }

// VocabSize returns the size of the model's vocabulary.
func (e *Embedder) VocabSize() int { return e.cfg.VocabSize }

// HeadOf returns the embedder's head.
func (e *Embedder) HeadOf() *encoder.Head { return e.Head }

// WithHead implements encoder.HeadEmbedder: a copy sharing the session.
func (e *Embedder) WithHead(h *encoder.Head) encoder.Embedder {
	c := *e
	c.Head = h
	return &c
}

// Close releases the session, if it was opened.
func (e *Embedder) Close() error {
	var err error
	e.open.once.Do(func() { e.open.err = errors.New("onnxruntime-web: the embedder is closed") })
	if e.open.sess != nil {
		err = e.open.sess.Close()
	}
	return err
}

// EmbedIDs embeds each id sequence (token type 0, every token attended).
// An empty sequence, one longer than the model's positions, or an id
// outside the vocabulary is an error naming it.
func (e *Embedder) EmbedIDs(ids [][]int32) ([][]float32, error) {
	maxTokens := e.cfg.MaxTokens()
	for s, seq := range ids {
		if len(seq) == 0 {
			return nil, fmt.Errorf("ort-web: sequence %d has no ids (an empty text still has [CLS] and [SEP])", s)
		}
		if len(seq) > maxTokens {
			return nil, fmt.Errorf("ort-web: sequence %d has %d tokens, more than the model's %d", s, len(seq), maxTokens)
		}
		for p, id := range seq {
			if id < 0 || int(id) >= e.cfg.VocabSize {
				return nil, fmt.Errorf("ort-web: sequence %d position %d: token id %d is outside the vocabulary [0, %d)", s, p, id, e.cfg.VocabSize)
			}
		}
	}
	sess, err := e.open.get()
	if err != nil {
		return nil, err
	}
	bs, bt := e.BatchSize, e.BatchTokens
	if bs <= 0 {
		bs = 32
	}
	if bt <= 0 {
		bt = 8192
	}
	pad := Padding{PadID: int64(max(e.cfg.PaddingIdx(), 0)), PositionOffset: int64(e.cfg.PositionOffset())}
	dim := e.Dim()
	out := make([][]float32, len(ids))
	done := 0
	for _, batch := range encoder.Batches(ids, bs, bt) {
		seqs := make([][]int32, len(batch))
		for j, i := range batch {
			seqs[j] = ids[i]
		}
		hidden, err := sess.Forward(seqs, pad, e.cfg.HiddenSize)
		if err != nil {
			return nil, err
		}
		for j, i := range batch {
			out[i] = make([]float32, dim)
			e.Head.Apply(out[i], hidden[j], e.cfg.HiddenSize)
		}
		done += len(batch)
		if e.Progress != nil {
			e.Progress(done, len(ids))
		}
	}
	return out, nil
}
