package experiment

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"strings"

	"github.com/dreval/dreval/answer"
	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/perturb"
)

// Defaults of Config's zero fields.
const (
	DefaultK         = 100
	DefaultSeeds     = 5
	DefaultExamples  = 5
	DefaultResamples = 10000
	DefaultTestSeed  = 1
	DefaultSplit     = "test"
)

// DefaultRates returns the perturbation rates swept when none are given:
// clean and the paper's 5%, 10% and 20% (a new slice each call).
func DefaultRates() []float64 { return []float64{0, 0.05, 0.1, 0.2} }

// Config describes one experiment: datasets x models x perturbation rates
// x seeds.
type Config struct {
	// Data names the datasets: "demo" or BEIR-layout directories, loaded
	// with dataset.Load. Collections are used as given (the browser loads
	// its own); both may be set, Data first.
	Data        []string
	Collections []*dataset.Collection
	// Split is the qrels split ("test" when empty).
	Split string
	// Models are the model names, opened with Registry.
	Models   []string
	Registry *Registry
	// ModelOptions are passed to every Factory.
	ModelOptions ModelOptions
	// Perturbation gives the mode and its options; its Rate and Seed are
	// ignored (Rates and Seeds sweep them). The zero Mode means idshift.
	Perturbation perturb.Config
	// Rates are the perturbation rates; 0 is the clean run, computed once
	// whatever the number of seeds. nil means DefaultRates().
	Rates []float64
	// Seeds is the number of seeds per rate > 0 (seeds FirstSeed,
	// FirstSeed+1, ...); 0 means DefaultSeeds.
	Seeds     int
	FirstSeed uint64
	// K is the number of documents retrieved per query; 0 means DefaultK.
	K int
	// Cache stores corpus embeddings between runs; nil disables caching.
	Cache Cache
	// Embeddings, when set, gives the dense models' corpus vectors made
	// beforehand (ShardDir: the shards of "dreval encode -shard I/N" or
	// of the Beam pipeline), checked against each model's document tower
	// and the corpus, instead of encoding the corpus; Cache is then not
	// used for dense models.
	Embeddings CorpusEmbeddings
	// Rankings, when set, answers the dense models' searches with
	// rankings made elsewhere (the Beam pipeline encodes the queries and
	// searches the corpus shards on its workers): Run neither encodes the
	// corpus nor the queries of dense models, and scores what Rankings
	// returns as it scores its own searches.
	Rankings Rankings
	// CorpusHashes, with Rankings, gives the CorpusHash of each of
	// Collections' corpora (by position), computed where the corpus text
	// was read: those collections' Corpus then needs only the documents'
	// ids, in corpus order (Title and Text are not read), so that the Beam
	// pipeline's last stage never holds the corpus text. Task ir only,
	// without PassageText; Data must be empty.
	CorpusHashes []string
	// Examples is the number of decoded perturbed queries kept per model
	// and rate; 0 means DefaultExamples, a negative value none.
	Examples int
	// Resamples is the number of randomization and bootstrap resamples of
	// the paired tests (0 means DefaultResamples); TestSeed seeds them (0
	// means DefaultTestSeed).
	Resamples int
	TestSeed  uint64
	// Version is recorded in Results.
	Version string
	// Task chooses the scores beside st and trec: TaskIR ("" too),
	// TaskDPR (answer-span accuracy) or TaskDuReader (the dureader
	// convention and answer-span accuracy of the extractive answers).
	Task Task
	// AnswerModes are the answer matching modes of TaskDPR and
	// TaskDuReader; nil means the task's defaults (dpr: string; dureader:
	// string and substring).
	AnswerModes []answer.Mode
	// AnswerKs are the answer accuracy cut-offs; nil means
	// answer.DefaultKs().
	AnswerKs []int
	// PassageText makes dense models encode each document as DPR does,
	// answer.PassageText(title, text) ("title [SEP] text"), instead of
	// title and text joined by a space. The corpus cache key changes with
	// it (EncodedCorpusHash). Lexical models index title and text either
	// way.
	PassageText bool
	// DeferTests leaves the paired tests out: each perturbed run's
	// VsClean, each rate's Drop and AnswerDrop, and Results.Average,
	// which take most of a run's time on a small collection. FillTest
	// and FillTests add them afterwards, with the values Run computes
	// (the browser app computes first those its view shows).
	DeferTests bool
}

// withDefaults returns c with zero fields filled in.
// TestOptions returns the options of the paired tests a run of c makes
// (Resamples and TestSeed, with their defaults).
func (c Config) TestOptions() metrics.CompareOptions {
	c = c.withDefaults()
	return metrics.CompareOptions{Permutations: c.Resamples, Resamples: c.Resamples, Seed: c.TestSeed}
}

