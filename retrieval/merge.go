package retrieval

import (
	"fmt"
	"strconv"
)

// IDHit is a retrieved document named by its id rather than by a corpus
// row: what a per-shard top-k list becomes once shards are merged.
type IDHit struct {
	ID    string
	Score float32
}

// ShardIDs returns the ids TopK and Merger use for the rows of a corpus
// shard that has no ids file: the row numbers of the whole corpus in
// decimal, offset+0, offset+1, ..., so that a sharded search ranks and
// breaks ties exactly as the unsharded search of the concatenated corpus,
// whose rows are named by their numbers, does.
func ShardIDs(offset, rows int) []string {
	ids := make([]string, rows)
	for i := range ids {
		ids[i] = strconv.Itoa(offset + i)
	}
	return ids
}

// Merger merges the top-k lists of corpus shards, searched one after the
// other, into the top-k of their concatenation: the result equals what
// TopK returns for the whole corpus, documents, scores and ties (broken
// by id, as TopK breaks them) alike, since the best k of a union are
// among the best k of each part. It holds at most k hits per query, so a
// search over many shards needs memory for one shard and the merged lists
// only.
type Merger struct {
	k     int
	lists [][]IDHit
	tmp   []IDHit
}

// NewMerger returns a Merger of the lists of queries queries, keeping k
// hits each.
func NewMerger(queries, k int) *Merger {
	return &Merger{k: k, lists: make([][]IDHit, queries)}
}

// Add merges one shard's lists: hits[q] is query q's top-k over the
// shard (TopK's result, best first), its rows named by ids. The ids of
// different shards must differ (Merger does not check it; "dreval search"
// does).
func (m *Merger) Add(hits [][]Hit, ids []string) error {
	if len(hits) != len(m.lists) {
		return fmt.Errorf("merging a shard's lists: %d queries, want %d", len(hits), len(m.lists))
	}
	for q, hs := range hits {
		add := make([]IDHit, len(hs))
		for i, h := range hs {
			if h.Doc < 0 || h.Doc >= len(ids) {
				return fmt.Errorf("merging a shard's lists: query %d: row %d outside the shard's %d ids", q, h.Doc, len(ids))
			}
			add[i] = IDHit{ID: ids[h.Doc], Score: h.Score}
		}
		m.lists[q] = m.merge(m.lists[q], add)
	}
	return nil
}

// AddIDHits merges lists already named by id, each best first (a shard's
// lists computed elsewhere, or another Merger's Lists).
func (m *Merger) AddIDHits(lists [][]IDHit) error {
	if len(lists) != len(m.lists) {
		return fmt.Errorf("merging lists: %d queries, want %d", len(lists), len(m.lists))
	}
	for q, l := range lists {
		m.lists[q] = m.merge(m.lists[q], l)
	}
	return nil
}

// merge returns the best k of a and b, both best first.
func (m *Merger) merge(a, b []IDHit) []IDHit {
	m.tmp = MergeIDHits(m.tmp[:0], a, b, m.k)
	return append(a[:0], m.tmp...)
}

// MergeIDHits appends to dst the best k hits of a and b, two lists each
// best first, in TopK's order: score descending, then id descending
// (byte-wise). A hit whose id is in both lists (the same document seen
// twice) is kept once.
func MergeIDHits(dst, a, b []IDHit, k int) []IDHit {
	i, j := 0, 0
	for len(dst) < k && (i < len(a) || j < len(b)) {
		switch {
		case j >= len(b):
			dst = append(dst, a[i])
			i++
		case i >= len(a):
			dst = append(dst, b[j])
			j++
		case a[i].ID == b[j].ID && a[i].Score == b[j].Score:
			dst = append(dst, a[i])
			i++
			j++
		case BetterIDHit(a[i], b[j]):
			dst = append(dst, a[i])
			i++
		default:
			dst = append(dst, b[j])
			j++
		}
	}
	return dst
}

// BetterIDHit reports whether a ranks before b as TopK ranks: a higher
// score, or an equal score and a larger id (byte-wise).
func BetterIDHit(a, b IDHit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID > b.ID
}

// Lists returns the merged lists, best first (shared with m).
func (m *Merger) Lists() [][]IDHit { return m.lists }

// Hits returns the merged lists as TopK's result over a table of ids:
// hits[q][r].Doc indexes ids, which holds every retrieved document once
// (in order of first appearance), ready for WriteRun.
func (m *Merger) Hits() (hits [][]Hit, ids []string) {
	at := map[string]int{}
	hits = make([][]Hit, len(m.lists))
	for q, l := range m.lists {
		hs := make([]Hit, len(l))
		for r, h := range l {
			i, ok := at[h.ID]
			if !ok {
				i = len(ids)
				at[h.ID] = i
				ids = append(ids, h.ID)
			}
			hs[r] = Hit{Doc: i, Score: h.Score}
		}
		hits[q] = hs
	}
	return hits, ids
}
