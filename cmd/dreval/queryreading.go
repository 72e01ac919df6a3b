package main

import (
	"context"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/serve"
)

// queryReading returns how model m reads queries: its query side's
// tokenization as "dreval eval" perturbs it (experiment's query
// Tokenizer: the model's query prompt, lower-casing and truncation), for
// "dreval perturb -model" and the server's /api/perturb.
func queryReading(m *experiment.Model) *serve.QueryReading {
	tok := m.Query.Tokenizer
	rd := &serve.QueryReading{
		Reader:      tok,
		Fingerprint: func(r perturb.Reader) string { return r.(experiment.Tokenizer).Fingerprint() },
		Describe:    "the model's query encoder (" + m.Name + ": its prompt, lower-casing and truncation, as dreval eval reads queries)",
	}
	if sw, ok := tok.(experiment.Swapper); ok {
		rd.Swapped = func(pairs [][2]int32) (perturb.Reader, error) { return sw.Swapped(pairs) }
	}
	return rd
}

// queryReading answers serve.Options.QueryReader with the server's
// models.
func (s *serveModels) queryReading(ctx context.Context, name string) (*serve.QueryReading, error) {
	m, err := s.open(name)
	if err != nil {
		return nil, err
	}
	return queryReading(m), nil
}
