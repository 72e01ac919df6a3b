package experiment_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/retrieval"
)

// failingCache stores nothing.
type failingCache struct{ *experiment.MemCache }

func (failingCache) Put(string, *retrieval.Matrix, experiment.CacheMeta) error {
	return errors.New("read-only")
}

func TestCorpusVectors(t *testing.T) {
	c := demo(t)
	tok := experimenttest.ForCollection(c)
	m, emb := experimenttest.Model("fake", tok)
	cache := experiment.NewMemCache()
	var progress [][2]int
	o := experiment.CorpusOptions{Cache: cache, Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) }}
	first, src, err := experiment.CorpusVectors(context.Background(), m, c.Corpus, o)
	if err != nil {
		t.Fatal(err)
	}
	n := len(c.Corpus)
	if src.State != experiment.CorpusStored || first.Rows != n || progress[0] != [2]int{0, n} || progress[len(progress)-1] != [2]int{n, n} {
		t.Errorf("first call: %+v, %d rows, progress %v", src, first.Rows, progress)
	}
	seqs := emb.Seqs
	again, src, err := experiment.CorpusVectors(context.Background(), m, c.Corpus, o)
	if err != nil || src.State != experiment.CorpusHit || !strings.HasPrefix(src.Where, "memory cache entry ") || !reflect.DeepEqual(again, first) || emb.Seqs != seqs {
		t.Errorf("second call: %+v, %v; embedded %d more sequences", src, err, emb.Seqs-seqs)
	}
	// Without a cache, and with one that cannot store: encoded.
	if _, src, err := experiment.CorpusVectors(context.Background(), m, c.Corpus, experiment.CorpusOptions{}); err != nil || src.State != experiment.CorpusEncoded || src.StoreErr != nil {
		t.Errorf("no cache: %+v, %v", src, err)
	}
	if _, src, err := experiment.CorpusVectors(context.Background(), m, c.Corpus, experiment.CorpusOptions{Cache: failingCache{experiment.NewMemCache()}}); err != nil || src.State != experiment.CorpusEncoded || src.StoreErr == nil {
		t.Errorf("read-only cache: %+v, %v", src, err)
	}
	// An entry made with another tokenizer is refused, not replaced.
	bad := cacheWith(t, c, "another-tokenizer", first)
	if _, _, err := experiment.CorpusVectors(context.Background(), m, c.Corpus, experiment.CorpusOptions{Cache: bad}); err == nil || !strings.Contains(err.Error(), "tampered (poisoned) tokenizer") {
		t.Errorf("poisoned entry: %v", err)
	}
}
