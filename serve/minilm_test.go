package serve

import (
	"context"
	"net/http"
	"os"
	"reflect"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/modelfiles"
)

// minilmEncoder adapts *encoder.Encoder to Encoder.
type minilmEncoder struct{ *encoder.Encoder }

func (e minilmEncoder) VocabSize() int { return e.Tokenizer().VocabSize() }

// TestEncodeMiniLM checks /api/encode with the real model returns, for
// texts and for ids, exactly the vectors of a direct encoder call.
func TestEncodeMiniLM(t *testing.T) {
	dir := sharedtest.ModelDir(t, "minilm")
	enc, err := transformer.Load(modelfiles.OSDir(dir), transformer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, Options{
		Models: os.DirFS(sharedtest.ModelsDir()),
		Encoder: func(_ context.Context, name, _ string) (Encoder, error) {
			if name != "minilm" {
				return nil, ErrUnknownModel
			}
			return minilmEncoder{enc}, nil
		},
	})
	texts := []string{"what is dense retrieval?", "", "tokenizer poisoning shifts query token ids"}
	want, _, err := enc.Encode(texts)
	if err != nil {
		t.Fatal(err)
	}
	for _, accept := range []string{"application/json", "application/octet-stream"} {
		got := decodeEncodeReply(t, post(t, ts.URL+"/api/encode", map[string]any{"model": "minilm", "texts": texts}, "Accept", accept))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Accept %s: /api/encode differs from encoder.Encode", accept)
		}
	}
	ids, _ := enc.Tokenize(texts)
	got := decodeEncodeReply(t, post(t, ts.URL+"/api/encode", map[string]any{"model": "minilm", "ids": ids}))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ids: /api/encode differs from encoder.Encode")
	}
	wantError(t, post(t, ts.URL+"/api/encode", map[string]any{"model": "minilm", "ids": [][]int32{{101, 30522, 102}}}), http.StatusBadRequest, "outside the vocabulary [0, 30522)")
}
