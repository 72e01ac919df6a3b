package retrieval

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// namedHits returns TopK's lists with each row named by ids (nil: row
// numbers).
func namedHits(hits [][]Hit, ids []string) [][]IDHit {
	out := make([][]IDHit, len(hits))
	for q, hs := range hits {
		out[q] = make([]IDHit, len(hs))
		for i, h := range hs {
			id := strconv.Itoa(h.Doc)
			if ids != nil {
				id = ids[h.Doc]
			}
			out[q][i] = IDHit{id, h.Score}
		}
	}
	return out
}

// TestMergerEqualsWholeCorpus splits corpora into shards at random cuts,
// searches each shard and merges: the lists must equal TopK over the
// whole corpus, ties included (the values are small integers, so many
// documents score alike).
func TestMergerEqualsWholeCorpus(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		docs, queries, dim, k, shards int
		scoring                       Scoring
		withIDs                       bool
	}{
		{10, 3, 4, 3, 3, Dot, false},
		{101, 5, 8, 10, 10, Cosine, false},
		{300, 7, 17, 25, 4, Dot, true},
		{300, 7, 17, 400, 3, Cosine, true}, // k > corpus
		{1000, 4, 3, 100, 7, Dot, false},   // heavy ties: 3 dims of {-1,0,1}
		{50, 2, 5, 5, 50, Cosine, true},    // one document per shard
	} {
		name := fmt.Sprintf("%+v", tc)
		c := NewMatrix(tc.docs, tc.dim)
		for i := range c.Data {
			c.Data[i] = float32(rng.IntN(3) - 1)
		}
		q := randMatrix(rng, tc.queries, tc.dim)
		for i := range q.Data {
			q.Data[i] = float32(rng.IntN(5) - 2)
		}
		var ids []string
		if tc.withIDs {
			for i := 0; i < tc.docs; i++ {
				ids = append(ids, fmt.Sprintf("d%x", rng.Uint32()))
			}
		}
		whole, err := TopK(c, q, Options{K: tc.k, Scoring: tc.scoring, DocIDs: ids})
		if err != nil {
			t.Fatal(err)
		}
		// Random cut points, sorted, always including 0 and docs.
		cuts := []int{0}
		for s := 1; s < tc.shards; s++ {
			cuts = append(cuts, s*tc.docs/tc.shards+rng.IntN(2))
		}
		cuts = append(cuts, tc.docs)
		m := NewMerger(tc.queries, tc.k)
		for s := 0; s+1 < len(cuts); s++ {
			lo, hi := cuts[s], min(cuts[s+1], tc.docs)
			if lo >= hi {
				continue
			}
			part := &Matrix{Rows: hi - lo, Dim: tc.dim, Data: c.Data[lo*tc.dim : hi*tc.dim]}
			sids := ShardIDs(lo, hi-lo)
			if ids != nil {
				sids = ids[lo:hi]
			}
			hs, err := TopK(part, q, Options{K: tc.k, Scoring: tc.scoring, DocIDs: sids})
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Add(hs, sids); err != nil {
				t.Fatal(err)
			}
		}
		want := namedHits(whole, ids)
		if got := m.Lists(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: merged lists differ from the whole corpus's", name)
			continue
		}
		hits, table := m.Hits()
		if got := namedHits(hits, table); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Hits() names other documents than Lists()", name)
		}
	}
}

func TestMergeIDHits(t *testing.T) {
	a := []IDHit{{"b", 3}, {"a", 2}, {"c", 1}}
	b := []IDHit{{"z", 3}, {"d", 2}, {"a", 2}}
	got := MergeIDHits(nil, a, b, 4)
	want := []IDHit{{"z", 3}, {"b", 3}, {"d", 2}, {"a", 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MergeIDHits = %v, want %v", got, want)
	}
	if got := MergeIDHits(nil, nil, nil, 3); len(got) != 0 {
		t.Errorf("merging nothing gave %v", got)
	}
	if err := NewMerger(2, 3).Add([][]Hit{{{Doc: 5}}, nil}, []string{"x"}); err == nil {
		t.Error("a hit outside the shard's ids was accepted")
	}
	if err := NewMerger(2, 3).Add(nil, nil); err == nil {
		t.Error("lists of the wrong number of queries were accepted")
	}
}
