package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/perturb"
)

// perturbRequest is the body of POST /api/perturb: the flags of "dreval
// perturb" with the queries inline.
type perturbRequest struct {
	Texts []string `json:"texts"`
	// QueryIDs name the texts (the perturbations' random draws depend on
	// them); default "1", "2", ... as "dreval perturb" numbers lines.
	QueryIDs       []string `json:"query_ids"`
	Mode           string   `json:"mode"`      // default idshift
	Rate           *float64 `json:"rate"`      // default perturb.DefaultRate
	Seed           *uint64  `json:"seed"`      // default 1
	Tokenizer      string   `json:"tokenizer"` // a model name; default minilm
	OOV            string   `json:"oov"`
	ProtectSpecial bool     `json:"protect_special"`
	Pairs          int      `json:"pairs"`
}

const perturbWhat = `{"texts": [...], "mode": "idshift", "rate": 0.1, "seed": 1, "tokenizer": "minilm"}`

// perturbResponse is the reply of POST /api/perturb.
type perturbResponse struct {
	Config               perturb.Config   `json:"config"`
	Tokenizer            string           `json:"tokenizer"`
	TokenizerFingerprint string           `json:"tokenizer_fingerprint"`
	PoisonedFingerprint  string           `json:"poisoned_fingerprint,omitempty"`
	Results              []perturb.Result `json:"results"`
	Changed              int              `json:"changed"`
	Considered           int              `json:"considered"`
	// Reads says what read the queries: the model's query encoder (its
	// prompt, lower-casing and truncation, as "dreval eval" reads them)
	// or its bare tokenizer.
	Reads string `json:"reads"`
}

// perturb perturbs each text with package perturb, as "dreval perturb
// -json" does, with the tokenizer of a model in Options.Models.
func (s *server) perturb(ctx context.Context, req *request) (*reply, error) {
	var pr perturbRequest
	if err := decodeJSON(req.body, &pr, perturbWhat); err != nil {
		return nil, err
	}
	if pr.Texts == nil {
		return nil, errorf(http.StatusBadRequest, `"texts" is missing (expected %s)`, perturbWhat)
	}
	if len(pr.Texts) > s.limits.MaxTexts {
		return nil, errorf(http.StatusBadRequest, "%d texts: the limit is %d per request", len(pr.Texts), s.limits.MaxTexts)
	}
	if pr.QueryIDs != nil && len(pr.QueryIDs) != len(pr.Texts) {
		return nil, errorf(http.StatusBadRequest, "%d query_ids for %d texts: give one per text, or none", len(pr.QueryIDs), len(pr.Texts))
	}
	if pr.Mode == "" {
		pr.Mode = string(perturb.IDShift)
	}
	mode, err := perturb.ParseMode(pr.Mode)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "mode: %v", err)
	}
	oov, err := perturb.ParseOOV(pr.OOV)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "oov: %v", err)
	}
	c := perturb.Config{Mode: mode, Rate: perturb.DefaultRate, Seed: 1, OOV: oov, ProtectSpecial: pr.ProtectSpecial, SwapPairs: pr.Pairs}
	if pr.Rate != nil {
		c.Rate = *pr.Rate
	}
	if pr.Seed != nil {
		c.Seed = *pr.Seed
	}
	if err := c.Validate(); err != nil {
		return nil, errorf(http.StatusBadRequest, "%v", err)
	}
	if pr.Tokenizer == "" {
		pr.Tokenizer = "minilm"
	}
	rd, err := s.queryReading(ctx, pr.Tokenizer)
	if err != nil {
		return nil, err
	}
	out := perturbResponse{Config: c, Tokenizer: pr.Tokenizer, TokenizerFingerprint: rd.Fingerprint(rd.Reader), Reads: rd.Describe, Results: make([]perturb.Result, 0, len(pr.Texts))}
	swapped := rd.Swapped
	if mode == perturb.VocabSwap && swapped != nil {
		swapped = func(pairs [][2]int32) (perturb.Reader, error) {
			bad, err := rd.Swapped(pairs)
			if err == nil {
				out.PoisonedFingerprint = rd.Fingerprint(bad)
			}
			return bad, err
		}
	}
	qs := make([]perturb.Query, len(pr.Texts))
	for i, text := range pr.Texts {
		qs[i] = perturb.Query{ID: strconv.Itoa(i + 1), Text: text}
		if pr.QueryIDs != nil {
			qs[i].ID = pr.QueryIDs[i]
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := perturb.Queries(c, rd.Reader, swapped, qs, nil)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "%v", err)
	}
	for _, res := range res {
		if res.IDs == nil {
			res.IDs = []int32{}
		}
		if res.PerturbedIDs == nil {
			res.PerturbedIDs = []int32{}
		}
		out.Results = append(out.Results, res)
		out.Changed += res.Changed
		out.Considered += res.Considered
	}
	return jsonReply(out)
}

