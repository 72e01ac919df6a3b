package experiment_test

import (
	"context"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
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

// BenchmarkRunLessonStatic measures the page's opening lesson natively:
// the installed static model on the demo at the page's sweep (7 rates,
// 5 seeds, top 100, every query decoded for the inspector, the paired
// tests deferred as the page defers them), model opening included.
func BenchmarkRunLessonStatic(b *testing.B) {
	sharedtest.ModelDir(b, "static")
	c, err := dataset.Demo("test")
	if err != nil {
		b.Fatal(err)
	}
	reg := experiment.DefaultRegistry()
	for b.Loop() {
		cfg := experiment.Config{
			Collections:  []*dataset.Collection{c},
			Models:       []string{"static"},
			Registry:     reg,
			ModelOptions: experiment.ModelOptions{Engine: "go", ModelsDir: sharedtest.ModelsDir()},
			Rates:        []float64{0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5},
			Seeds:        5,
			K:            100,
			Examples:     1 << 20,
			Resamples:    10000,
			DeferTests:   true,
		}
		if _, err := experiment.Run(context.Background(), cfg, nil); err != nil {
			b.Fatal(err)
		}
	}
}
