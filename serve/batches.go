package serve

import (
	"context"
	"net/http"

	"github.com/dreval/dreval/encoder"
)

// The bounds of one EmbedIDs call of an encode request: the engines'
// 32 sequences, but a quarter of their 8192 ids, so that a batch of long
// texts takes under a second on two cores and a request whose client
// left stops that soon. The vectors do not depend on the grouping (the
// engines mask the padding; TestEncodeMiniLMBatches).
const (
	batchSeqs   = 32
	batchTokens = 2048
)

// embedBatches embeds ids with enc a batch at a time (longest sequences
// first, at most batchSeqs sequences and batchTokens ids a batch),
// checking ctx between batches: a request whose client left or whose
// time ran out stops within a batch, and frees its slot.
func embedBatches(ctx context.Context, enc Encoder, ids [][]int32) ([][]float32, error) {
	out := make([][]float32, len(ids))
	for _, b := range encoder.Batches(ids, batchSeqs, batchTokens) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		seqs := make([][]int32, len(b))
		for j, i := range b {
			seqs[j] = ids[i]
		}
		vecs, err := enc.EmbedIDs(seqs)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(seqs) {
			return nil, errorf(http.StatusInternalServerError, "the model returned %d vectors for %d sequences", len(vecs), len(seqs))
		}
		for j, i := range b {
			out[i] = vecs[j]
		}
	}
	return out, nil
}