// queryTokenizer loads the tokenizer of model name's query tower (the
// tokenizer queries are perturbed through) from models: of its
// transformer folder, in any layout the loaders read.
func queryTokenizer(models fs.FS, name string) (*tokenizer.Tokenizer, error) {
	d := modelfiles.FSDir(models, name)
	if ok, err := d.Exists("."); err != nil || !ok {
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	man, err := modelfiles.ReadManifest(d)
	if err != nil {
		return nil, err
	}
	q, _ := man.Towers(d)
	t, err := modelfiles.TransformerDir(q)
	if err != nil {
		return nil, err
	}
	return encoder.LoadTokenizer(t)
}

// tokenizer returns the tokenizer of model name from Options.Models,
// loading it once.
func (s *server) tokenizer(name string) (*tokenizer.Tokenizer, error) {
	if !validName(name) {
		return nil, errorf(http.StatusBadRequest, "tokenizer %q: not a model name (letters, digits, '.', '_' and '-')", name)
	}
	if s.opts.Models == nil {
		return nil, errorf(http.StatusNotFound, "tokenizer %q: this server has no models", name)
	}
	s.tokMu.Lock()
	e := s.toks[name]
	if e == nil {
		e = &tokenizerEntry{}
		s.toks[name] = e
	}
	s.tokMu.Unlock()
	e.once.Do(func() {
		e.tok, e.err = queryTokenizer(s.opts.Models, name)
		if errors.Is(e.err, fs.ErrNotExist) {
			e.err = errorf(http.StatusNotFound, "tokenizer %q: this server has no model %q with a tokenizer (%v; %v)", name, name, e.err, ErrUnknownModel)
		} else if e.err != nil {
			e.err = fmt.Errorf("tokenizer %q: %w", name, e.err)
		}
	})
	if e.err != nil {
		// Forget failures, so a model installed later is found.
		s.tokMu.Lock()
		if s.toks[name] == e {
			delete(s.toks, name)
		}
		s.tokMu.Unlock()
	}
	return e.tok, e.err
}

// validName reports whether name can name a model: a non-empty run of
// letters, digits, '.', '_' and '-', not starting with '.'.
func validName(name string) bool { return modelfiles.ValidName(name) }

// tokenizerReader reads queries with a bare tokenizer: its ids of the
// text, special tokens added, untruncated.
type tokenizerReader struct{ *tokenizer.Tokenizer }

func (t tokenizerReader) EncodeIDs(text string) []int32 { return t.Encode(text).IDs }

// queryReading returns how model name reads queries: Options.QueryReader's
// reading where it knows the model, else the model's bare tokenizer.
func (s *server) queryReading(ctx context.Context, name string) (*QueryReading, error) {
	if s.opts.QueryReader != nil && validName(name) {
		rd, err := s.opts.QueryReader(ctx, name)
		if err == nil {
			return rd, nil
		}
		if !errors.Is(err, ErrUnknownModel) {
			return nil, fmt.Errorf("tokenizer %q: %w", name, err)
		}
	}
	tok, err := s.tokenizer(name)
	if err != nil {
		return nil, err
	}
	return &QueryReading{
		Reader: tokenizerReader{tok},
		Swapped: func(pairs [][2]int32) (perturb.Reader, error) {
			bad, err := tok.WithSwappedTokens(pairs)
			if err != nil {
				return nil, err
			}
			return tokenizerReader{bad}, nil
		},
		Fingerprint: func(r perturb.Reader) string { return r.(tokenizerReader).Fingerprint() },
		Describe:    "the model's tokenizer (no prompt, lower-casing or truncation of its encoder)",
	}, nil
}
