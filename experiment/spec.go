package experiment

import (
	"fmt"

	"github.com/dreval/dreval/answer"
	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/spec"
)

// Spec returns the description of the experiment c runs, its defaults
// filled in: what results.json records and "dreval eval -spec" runs
// again. Collections given as values appear in Data by name.
func (c Config) Spec() spec.Spec {
	c = c.withDefaults()
	s := spec.Spec{
		Data:   append([]string(nil), c.Data...),
		Split:  c.Split,
		Models: append([]string(nil), c.Models...),
		Task:   string(c.Task),
		Perturbation: spec.Perturbation{
			Mode:           string(c.Perturbation.Mode),
			OOV:            oovName(c.Perturbation),
			ProtectSpecial: c.Perturbation.ProtectSpecial,
			Pairs:          c.Perturbation.SwapPairs,
		},
		Rates:          append([]float64(nil), c.Rates...),
		Seeds:          c.Seeds,
		FirstSeed:      c.FirstSeed,
		K:              c.K,
		Examples:       c.Examples,
		Resamples:      c.Resamples,
		TestSeed:       c.TestSeed,
		Engine:         string(c.ModelOptions.Engine),
		Analyzer:       string(c.ModelOptions.Analyzer),
		BM25Tokenizer:  c.ModelOptions.BM25Tokenizer,
		Score:          string(c.ModelOptions.Score),
		QueryPrompt:    c.ModelOptions.QueryPrompt,
		DocumentPrompt: c.ModelOptions.DocumentPrompt,
		AnswerKs:       append([]int(nil), c.AnswerKs...),
		PassageText:    c.PassageText,
	}
	for _, col := range c.Collections {
		s.Data = append(s.Data, col.Name)
	}
	if hasAnswers(c.Task) {
		for _, m := range c.AnswerModes {
			s.AnswerModes = append(s.AnswerModes, m.String())
		}
	}
	return s
}

// FromSpec returns the configuration of the experiment s describes,
// every name parsed (errors name the spec's field). The ports a run needs
// beside the description (Registry, ModelOptions.ModelsDir and the
// engines' libraries, Cache, precomputed vectors or rankings) are the
// caller's to set; s.Data becomes Data, loaded with dataset.Load.
func FromSpec(s spec.Spec) (Config, error) {
	if err := s.Check(); err != nil {
		return Config{}, err
	}
	c := Config{
		Data:      append([]string(nil), s.Data...),
		Split:     s.Split,
		Models:    append([]string(nil), s.Models...),
		Rates:     append([]float64(nil), s.Rates...),
		Seeds:     s.Seeds,
		FirstSeed: s.FirstSeed,
		K:         s.K,
		Examples:  s.Examples,
		Resamples: s.Resamples,
		TestSeed:  s.TestSeed,
		AnswerKs:  append([]int(nil), s.AnswerKs...),
		ModelOptions: ModelOptions{
			BM25Tokenizer:  s.BM25Tokenizer,
			QueryPrompt:    s.QueryPrompt,
			DocumentPrompt: s.DocumentPrompt,
		},
		PassageText: s.PassageText,
	}
	if len(s.AnswerKs) == 0 {
		c.AnswerKs = nil
	}
	var err error
	if s.Task != "" {
		if c.Task, err = ParseTask(s.Task); err != nil {
			return Config{}, fmt.Errorf(`"task": %w`, err)
		}
	}
	p := s.Perturbation
	if p.Mode != "" {
		if c.Perturbation.Mode, err = perturb.ParseMode(p.Mode); err != nil {
			return Config{}, fmt.Errorf(`"perturbation.mode": %w`, err)
		}
	}
	if c.Perturbation.OOV, err = perturb.ParseOOV(p.OOV); err != nil {
		return Config{}, fmt.Errorf(`"perturbation.oov": %w`, err)
	}
	c.Perturbation.ProtectSpecial, c.Perturbation.SwapPairs = p.ProtectSpecial, p.Pairs
	if s.Engine != "" {
		if c.ModelOptions.Engine, err = ParseEngine(s.Engine); err != nil {
			return Config{}, fmt.Errorf(`"engine": %w`, err)
		}
	}
	if s.Analyzer != "" {
		if c.ModelOptions.Analyzer, err = ParseAnalyzer(s.Analyzer); err != nil {
			return Config{}, fmt.Errorf(`"analyzer": %w`, err)
		}
	}
	if s.Score != "" {
		if c.ModelOptions.Score, err = encoder.ParseSimilarity(s.Score); err != nil {
			return Config{}, fmt.Errorf(`"score": %w`, err)
		}
	}
	for i, m := range s.AnswerModes {
		am, err := answer.ParseMode(m)
		if err != nil {
			return Config{}, fmt.Errorf(`"answer_modes"[%d]: %w`, i, err)
		}
		c.AnswerModes = append(c.AnswerModes, am)
	}
	return c, nil
}
