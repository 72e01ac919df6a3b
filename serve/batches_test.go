package serve

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

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
