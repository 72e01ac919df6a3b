package serve

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

// TestBatchesAreTheEngines: an encode request is embedded in batches
// made as the engines make theirs (encoder.Batches), with serve's bounds.
func TestBatchesAreTheEngines(t *testing.T) {
	seqs := func(lens ...int) [][]int32 {
		out := make([][]int32, len(lens))
		for i, n := range lens {
			out[i] = make([]int32, n)
		}
		return out
	}
	many := make([]int, 1024)
	for i := range many {
		many[i] = 3 + (i*37)%254
	}
	for _, tt := range []struct {
		name string
		ids  [][]int32
	}{
		{"none", nil},
		{"one", seqs(5)},
		{"ties keep their order", seqs(4, 4, 4, 2, 4)},
		{"33 short: two batches", seqs(make([]int, 33)...)},
		{"token bound", seqs(5000, 4000, 3000, 200)},
		{"1024 mixed", seqs(many...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, want := batches(tt.ids, batchSeqs, batchTokens), encoder.Batches(tt.ids, batchSeqs, batchTokens)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("batches %v, the engines' %v", got, want)
			}
		})
	}
}

// TestEncodeMiniLMBatches: a request of many texts of mixed lengths
// (up to 120 ids), embedded in serve's batches, gets exactly the vectors
// of one encoder call over all of them, which groups them otherwise.
func TestEncodeMiniLMBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes 80 texts with MiniLM")
	}
	dir := sharedtest.ModelDir(t, "minilm")
	enc, err := transformer.Load(modelfiles.OSDir(dir), transformer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, Options{Encoder: func(context.Context, string, string) (Encoder, error) { return minilmEncoder{enc}, nil }})
	texts := make([]string, 80)
	for i := range texts {
		texts[i] = fmt.Sprintf("text %d %s", i, strings.Repeat("dense retrieval ", i%60))
	}
	want, _, err := enc.Encode(texts)
	if err != nil {
		t.Fatal(err)
	}
	got := decodeEncodeReply(t, post(t, ts.URL+"/api/encode", map[string]any{"model": "minilm", "texts": texts}, "Accept", "application/octet-stream"))
	if !reflect.DeepEqual(got, want) {
		t.Error("/api/encode in batches differs from one encoder call")
	}
}
