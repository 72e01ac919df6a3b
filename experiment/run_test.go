package experiment_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/retrieval"
)

func demo(t *testing.T) *dataset.Collection {
	t.Helper()
	c, err := dataset.Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fakeConfig returns a small experiment over c with the fake dense model.
func fakeConfig(c *dataset.Collection) (experiment.Config, *experimenttest.Embedder) {
	reg, emb := experimenttest.Registry(experimenttest.ForCollection(c))
	return experiment.Config{
		Collections: []*dataset.Collection{c},
		Models:      []string{"fake"},
		Registry:    reg,
		Rates:       []float64{0, 0.1, 0.5},
		Seeds:       3,
		K:           20,
		Resamples:   500,
	}, emb
}

func TestRunFakeOnDemo(t *testing.T) {
	c := demo(t)
	cfg, emb := fakeConfig(c)
	tok := experimenttest.ForCollection(c)
	var events []experiment.Event
	res, err := experiment.Run(context.Background(), cfg, func(e experiment.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Datasets) != 1 || len(res.Datasets[0].Models) != 1 {
		t.Fatalf("got %d datasets", len(res.Datasets))
	}
	ds := res.Datasets[0]
	judged := len(c.JudgedQueries())
	if ds.Judged != judged || ds.Docs != len(c.Corpus) {
		t.Errorf("judged %d docs %d, want %d %d", ds.Judged, ds.Docs, judged, len(c.Corpus))
	}
	mr := ds.Models[0]
	// The corpus is encoded once, the clean queries once, and each
	// distinct perturbed query once.
	distinct := map[string]bool{}
	for _, q := range c.JudgedQueries() {
		distinct[fmt.Sprint(tok.EncodeIDs(q.Text))] = true
	}
	for _, rate := range []float64{0.1, 0.5} {
		for seed := uint64(1); seed <= 3; seed++ {
			for _, q := range c.JudgedQueries() {
				r, err := perturb.IDs(perturb.Config{Mode: perturb.IDShift, Rate: rate, Seed: seed}, q.ID, tok.EncodeIDs(q.Text), tok)
				if err != nil {
					t.Fatal(err)
				}
				distinct[fmt.Sprint(r.PerturbedIDs)] = true
			}
		}
	}
	if want := len(c.Corpus) + len(distinct); emb.Seqs != want || len(distinct) >= judged*7 {
		t.Errorf("embedded %d sequences, want %d (the corpus, then each distinct query once; %d query runs)", emb.Seqs, want, judged*7)
	}
	if len(mr.Perturbed) != 6 || len(mr.Rates) != 2 {
		t.Fatalf("%d perturbed runs and %d rate summaries, want 6 and 2", len(mr.Perturbed), len(mr.Rates))
	}
	if mr.Perturbed[0].Name != "fake__rate0.1__seed1" || mr.Clean.Name != "fake__clean" {
		t.Errorf("run names %q %q", mr.Clean.Name, mr.Perturbed[0].Name)
	}
	// Every reported mean is what metrics computes on the run.
	for _, rr := range append([]*results.RunResult{mr.Clean}, mr.Perturbed...) {
		checkScores(t, c, rr, res)
	}
	// The bag-of-words fake finds some of the demo's answers clean (far
	// fewer than a real model: its 64 hashed dimensions mix up passages
	// that share most of their words, as the demo's near-misses do), and
	// half the tokens shifted hurts it.
	clean := mr.Clean.Means[st]["ndcg@10"]
	heavy := mr.Rates[1].Stats[st]["ndcg@10"].Mean
	if !(clean > 0.1) || !(heavy < clean/2) {
		t.Errorf("ndcg@10 clean %v, at rate 0.5 %v: want a good clean run and a drop", clean, heavy)
	}
	d := mr.Rates[1].Drop[st]["ndcg@10"]
	if math.Abs(float64(d.MeanDiff)-(float64(d.MeanB)-float64(d.MeanA))) > 1e-12 || float64(d.MeanA) != clean {
		t.Errorf("drop %+v inconsistent with clean %v", d, clean)
	}
	if !(float64(d.PRandomization) < 0.05) {
		t.Errorf("drop at rate 0.5 has p %v; want significant", d.PRandomization)
	}
	if mean := mr.Rates[1].Stats[st]["ndcg@10"].Mean; math.Abs(float64(d.MeanB)-mean) > 1e-12 {
		t.Errorf("seed-averaged per-query mean %v differs from the mean over seeds %v", d.MeanB, mean)
	}
	// The realised fraction of changed tokens is near 0.9*rate.
	if f := mr.Rates[1].ChangedFraction.Mean; f < 0.3 || f > 0.6 {
		t.Errorf("changed fraction at rate 0.5 = %v, want about 0.45", f)
	}
	if len(mr.Examples) != 2*experiment.DefaultExamples {
		t.Errorf("%d examples, want %d", len(mr.Examples), 2*experiment.DefaultExamples)
	}
	for _, ex := range mr.Examples {
		if ex.Changed > 0 && ex.Decoded == ex.PerturbedDecoded {
			t.Errorf("example %s: changed %d tokens but decodes the same: %q", ex.QueryID, ex.Changed, ex.Decoded)
		}
	}
	var sawCorpus, sawQueries, sawSearch bool
	for _, e := range events {
		switch {
		case e.Step == experiment.StepEncodeCorpus && e.Done == len(c.Corpus) && e.Total == len(c.Corpus):
			sawCorpus = true
		case e.Step == experiment.StepEncodeQueries && e.Done == e.Total && e.Total == len(distinct):
			sawQueries = true
		case e.Step == experiment.StepSearch && e.Done == e.Total && e.Total == 7:
			sawSearch = true
		}
	}
	if !sawCorpus || !sawQueries || !sawSearch {
		t.Errorf("progress events lack a finished corpus encoding (%v), query encoding (%v) or search (%v)", sawCorpus, sawQueries, sawSearch)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("results do not encode as JSON: %v", err)
	}
}

// checkScores recomputes rr's means and per-query values with metrics.
func checkScores(t *testing.T, c *dataset.Collection, rr *results.RunResult, res *results.Results) {
	t.Helper()
	qrels := metrics.Qrels{}
	for _, q := range c.JudgedQueries() {
		qrels[q.ID] = c.Qrels[q.ID]
	}
	if len(res.Conventions) < 2 {
		t.Fatalf("scored under %v: want st and trec at least", res.Conventions)
	}
	for _, cm := range res.Conventions {
		conv, got := cm.Convention, rr.Means[cm.Convention]
		if len(got) != len(cm.Names) || rr.Queries[conv] == 0 {
			t.Errorf("%s %s: %d means over %d queries for %d measures", rr.Name, conv, len(got), rr.Queries[conv], len(cm.Names))
		}
		ms, err := metrics.ParseMeasures(cm.Names, conv)
		if err != nil {
			t.Fatal(err)
		}
		want, err := metrics.Evaluate(qrels, rr.Run, ms, metrics.Options{Convention: conv, Complete: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range ms {
			if got[m.String()] != want.All[i] {
				t.Errorf("%s %s %s = %v, metrics says %v", rr.Name, conv, m, got[m.String()], want.All[i])
			}
			for qid, vals := range want.PerQuery {
				qv := rr.PerQuery[qid][conv]
				if qv[m.String()] != vals[i] {
					t.Errorf("%s %s query %s %s = %v, metrics says %v", rr.Name, conv, qid, m, qv[m.String()], vals[i])
				}
			}
		}
	}
}

func TestRunIsDeterministic(t *testing.T) {
	c := demo(t)
	enc := func() string {
		cfg, _ := fakeConfig(c)
		res, err := experiment.Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return comparable(t, res)
	}
	if a, b := enc(), enc(); a != b {
		t.Error("two runs of the same configuration differ")
	}
}

func TestCorpusCache(t *testing.T) {
	c := demo(t)
	cache := experiment.NewMemCache()
	cfg, emb := fakeConfig(c)
	cfg.Cache = cache
	cfg.Rates = []float64{0}
	first, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := first.Datasets[0].Models[0].CorpusCache; s != "stored" {
		t.Errorf("first run: corpus cache %q, want stored", s)
	}
	before := emb.Seqs
	second, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := second.Datasets[0].Models[0].CorpusCache; s != "hit" {
		t.Errorf("second run: corpus cache %q, want hit", s)
	}
	distinct := map[string]bool{}
	for _, q := range c.JudgedQueries() {
		distinct[fmt.Sprint(experimenttest.ForCollection(c).EncodeIDs(q.Text))] = true
	}
	if n := emb.Seqs - before; n != len(distinct) {
		t.Errorf("second run embedded %d sequences, want only the %d distinct queries", n, len(distinct))
	}
	if a, b := first.Datasets[0].Models[0].Clean.Means[st]["ndcg@10"], second.Datasets[0].Models[0].Clean.Means[st]["ndcg@10"]; a != b {
		t.Errorf("cached run ndcg@10 %v, fresh %v", b, a)
	}
}

// putBad stores m under the key the fake model and c's corpus use.
func cacheWith(t *testing.T, c *dataset.Collection, tokFP string, m *retrieval.Matrix) *experiment.MemCache {
	t.Helper()
	cache := experiment.NewMemCache()
	tok := experimenttest.ForCollection(c)
	model, _ := experimenttest.Model("fake", tok)
	if tokFP == "" {
		tokFP = tok.Fingerprint()
	}
	hash := experiment.CorpusHash(c.Corpus)
	key := experiment.CacheKey(model.Fingerprint, hash)
	meta := experiment.CacheMeta{ModelFingerprint: model.Fingerprint, TokenizerFingerprint: tokFP, CorpusSHA256: hash, Rows: m.Rows, Dim: m.Dim}
	if err := cache.Put(key, m, meta); err != nil {
		t.Fatal(err)
	}
	return cache
}

func TestBadCorpusVectors(t *testing.T) {
	c := demo(t)
	n := len(c.Corpus)
	nanRow := retrieval.NewMatrix(n, 64)
	for i := range nanRow.Data {
		nanRow.Data[i] = 0.1
	}
	nanRow.Row(7)[3] = float32(math.NaN())
	good := retrieval.NewMatrix(n, 64)
	tests := []struct {
		name  string
		cache *experiment.MemCache
		want  string
	}{
		{"poisoned tokenizer", cacheWith(t, c, "some-other-tokenizer", good), "tampered (poisoned) tokenizer"},
		{"row count", cacheWith(t, c, "", retrieval.NewMatrix(n-1, 64)), "rows, but the corpus has"},
		{"dimension", cacheWith(t, c, "", retrieval.NewMatrix(n, 32)), "32 dimensions, but the model makes 64"},
		{"NaN", cacheWith(t, c, "", nanRow), "row 7 (document " + `"` + c.Corpus[7].ID + `"` + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := fakeConfig(c)
			cfg.Cache = tt.cache
			_, err := experiment.Run(context.Background(), cfg, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestEmbedderNaNNamesDocument(t *testing.T) {
	c := demo(t)
	cfg, emb := fakeConfig(c)
	emb.Poison = func(i int, v []float32) {
		if emb.Seqs == 5 {
			v[0] = float32(math.Inf(1))
		}
	}
	_, err := experiment.Run(context.Background(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "document") || !strings.Contains(err.Error(), "finite") {
		t.Fatalf("got %v, want an error naming the document and saying vectors must be finite", err)
	}
}

func TestBadCollections(t *testing.T) {
	base := demo(t)
	withQrels := func(q dataset.Qrels) *dataset.Collection {
		c := *base
		c.Qrels = q
		return &c
	}
	unknownDoc := withQrels(dataset.Qrels{})
	unjudged := withQrels(dataset.Qrels{})
	for qid, docs := range base.Qrels {
		unknownDoc.Qrels[qid] = docs
		if qid != base.Queries[0].ID {
			unjudged.Qrels[qid] = docs
		}
	}
	unknownDoc.Qrels[base.Queries[0].ID] = map[string]int{"no-such-doc": 1, "other-missing": 2}
	empty := *base
	empty.Corpus = nil
	spaced := *base
	spaced.Corpus = append([]dataset.Doc{{ID: "doc 1", Text: "x"}}, base.Corpus[1:]...)

	tests := []struct {
		name    string
		c       *dataset.Collection
		err     string
		warning string
	}{
		{"empty corpus", &empty, "corpus is empty", ""},
		{"spaced id", &spaced, `document id "doc 1" is empty or holds white space`, ""},
		{"no judgments", withQrels(dataset.Qrels{}), "none of its 212 queries has judgments", ""},
		{"unknown docs", unknownDoc, "", "the qrels name 2 documents absent from the corpus"},
		{"unjudged query", unjudged, "", "1 of 212 queries have no judgments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := fakeConfig(tt.c)
			cfg.Rates = []float64{0, 0.1}
			cfg.Seeds = 1
			res, err := experiment.Run(context.Background(), cfg, nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(res.Warnings, "\n"), tt.warning) {
				t.Errorf("warnings %q lack %q", res.Warnings, tt.warning)
			}
		})
	}
	// The unjudged query is excluded and counted, not scored.
	cfg, _ := fakeConfig(unjudged)
	cfg.Rates = []float64{0}
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds := res.Datasets[0]
	if ds.Unjudged != 1 || ds.Judged != 211 {
		t.Errorf("judged %d unjudged %d, want 211 and 1", ds.Judged, ds.Unjudged)
	}
	if _, ok := ds.Models[0].Clean.Run[base.Queries[0].ID]; ok {
		t.Errorf("the unjudged query was searched")
	}
}

func TestConfigValidate(t *testing.T) {
	reg, _ := experimenttest.Registry(experimenttest.NewTokenizer("a"))
	ok := experiment.Config{Data: []string{"demo"}, Models: []string{"fake"}, Registry: reg}
	tests := []struct {
		name string
		edit func(*experiment.Config)
		want string
	}{
		{"ok", func(*experiment.Config) {}, ""},
		{"no data", func(c *experiment.Config) { c.Data = nil }, "no dataset"},
		{"no models", func(c *experiment.Config) { c.Models = nil }, "no model"},
		{"nil collection", func(c *experiment.Config) { c.Collections = []*dataset.Collection{nil} }, "collection 1 is nil"},
		{"twice", func(c *experiment.Config) { c.Models = []string{"fake", "fake"} }, "listed twice"},
		{"rate", func(c *experiment.Config) { c.Rates = []float64{0, 1.5} }, "outside [0, 1]"},
		{"nan rate", func(c *experiment.Config) { c.Rates = []float64{math.NaN()} }, "outside [0, 1]"},
		{"mode", func(c *experiment.Config) { c.Perturbation.Mode = "nope" }, "unknown perturbation mode"},
		{"vocabswap", func(c *experiment.Config) { c.Perturbation.Mode = perturb.VocabSwap }, "needs ProtectSpecial"},
		{"seeds", func(c *experiment.Config) { c.Seeds = -1 }, "seeds"},
		{"engine", func(c *experiment.Config) { c.ModelOptions.Engine = "gpu" }, "engine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.edit(&c)
			err := c.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestUnknownModel(t *testing.T) {
	c := demo(t)
	cfg, _ := fakeConfig(c)
	cfg.Models = []string{"nosuch"}
	_, err := experiment.Run(context.Background(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown model "nosuch"`) || !strings.Contains(err.Error(), "fake") {
		t.Fatalf("got %v", err)
	}
}

func TestLexicalModel(t *testing.T) {
	c := demo(t)
	cfg, _ := fakeConfig(c)
	cfg.Models = []string{"fakebm25", "fake"}
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	bm := res.Datasets[0].Models[0]
	if bm.Kind != experiment.Lexical || bm.CorpusCache != "" {
		t.Errorf("kind %q cache %q", bm.Kind, bm.CorpusCache)
	}
	for _, rr := range append([]*results.RunResult{bm.Clean}, bm.Perturbed...) {
		checkScores(t, c, rr, res)
	}
	if clean, heavy := bm.Clean.Means[st]["ndcg@10"], bm.Rates[1].Stats[st]["ndcg@10"].Mean; !(clean > 0.3) || !(heavy < clean) {
		t.Errorf("BM25 ndcg@10 clean %v, rate 0.5 %v: want a good clean run and a drop", clean, heavy)
	}
	// Both models read the same perturbed ids: same examples.
	if a, b := bm.Examples[0], res.Datasets[0].Models[1].Examples[0]; a != b {
		t.Errorf("examples differ between models sharing a tokenizer: %+v vs %+v", a, b)
	}
}

func TestSmallKWarns(t *testing.T) {
	c := demo(t)
	cfg, _ := fakeConfig(c)
	cfg.K = 10
	cfg.Rates = []float64{0}
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "k = 10 is below the cut-off of map@100, recall_100") {
		t.Errorf("warnings %q lack the k warning", w)
	}
}

func TestPerturbationModes(t *testing.T) {
	c := demo(t)
	for _, mode := range []perturb.Mode{perturb.IDShift, perturb.IDRandom, perturb.Typo, perturb.WordDrop, perturb.VocabSwap} {
		t.Run(string(mode), func(t *testing.T) {
			cfg, _ := fakeConfig(c)
			cfg.Models = []string{"fake", "fakebm25"}
			cfg.Perturbation = perturb.Config{Mode: mode, ProtectSpecial: true}
			cfg.Rates = []float64{0, 0.5}
			cfg.Seeds = 2
			res, err := experiment.Run(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range res.Datasets[0].Models {
				rs := m.Rates[0]
				if rs.ChangedFraction.Mean <= 0.05 {
					t.Errorf("%s: changed fraction %v at rate 0.5", m.Model, rs.ChangedFraction.Mean)
				}
				if !(rs.Stats[st]["ndcg@10"].Mean < m.Clean.Means[st]["ndcg@10"]) {
					t.Errorf("%s: ndcg@10 %v at rate 0.5, clean %v: want a drop", m.Model, rs.Stats[st]["ndcg@10"].Mean, m.Clean.Means[st]["ndcg@10"])
				}
				for _, ex := range m.Examples {
					if ex.Changed > 0 && ex.Decoded == ex.PerturbedDecoded {
						t.Errorf("%s: example %s changed %d tokens but decodes the same", m.Model, ex.QueryID, ex.Changed)
					}
				}
			}
		})
	}
}

// With one seed the drop table is the run's own comparison with the clean
// run; it must equal a paired test computed afresh from the per-query
// values.
func TestSingleSeedDropEqualsPairedTest(t *testing.T) {
	c := demo(t)
	cfg, _ := fakeConfig(c)
	cfg.Rates = []float64{0, 0.5}
	cfg.Seeds = 1
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	mr := res.Datasets[0].Models[0]
	run := mr.Perturbed[0]
	for _, name := range res.Measures(st) {
		// The resampling draws follow the query order: the runner's is
		// sorted query ids.
		a, b := sortedPairs(mr.Clean, run, name)
		want, err := metrics.PairedTest(a, b, metrics.CompareOptions{Permutations: cfg.Resamples, Resamples: cfg.Resamples, Seed: experiment.DefaultTestSeed})
		if err != nil {
			t.Fatal(err)
		}
		got := mr.Rates[0].Drop[st][name]
		if float64(got.MeanDiff) != want.Diff || float64(got.PRandomization) != want.PRandomization ||
			float64(got.CILow) != want.CILow || float64(got.CIHigh) != want.CIHigh {
			t.Errorf("%s: drop %+v, fresh paired test %+v", name, got, want)
		}
	}
}

// sortedPairs returns the clean and perturbed per-query values of an st
// measure, in query id order, over the queries the clean run scored.
func sortedPairs(clean, run *results.RunResult, name string) (a, b []float64) {
	ids := make([]string, 0, len(clean.PerQuery))
	for qid, qv := range clean.PerQuery {
		if _, ok := qv[st][name]; ok {
			ids = append(ids, qid)
		}
	}
	slices.Sort(ids)
	for _, qid := range ids {
		a = append(a, clean.PerQuery[qid][st][name])
		b = append(b, run.PerQuery[qid][st][name])
	}
	return a, b
}

// The conventions' short names in the tests.
const (
	st       = metrics.ConventionST
	trec     = metrics.ConventionTREC
	dureader = metrics.ConventionDuReader
)
