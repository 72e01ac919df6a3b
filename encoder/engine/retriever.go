package engine

import (
	"errors"
	"fmt"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/static"
	"github.com/dreval/dreval/modelfiles"
)

// The sides of retrieval.
const (
	Query    = "query"
	Document = "document"
)

// Retriever is a dense retriever: a query encoder, a document encoder and
// how a query scores a document. A single-tower model is the case where
// both encoders share one model's weights and differ at most in their
// prompts and maximum lengths; a two-tower model (a folder with a
// dreval.json naming two folders, such as DPR's question and context
// encoders) opens one model per tower.
type Retriever struct {
	Query, Document         *encoder.Encoder
	QueryInfo, DocumentInfo Info
	// Score is the similarity; ScoreFrom says where it came from:
	// "option" (RetrieverOptions.Score), "manifest" (dreval.json),
	// "model" (the model's files or its family's rule), or "default"
	// (cosine, when nothing says).
	Score     encoder.Similarity
	ScoreFrom string
	// Towers is 1 or 2.
	Towers int
	// QueryDir and DocumentDir are the towers' folders.
	QueryDir, DocumentDir modelfiles.Dir
	// Static is a static model's config; nil for other models.
	Static *static.Config
	models []*Model
}

// RetrieverOptions configure OpenRetriever: the engine options of both
// towers, and overrides of the retriever's score and prompts.
type RetrieverOptions struct {
	Options
	// Score, when set, overrides how the retriever scores.
	Score encoder.Similarity
	// QueryPrompt and DocumentPrompt, when set, override the prompts (""
	// for none).
	QueryPrompt, DocumentPrompt *string
}

// Close releases both towers' engines.
func (r *Retriever) Close() error {
	var errs []error
	for _, m := range r.models {
		errs = append(errs, m.Close())
	}
	return errors.Join(errs...)
}

// OpenRetriever opens the retriever in d: a model folder (one tower), or
// a folder whose dreval.json names a query and a document folder (see
// modelfiles.Manifest), each opened with Open.
func OpenRetriever(d modelfiles.Dir, o RetrieverOptions) (*Retriever, error) {
	man, err := encoder.ReadManifest(d)
	if err != nil {
		return nil, err
	}
	if man == nil {
		man = &modelfiles.Manifest{}
	}
	r := &Retriever{Towers: 1}
	r.QueryDir, r.DocumentDir = man.Towers(d)
	opts := o.Options
	if man.Pooling != "" && opts.Encoder.Pooling == "" {
		opts.Encoder.Pooling = encoder.Pooling(man.Pooling)
	}
	if man.Normalize != nil && opts.Encoder.Normalize == nil {
		opts.Encoder.Normalize = man.Normalize
	}
	qm, err := Open(r.QueryDir, opts)
	if err != nil {
		return nil, err
	}
	r.models = append(r.models, qm)
	dm := qm
	if r.DocumentDir.Name() != r.QueryDir.Name() {
		if dm, err = Open(r.DocumentDir, opts); err != nil {
			r.Close()
			return nil, err
		}
		r.models = append(r.models, dm)
		r.Towers = 2
	}
	r.QueryInfo, r.DocumentInfo, r.Static = qm.Info, dm.Info, qm.Static
	side := func(m *Model, name string, override, manifest *string, maxLen int) (*encoder.Encoder, error) {
		prompt := m.Encoder.Prompts().For(name)
		switch {
		case override != nil:
			prompt = *override
		case manifest != nil:
			prompt = *manifest
		}
		e, err := m.Encoder.WithPrompt(prompt)
		if err != nil {
			return nil, err
		}
		if maxLen > 0 && o.Encoder.MaxLength == 0 {
			if e, err = e.WithMaxLength(maxLen); err != nil {
				return nil, fmt.Errorf("%s: %s_max_length: %w", d.Path(modelfiles.ManifestFile), name, err)
			}
		}
		return e, nil
	}
	if r.Query, err = side(qm, Query, o.QueryPrompt, man.QueryPrompt, man.QueryMaxLength); err != nil {
		r.Close()
		return nil, err
	}
	if r.Document, err = side(dm, Document, o.DocumentPrompt, man.DocumentPrompt, man.DocumentMaxLength); err != nil {
		r.Close()
		return nil, err
	}
	if r.Query.Dim() != r.Document.Dim() {
		r.Close()
		return nil, fmt.Errorf("%s: the query encoder makes vectors of %d values and the document encoder of %d: they cannot be compared", d.Name(), r.Query.Dim(), r.Document.Dim())
	}
	switch {
	case o.Score != "":
		r.Score, r.ScoreFrom = o.Score, "option"
	case man.Score != "":
		r.Score, _ = encoder.ParseSimilarity(man.Score)
		r.ScoreFrom = "manifest"
	case r.Query.Similarity() != "":
		r.Score, r.ScoreFrom = r.Query.Similarity(), "model"
	default:
		r.Score, r.ScoreFrom = encoder.Cosine, "default"
	}
	return r, nil
}

// Side returns the encoder of side (Query or Document).
func (r *Retriever) Side(side string) (*encoder.Encoder, error) {
	switch side {
	case Query:
		return r.Query, nil
	case Document, "":
		return r.Document, nil
	}
	return nil, fmt.Errorf("side %q: want %s or %s", side, Query, Document)
}

// Describe says in one line what the retriever is: its towers, each
// side's encoder (Encoder.Describe) and its score with where the score
// came from.
func (r *Retriever) Describe() string {
	q, d := r.Query.Describe(), r.Document.Describe()
	sides := "query and document: " + q
	if r.Towers == 2 || q != d {
		sides = "query: " + q + "; document: " + d
	}
	towers := "1 tower"
	if r.Towers == 2 {
		towers = "2 towers"
	}
	return fmt.Sprintf("%s, %d dims; %s; score %s (%s)", towers, r.Query.Dim(), sides, r.Score, r.ScoreFrom)
}
