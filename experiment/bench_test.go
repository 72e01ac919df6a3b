package experiment_test

import (
	"context"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
)

// BenchmarkRunDemoFake measures the pipeline around the model: perturbing,
// searching, scoring and the paired tests of the make-run defaults (4
// rates, 5 seeds, 10000 resamples) on the demo, with the fake embedder.
func BenchmarkRunDemoFake(b *testing.B) {
	c, err := dataset.Demo("test")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		cfg, _ := fakeConfig(c)
		cfg.Rates, cfg.Seeds, cfg.K, cfg.Resamples = experiment.DefaultRates, 5, 100, 10000
		if _, err := experiment.Run(context.Background(), cfg, nil); err != nil {
			b.Fatal(err)
		}
	}
}
