package experiment_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/retrieval"
)

// searchRankings answers Run's searches as a pipeline does: the corpus
// encoded beforehand, the queries embedded and searched exactly.
type searchRankings struct {
	docs *retrieval.Matrix
	ids  []string
}

func (s searchRankings) Rank(_ string, m *experiment.Model, ids [][]int32, _ []string, k int) ([]metrics.Ranked, error) {
	q, err := experiment.EmbedQueries(context.Background(), m, ids)
	if err != nil {
		return nil, err
	}
	hits, err := retrieval.TopK(s.docs, q, retrieval.Options{K: k, Scoring: m.Scoring(), DocIDs: s.ids})
	if err != nil {
		return nil, err
	}
	out := make([]metrics.Ranked, len(hits))
	for i, hs := range hits {
		for _, h := range hs {
			out[i] = append(out[i], metrics.ScoredDoc{DocID: s.ids[h.Doc], Score: float64(h.Score)})
		}
	}
	return out, nil
}

// TestRunIDsOnlyCorpus: with Rankings and CorpusHashes, a collection whose
// corpus holds only the documents' ids gives the results the whole
// collection gives, hashes included.
func TestRunIDsOnlyCorpus(t *testing.T) {
	c := demo(t)
	cfg, _ := fakeConfig(c)
	m, err := cfg.Registry.Open(context.Background(), "fake", cfg.ModelOptions)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := experiment.EncodeDocuments(context.Background(), m, c.Corpus, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(c.Corpus))
	for i, d := range c.Corpus {
		ids[i] = d.ID
	}
	cfg.Rankings = searchRankings{docs, ids}
	run := func(cfg experiment.Config) string {
		t.Helper()
		res, err := experiment.Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return comparable(t, res)
	}
	whole := run(cfg)

	thin := *c
	thin.Corpus = make([]dataset.Doc, len(c.Corpus))
	for i, d := range c.Corpus {
		thin.Corpus[i] = dataset.Doc{ID: d.ID}
	}
	h := experiment.NewCorpusHasher()
	for _, d := range c.Corpus {
		h.Add(d)
	}
	if h.Sum() != experiment.CorpusHash(c.Corpus) {
		t.Fatalf("CorpusHasher %s, CorpusHash %s", h.Sum(), experiment.CorpusHash(c.Corpus))
	}
	cfg.Collections, cfg.CorpusHashes = []*dataset.Collection{&thin}, []string{h.Sum()}
	if got := run(cfg); got != whole {
		t.Errorf("ids only with the corpus hash given:\n%s\nthe whole collection:\n%s", got, whole)
	}
	if !strings.Contains(whole, experiment.CorpusHash(c.Corpus)) {
		t.Error("the results do not record the corpus hash")
	}

	// Without the hash, the ids-only corpus hashes as what it is.
	cfg.CorpusHashes = nil
	if got := run(cfg); got == whole {
		t.Error("an ids-only corpus without CorpusHashes gave the whole collection's hashes")
	}
}

func TestCorpusHashesValidate(t *testing.T) {
	c := demo(t)
	base, _ := fakeConfig(c)
	hash := experiment.CorpusHash(c.Corpus)
	tests := []struct {
		name string
		edit func(*experiment.Config)
		want string
	}{
		{"ok", func(*experiment.Config) {}, ""},
		{"no rankings", func(c *experiment.Config) { c.Rankings = nil }, "without Rankings"},
		{"count", func(c *experiment.Config) { c.CorpusHashes = []string{hash, hash} }, "2 hashes for 1 collections"},
		{"data", func(c *experiment.Config) { c.Data = []string{"demo"} }, "no Data"},
		{"task", func(c *experiment.Config) { c.Task = experiment.TaskDPR }, "task dpr"},
		{"passage text", func(c *experiment.Config) { c.PassageText = true }, "passage text true"},
		{"not a hash", func(c *experiment.Config) { c.CorpusHashes = []string{"abc"} }, `CorpusHashes[0] "abc"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			cfg.Rankings = searchRankings{}
			cfg.CorpusHashes = []string{hash}
			tt.edit(&cfg)
			err := cfg.Validate()
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
