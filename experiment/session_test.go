package experiment_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/results"
)

// comparable returns res as JSON with the fields that vary between runs
// (seconds) zeroed, and the rankings, which JSON leaves out.
func comparable(t *testing.T, res *results.Results) string {
	t.Helper()
	type runs struct {
		Res  *results.Results       `json:"res"`
		Runs map[string]metrics.Run `json:"runs"`
	}
	all := map[string]metrics.Run{}
	for _, ds := range res.Datasets {
		for _, m := range ds.Models {
			m.CorpusSeconds, m.QuerySeconds = 0, 0
			for _, rr := range m.Runs() {
				all[ds.Name+"/"+rr.Name] = rr.Run
			}
		}
	}
	b, err := json.Marshal(runs{res, all})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSessionEqualsRun runs a sequence of experiments in one session, as
// the browser's slider and buttons do (a rate, a neighbouring rate, a
// sweep, the first rate again, other seeds, another mode, another k,
// both models), and checks each result against a fresh Run's.
func TestSessionEqualsRun(t *testing.T) {
	c := demo(t)
	base, _ := fakeConfig(c)
	base.Models = []string{"fake", "fakebm25"}
	base.Seeds, base.Resamples, base.Examples = 2, 300, 1<<20
	var steps []experiment.Config
	add := func(f func(*experiment.Config)) {
		cfg := base
		f(&cfg)
		steps = append(steps, cfg)
	}
	add(func(c *experiment.Config) { c.Rates = []float64{0, 0.1} })
	add(func(c *experiment.Config) { c.Rates = []float64{0, 0.11} })
	add(func(c *experiment.Config) { c.Rates = []float64{0, 0.05, 0.1, 0.2, 0.5} })
	add(func(c *experiment.Config) { c.Rates = []float64{0, 0.1} })
	add(func(c *experiment.Config) { c.Rates = []float64{0, 0.1}; c.Seeds, c.FirstSeed = 3, 2 })
	add(func(c *experiment.Config) {
		c.Rates = []float64{0, 0.1}
		c.Perturbation = perturb.Config{Mode: perturb.IDRandom}
	})
	add(func(c *experiment.Config) { c.Rates = []float64{0, 0.1}; c.K = 7 })
	add(func(c *experiment.Config) { c.Rates = []float64{0, 0.3}; c.Models = []string{"fakebm25"} })
	add(func(c *experiment.Config) {
		c.Rates = []float64{0, 0.2}
		c.Perturbation = perturb.Config{Mode: perturb.Typo}
	})
	s := experiment.NewSession()
	for i, cfg := range steps {
		var events []experiment.Event
		got, err := s.Run(context.Background(), cfg, func(e experiment.Event) { events = append(events, e) })
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		want, err := experiment.Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := comparable(t, got), comparable(t, want); g != w {
			t.Errorf("step %d (rates %v, seeds %d, %s, k %d): the session's results differ from Run's", i, cfg.Rates, cfg.Seeds, cfg.Perturbation.Mode, cfg.K)
		}
		// A repeated experiment searches nothing again.
		if i == 3 {
			for _, e := range events {
				if e.Step == experiment.StepRank || e.Step == experiment.StepEncodeQueries && e.Total > 0 {
					t.Errorf("step %d repeats step 0 but searched or encoded again: %+v", i, e)
				}
			}
		}
	}
}

// TestSessionReloadsChangedData checks that a session does not reuse a
// directory's collection, nor an index of other corpus vectors.
func TestSessionReloadsChangedData(t *testing.T) {
	dir := writeDPRFolder(t)
	cfg, _ := noQrelsConfig(t, dir)
	s := experiment.NewSession()
	first, err := s.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Another collection given directly, with other documents.
	c, err := dataset.Load(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	c.Corpus[0].Text = "Lyon is a city in France"
	cfg.Data, cfg.Collections = nil, []*dataset.Collection{c}
	got, err := s.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if comparable(t, got) != comparable(t, want) {
		t.Error("a session's run on changed data differs from Run's")
	}
	if comparable(t, got) == comparable(t, first) {
		t.Error("changing a passage changed nothing: the test does not test")
	}
}

// TestDeferredTestsEqualRun runs with DeferTests and fills the tests in,
// all at once and one by one in reverse order: the results must be
// Run's, for task ir (one seed and several) and for task dpr without
// qrels (answer drops), and for two datasets (the averages).
func TestDeferredTestsEqualRun(t *testing.T) {
	c := demo(t)
	ir, _ := fakeConfig(c)
	ir.Models = []string{"fake", "fakebm25"}
	oneSeed := ir
	oneSeed.Seeds = 1
	two := ir
	two.Collections = []*dataset.Collection{c, c}
	dpr, _ := noQrelsConfig(t, writeDPRFolder(t))
	for name, cfg := range map[string]experiment.Config{"ir": ir, "one seed": oneSeed, "two datasets": two, "dpr": dpr} {
		want, err := experiment.Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg.DeferTests = true
		for _, order := range []string{"all", "reverse"} {
			got, err := experiment.Run(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			missing := experiment.MissingTests(got)
			if len(missing) == 0 {
				t.Fatalf("%s: a deferred run misses no test", name)
			}
			if order == "all" {
				err = experiment.FillTests(got)
			} else {
				for _, x := range slices.Backward(missing) {
					if err = experiment.FillTest(got, x); err != nil {
						break
					}
				}
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if n := len(experiment.MissingTests(got)); n != 0 {
				t.Errorf("%s, %s: %d tests still missing", name, order, n)
			}
			if !reflect.DeepEqual(jsonOf(t, got), jsonOf(t, want)) {
				t.Errorf("%s, filled %s: the results differ from Run's", name, order)
			}
		}
	}
}

func jsonOf(t *testing.T, res *results.Results) string {
	t.Helper()
	return comparable(t, res)
}

func TestFillTestErrors(t *testing.T) {
	c := demo(t)
	cfg, _ := fakeConfig(c)
	cfg.DeferTests = true
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []experiment.Test{
		{Kind: experiment.TestDrop, Dataset: 3},
		{Kind: experiment.TestDrop, Model: 4},
		{Kind: experiment.TestDrop, Rate: 0.42},
		{Kind: experiment.TestVsClean, Rate: 0.1, Seed: 99},
		{Kind: experiment.TestDrop, Rate: 0.1, Convention: metrics.ConventionDuReader},
		{Kind: experiment.TestKind(9), Rate: 0.1},
	} {
		if err := experiment.FillTest(res, x); err == nil {
			t.Errorf("FillTest(%+v) succeeded", x)
		}
	}
}
