// Package reporttest makes the experiment results the tests of package
// report and its subpackages render: two fake models on the demo
// collection, run once per test binary.
package reporttest

import (
	"context"
	"sync"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/results"
)

var (
	once    sync.Once
	oneRes  *results.Results
	twoRes  *results.Results
	onceErr error
)

// Results runs the fake models "fake" and "fake2" on the demo collection
// (one), and on the demo and "demo-half", the demo with half its queries
// (two, for the averages), at rates 0, 5% and 20% with 3 seeds; once, the
// results shared by every caller.
func Results(t testing.TB) (one, two *results.Results) {
	t.Helper()
	once.Do(func() {
		c, err := dataset.Demo("test")
		if err != nil {
			onceErr = err
			return
		}
		c2 := *c
		c2.Name = "demo-half"
		c2.Queries = c.Queries[:len(c.Queries)/2]
		tok := experimenttest.ForCollection(c)
		reg, _ := experimenttest.Registry(tok)
		other, _ := experimenttest.Model("fake2", tok)
		other.Query.Embedder.(*experimenttest.Embedder).D = 32
		reg.Register("fake2", func(context.Context, string, experiment.ModelOptions) (*experiment.Model, error) { return other, nil })
		cfg := experiment.Config{
			Collections: []*dataset.Collection{c},
			Models:      []string{"fake", "fake2"},
			Registry:    reg,
			Rates:       []float64{0, 0.05, 0.2},
			Seeds:       3,
			K:           50,
			Resamples:   200,
			Version:     "test",
		}
		if oneRes, onceErr = experiment.Run(context.Background(), cfg, nil); onceErr != nil {
			return
		}
		cfg.Collections = []*dataset.Collection{c, &c2}
		twoRes, onceErr = experiment.Run(context.Background(), cfg, nil)
	})
	if onceErr != nil {
		t.Fatal(onceErr)
	}
	return oneRes, twoRes
}
