package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/dreval/dreval/spec"
)

// TestFinishChecksIDs: the last stage refuses shard ids that do not make
// up the corpus the reader counted, naming the shard.
func TestFinishChecksIDs(t *testing.T) {
	info := corpusInfo{Total: 5, Shards: 2, SHA256: strings.Repeat("0", 64)}
	for _, tc := range []struct {
		name  string
		infos []corpusInfo
		ids   []shardIDs
		want  string
	}{
		{"no summary", nil, nil, "sent no corpus summary"},
		{"twice", []corpusInfo{info}, []shardIDs{{0, []string{"a", "b", "c"}}, {0, []string{"a", "b", "c"}}}, "shard 0 of 2 came twice"},
		{"out of range", []corpusInfo{info}, []shardIDs{{2, []string{"a"}}}, "shard 2 of 2 came twice or out of range"},
		{"long shard", []corpusInfo{info}, []shardIDs{{0, []string{"a", "b", "c"}}, {1, []string{"d", "e"}}}, "shard 0 of 2 sent 3 ids, want 2"},
		{"short shard", []corpusInfo{info}, []shardIDs{{0, []string{"a", "b"}}, {1, []string{"d"}}}, "shard 1 of 2 sent 1 ids, want 3"},
		{"missing shard", []corpusInfo{info}, []shardIDs{{0, []string{"a", "b"}}}, "shard 1 of 2 sent 0 ids, want 3"},
		{"no shards", []corpusInfo{info}, nil, "0 document ids from the shards, 5 documents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			infos, ids := tc.infos, tc.ids
			f := &finishFn{Job: Job{Experiment: spec.Spec{Data: []string{t.TempDir()}, Models: []string{"static"}, Rates: []float64{0}}, Out: t.TempDir()}}
			err := f.ProcessElement(context.Background(), nil,
				func(*string, *topList) bool { return false },
				func(c *corpusInfo) bool {
					if len(infos) == 0 {
						return false
					}
					*c, infos = infos[0], infos[1:]
					return true
				},
				func(s *shardIDs) bool {
					if len(ids) == 0 {
						return false
					}
					*s, ids = ids[0], ids[1:]
					return true
				})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
