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
		cfg.Rates, cfg.Seeds, cfg.K, cfg.Resamples = experiment.DefaultRates(), 5, 100, 10000
		if _, err := experiment.Run(context.Background(), cfg, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunDemoSlider measures what the browser's rate slider reruns:
// the demo at one new rate with one seed (clean run included), fake
// embedder, 10000 resamples.
func BenchmarkRunDemoSlider(b *testing.B) {
	c, err := dataset.Demo("test")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		cfg, _ := fakeConfig(c)
		cfg.Rates, cfg.Seeds, cfg.K, cfg.Resamples = []float64{0, 0.1}, 1, 100, 10000
		if _, err := experiment.Run(context.Background(), cfg, nil); err != nil {
			b.Fatal(err)
		}
	}
}
