package experiment_test

import (
	"context"
	"slices"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/perturb"
)

// TestStudy checks the protocol the results record: idshift with special
// tokens perturbed and out-of-vocabulary ids redrawn, rates 0, 5, 10 and
// 20%, five seeds.
func TestStudy(t *testing.T) {
	c, err := dataset.Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := experimenttest.Registry(experimenttest.ForCollection(c))
	cfg := experiment.Study()
	cfg.Collections = []*dataset.Collection{c}
	cfg.Models = []string{"fake"}
	cfg.Registry = reg
	cfg.Resamples = 10
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Config
	if !slices.Equal(got.Rates, []float64{0, 0.05, 0.1, 0.2}) || len(got.Seeds) != 5 ||
		got.Perturbation != string(perturb.IDShift) || got.OOV != string(perturb.Redraw) || got.ProtectSpecial {
		t.Errorf("the study's protocol ran as rates %v, seeds %v, mode %s, oov %s, special tokens protected %v",
			got.Rates, got.Seeds, got.Perturbation, got.OOV, got.ProtectSpecial)
	}
	// The rates are the caller's to change: each call returns new ones.
	experiment.StudyRates()[1] = 0.5
	if r := experiment.Study().Rates[1]; r != 0.05 {
		t.Errorf("StudyRates shares its slice: rate 1 is %v after a caller changed it", r)
	}
}