func (c Config) withDefaults() Config {
	if c.Split == "" {
		c.Split = DefaultSplit
	}
	if c.Perturbation.Mode == "" {
		c.Perturbation.Mode = perturb.IDShift
	}
	if c.Rates == nil {
		c.Rates = DefaultRates()
	}
	if c.Seeds == 0 {
		c.Seeds = DefaultSeeds
	}
	if c.FirstSeed == 0 {
		c.FirstSeed = 1
	}
	if c.K == 0 {
		c.K = DefaultK
	}
	if c.Examples == 0 {
		c.Examples = DefaultExamples
	}
	if c.Resamples == 0 {
		c.Resamples = DefaultResamples
	}
	if c.TestSeed == 0 {
		c.TestSeed = DefaultTestSeed
	}
	if c.ModelOptions.Engine == "" {
		c.ModelOptions.Engine = EngineAuto
	}
	if c.ModelOptions.Analyzer == "" {
		c.ModelOptions.Analyzer = AnalyzerWordPiece
	}
	if c.Task == "" {
		c.Task = TaskIR
	}
	if c.AnswerModes == nil {
		c.AnswerModes = defaultAnswerModes(c.Task)
	}
	if c.AnswerKs == nil && hasAnswers(c.Task) {
		c.AnswerKs = answer.DefaultKs()
	}
	return c
}

// Validate reports the first problem with c (after defaults), naming the
// field and what is accepted.
func (c Config) Validate() error {
	c = c.withDefaults()
	if len(c.Data) == 0 && len(c.Collections) == 0 {
		return errors.New("no dataset: give Data (\"demo\" or a BEIR directory) or Collections")
	}
	for i, col := range c.Collections {
		if col == nil {
			return fmt.Errorf("collection %d is nil", i+1)
		}
	}
	if len(c.CorpusHashes) > 0 {
		switch {
		case c.Rankings == nil:
			return errors.New("CorpusHashes without Rankings: a corpus of ids only cannot be encoded or searched")
		case len(c.Data) > 0 || len(c.CorpusHashes) != len(c.Collections):
			return fmt.Errorf("CorpusHashes: %d hashes for %d collections and %d Data folders: want one a collection, no Data", len(c.CorpusHashes), len(c.Collections), len(c.Data))
		case c.Task != TaskIR || c.PassageText:
			return fmt.Errorf("CorpusHashes: task %s, passage text %v: a corpus of ids only serves task ir without passage text", c.Task, c.PassageText)
		}
		for i, h := range c.CorpusHashes {
			if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
				return fmt.Errorf("CorpusHashes[%d] %q: want a hex SHA-256 (CorpusHash)", i, h)
			}
		}
	}
	if len(c.Models) == 0 {
		return errors.New("no model: give at least one model name")
	}
	for i, m := range c.Models {
		if m == "" {
			return fmt.Errorf("model %d is empty", i+1)
		}
		if slices.Index(c.Models, m) != i {
			return fmt.Errorf("model %q is listed twice", m)
		}
	}
	if c.Registry == nil {
		return errors.New("no model registry: set Config.Registry")
	}
	p := c.Perturbation
	p.Rate, p.Seed = 0, 0
	if err := p.Validate(); err != nil {
		return fmt.Errorf("perturbation: %w", err)
	}
	if p.Mode == perturb.VocabSwap && !p.ProtectSpecial {
		return fmt.Errorf("perturbation %s needs ProtectSpecial (-protect-special): special tokens cannot be swapped in a tokenizer file", p.Mode)
	}
	if len(c.Rates) == 0 {
		return errors.New("no perturbation rate: give at least one (0 is the clean run)")
	}
	for i, r := range c.Rates {
		if math.IsNaN(r) || r < 0 || r > 1 {
			return fmt.Errorf("rate %v is outside [0, 1]", r)
		}
		if slices.Index(c.Rates, r) != i {
			return fmt.Errorf("rate %v is listed twice", r)
		}
	}
	if c.Seeds < 0 {
		return fmt.Errorf("seeds %d: want at least 1", c.Seeds)
	}
	if c.K < 0 {
		return fmt.Errorf("k %d: want at least 1", c.K)
	}
	if c.Resamples < 0 {
		return fmt.Errorf("resamples %d: want at least 1", c.Resamples)
	}
	if _, err := ParseEngine(string(c.ModelOptions.Engine)); err != nil {
		return err
	}
	if _, err := ParseAnalyzer(string(c.ModelOptions.Analyzer)); err != nil {
		return err
	}
	if _, err := ParseTask(string(c.Task)); err != nil {
		return err
	}
	if len(c.AnswerModes) > 0 && !hasAnswers(c.Task) {
		return fmt.Errorf("answer modes are given but task %s measures no answer accuracy (use task dpr or dureader)", c.Task)
	}
	for i, m := range c.AnswerModes {
		if m.String() == "" || strings.HasPrefix(m.String(), "Mode(") {
			return fmt.Errorf("answer mode %d (%d) is unknown", i+1, int(m))
		}
		if slices.Index(c.AnswerModes, m) != i {
			return fmt.Errorf("answer mode %s is listed twice", m)
		}
	}
	for _, k := range c.AnswerKs {
		if k < 1 {
			return fmt.Errorf("answer cut-off %d: want at least 1", k)
		}
	}
	return nil
}

// seedList returns the seeds of c (after defaults).
func (c Config) seedList() []uint64 {
	s := make([]uint64, c.Seeds)
	for i := range s {
		s[i] = c.FirstSeed + uint64(i)
	}
	return s
}

// perturbedRates returns the rates > 0 of c, in the order given.
func (c Config) perturbedRates() []float64 {
	var out []float64
	for _, r := range c.Rates {
		if r > 0 {
			out = append(out, r)
		}
	}
	return out
}
