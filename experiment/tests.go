package experiment

import (
	"context"
	"fmt"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
)

// TestKind says which of Run's paired comparisons a Test is.
type TestKind int

// The kinds of tests.
const (
	// TestDrop is a rate's Drop under one convention
	// (RateSummary.Drop).
	TestDrop TestKind = iota
	// TestVsClean is one perturbed run's comparison with the clean run
	// (RunResult.VsClean).
	TestVsClean
	// TestAnswerDrop is a rate's answer accuracy drops, every matching
	// mode (RateSummary.AnswerDrop).
	TestAnswerDrop
	// TestAverage is Results.Average, the drops averaged over datasets.
	TestAverage
)

// Test names one paired comparison that a run with Config.DeferTests left
// out: of the model Model of dataset Dataset (indices into
// Results.Datasets and DatasetResult.Models) at Rate, for TestVsClean
// the run of Seed, for TestDrop under Convention.
type Test struct {
	Kind           TestKind
	Dataset, Model int
	Rate           float64
	Seed           uint64
	Convention     metrics.Convention
}

// MissingTests returns the tests res lacks, in the order Run computes
// them: for every dataset, model and rate, each run's VsClean, the Drop
// under each convention and the answer drops; then the average over
// datasets.
func MissingTests(res *results.Results) []Test {
	var out []Test
	for d, ds := range res.Datasets {
		if ds.QrelsAbsent && res.AnswerModes == nil {
			continue
		}
		for m, mr := range ds.Models {
			for _, rs := range mr.Rates {
				if !ds.QrelsAbsent {
					for _, rr := range mr.Perturbed {
						if rr.Rate == rs.Rate && rr.VsClean == nil {
							out = append(out, Test{Kind: TestVsClean, Dataset: d, Model: m, Rate: rs.Rate, Seed: rr.Seed})
						}
					}
					for _, cm := range res.Conventions {
						if _, ok := rs.Drop[cm.Convention]; !ok {
							out = append(out, Test{Kind: TestDrop, Dataset: d, Model: m, Rate: rs.Rate, Convention: cm.Convention})
						}
					}
				}
				if rs.Answers != nil && rs.AnswerDrop == nil {
					out = append(out, Test{Kind: TestAnswerDrop, Dataset: d, Model: m, Rate: rs.Rate})
				}
			}
		}
	}
	if res.Average == nil {
		n := 0
		for _, ds := range res.Datasets {
			if !ds.QrelsAbsent {
				n++
			}
		}
		if n >= 2 {
			out = append(out, Test{Kind: TestAverage})
		}
	}
	return out
}

// FillTests computes every test res lacks (MissingTests).
func FillTests(res *results.Results) error {
	for _, t := range MissingTests(res) {
		if err := FillTest(res, t); err != nil {
			return err
		}
	}
	return nil
}

// FillTest computes test t into res, with the values Run computes; a test
// already there is left as it is.
func FillTest(res *results.Results, t Test) error {
	r, err := testRunner(res)
	if err != nil {
		return err
	}
	if t.Kind == TestAverage {
		if res.Average != nil {
			return nil
		}
		res.Average, err = r.averageDrops()
		return err
	}
	if t.Dataset < 0 || t.Dataset >= len(res.Datasets) {
		return fmt.Errorf("test of dataset %d: the results hold %d", t.Dataset+1, len(res.Datasets))
	}
	ds := res.Datasets[t.Dataset]
	if t.Model < 0 || t.Model >= len(ds.Models) {
		return fmt.Errorf("test of model %d of dataset %s: it has %d", t.Model+1, ds.Name, len(ds.Models))
	}
	mr := ds.Models[t.Model]
	rs := mr.Rate(t.Rate)
	if rs == nil {
		return fmt.Errorf("test of %s on %s at rate %v: that rate was not run", mr.Model, ds.Name, t.Rate)
	}
	var runs []*results.RunResult
	for _, rr := range mr.Perturbed {
		if rr.Rate == t.Rate {
			runs = append(runs, rr)
		}
	}
	switch t.Kind {
	case TestVsClean:
		rr := mr.Run(t.Rate, t.Seed)
		if rr == nil {
			return fmt.Errorf("test of %s on %s at rate %v: no run of seed %d", mr.Model, ds.Name, t.Rate, t.Seed)
		}
		if rr.VsClean != nil || ds.QrelsAbsent {
			return nil
		}
		if d, ok := rs.Drop[PaperConvention]; ok && len(runs) == 1 {
			// One seed: the run's comparison is the rate's drop.
			rr.VsClean = results.Comparisons{PaperConvention: d}
			return nil
		}
		rr.VsClean, err = r.vsClean(mr.Clean, rr)
		return err
	case TestDrop:
		if _, ok := rs.Drop[t.Convention]; ok || ds.QrelsAbsent {
			return nil
		}
		var sc *scoring
		for i := range r.scoring {
			if r.scoring[i].conv == t.Convention {
				sc = &r.scoring[i]
			}
		}
		if sc == nil {
			return fmt.Errorf("test of %s on %s: the runs were not scored under %s", mr.Model, ds.Name, t.Convention)
		}
		var d map[string]results.Comparison
		if t.Convention == PaperConvention && len(runs) == 1 && runs[0].VsClean != nil {
			d = runs[0].VsClean[PaperConvention]
		} else if d, err = r.compare(mr.Clean, runs, *sc); err != nil {
			return err
		}
		if rs.Drop == nil {
			rs.Drop = results.Comparisons{}
		}
		rs.Drop[t.Convention] = d
		return nil
	case TestAnswerDrop:
		if rs.AnswerDrop != nil || rs.Answers == nil {
			return nil
		}
		answers := rs.Answers
		rs.Answers = nil // summarizeAnswers computes them again, the same
		if err := r.summarizeAnswers(mr.Clean, runs, rs); err != nil {
			rs.Answers = answers
			return err
		}
		return nil
	}
	return fmt.Errorf("unknown test kind %d", t.Kind)
}

// testRunner returns a runner that computes res's tests as the run that
// made res computed them.
func testRunner(res *results.Results) (*runner, error) {
	sc, err := parseConventions(res.Conventions)
	if err != nil {
		return nil, err
	}
	cfg := Config{Rates: res.Config.Rates, Resamples: res.Config.Resamples, TestSeed: res.Config.TestSeed}
	return &runner{ctx: context.Background(), cfg: cfg, scoring: sc, res: res}, nil
}
