package experiment

import "github.com/dreval/dreval/perturb"

// StudySeeds is the number of seeds per perturbed rate of the
// tokenizer-poisoning study's protocol.
const StudySeeds = 5

// StudyRates returns the rates of the study's protocol: the clean run and
// 5%, 10% and 20% of the query tokens perturbed. Each call returns a new
// slice.
func StudyRates() []float64 { return []float64{0, 0.05, 0.1, 0.2} }

// StudyScore is how the study scored every model: by cosine ("we used
// cosine similarity"), whatever the model's own score.
const StudyScore = Cosine

// StudyDropRates returns the rates of the study's average drop table
// (its Table 3): 5% and 20%.
func StudyDropRates() []float64 { return []float64{0.05, 0.2} }

// Study returns the study's protocol as a Config to complete with the
// data, the models and their registry: the faithful idshift perturbation
// (special tokens perturbed, out-of-vocabulary ids redrawn) at
// StudyRates, StudySeeds seeds per rate, every model scored by cosine
// (StudyScore), and Config's defaults for the
// rest (K, examples, resamples, test seed). "dreval reproduce" and the
// browser's "reproduce" both start from it, so they run the same
// protocol; a caller may lower Seeds, which Reproduction's document
// then notes.
func Study() Config {
	return Config{
		Perturbation: perturb.Config{Mode: perturb.IDShift, OOV: perturb.Redraw},
		Rates:        StudyRates(),
		Seeds:        StudySeeds,
		ModelOptions: ModelOptions{Score: StudyScore},
	}
}
