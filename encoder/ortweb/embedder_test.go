package ortweb

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/modelfiles"
)

// fakeSession is a Forwarder whose token vector at position p of a
// sequence is (id, p, width of the batch), and which counts its batches.
type fakeSession struct {
	batches [][][]int32
	pads    []Padding
	closed  bool
}

func (f *fakeSession) Forward(seqs [][]int32, pad Padding, dim int) ([][]float32, error) {
	if f.closed {
		return nil, errors.New("closed")
	}
	f.batches = append(f.batches, seqs)
	f.pads = append(f.pads, pad)
	out := make([][]float32, len(seqs))
	for i, s := range seqs {
		for p, id := range s {
			out[i] = append(out[i], float32(id), float32(p), 0)[:(p+1)*dim]
		}
	}
	return out, nil
}

func (f *fakeSession) Close() error { f.closed = true; return nil }

var testConfig = modelfiles.Config{VocabSize: 50, HiddenSize: 3, MaxPositionEmbeddings: 8, ModelType: "bert"}

// TestEmbedderBatches: the Embedder opens its session on first use,
// once; runs the sequences in batches of at most BatchSize, longest
// first (encoder.Batches); pads with the model's padding id; and gives each sequence the
// head of its own token vectors, in the order asked, whatever the
// batches.
func TestEmbedderBatches(t *testing.T) {
	ids := [][]int32{{2, 7, 3}, {2, 3}, {2, 9, 9, 9, 3}, {2, 5, 3}, {2, 11, 12, 3}}
	var want [][]float32
	for _, s := range ids {
		hidden := make([]float32, 0, 3*len(s))
		for p, id := range s {
			hidden = append(hidden, float32(id), float32(p), 0)
		}
		v := make([]float32, 3)
		(&encoder.Head{Pooling: encoder.Mean}).Apply(v, hidden, 3)
		want = append(want, v)
	}
	for _, tc := range []struct {
		batch, batches int
	}{{32, 1}, {2, 3}, {1, 5}} {
		sess, opened := &fakeSession{}, 0
		e := NewEmbedder(testConfig, &encoder.Head{Pooling: encoder.Mean}, func() (Forwarder, error) { opened++; return sess, nil })
		e.BatchSize = tc.batch
		if e.Dim() != 3 || e.VocabSize() != 50 || opened != 0 {
			t.Fatalf("dim %d, vocab %d, opened %d before the first embedding", e.Dim(), e.VocabSize(), opened)
		}
		got, err := e.EmbedIDs(ids)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("batch %d: %v, want %v", tc.batch, got, want)
		}
		if len(sess.batches) != tc.batches || opened != 1 {
			t.Errorf("batch %d: %d batches (want %d), session opened %d times", tc.batch, len(sess.batches), tc.batches, opened)
		}
		for _, b := range sess.batches {
			for i := 1; i < len(b); i++ {
				if len(b[i]) > len(b[i-1]) {
					t.Errorf("batch %v is not sorted by length", b)
				}
			}
		}
		if sess.pads[0] != (Padding{PadID: 0, PositionOffset: 0}) {
			t.Errorf("BERT's padding %+v", sess.pads[0])
		}
		if err := e.Close(); err != nil || !sess.closed {
			t.Errorf("Close: %v, session closed %v", err, sess.closed)
		}
		if _, err := e.EmbedIDs(ids[:1]); err == nil {
			t.Error("a closed embedder embedded")
		}
	}
}

// TestEmbedIDsErrors checks the errors that name the sequence, given
// before any session opens, and a session that cannot open.
func TestEmbedIDsErrors(t *testing.T) {
	opened := 0
	e := NewEmbedder(testConfig, &encoder.Head{Pooling: encoder.Mean}, func() (Forwarder, error) {
		opened++
		return nil, errors.New("no runtime")
	})
	long := make([]int32, testConfig.MaxTokens()+1)
	for _, tc := range []struct {
		ids  [][]int32
		want string
	}{
		{[][]int32{{2, 3}, {}}, "ort-web: sequence 1 has no ids"},
		{[][]int32{long}, fmt.Sprintf("ort-web: sequence 0 has %d tokens, more than the model's %d", len(long), testConfig.MaxTokens())},
		{[][]int32{{2, int32(testConfig.VocabSize), 3}}, "ort-web: sequence 0 position 1: token id 50 is outside the vocabulary [0, 50)"},
		{[][]int32{{2, 3}}, "no runtime"},
	} {
		if _, err := e.EmbedIDs(tc.ids); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	if opened != 1 {
		t.Errorf("the session was tried %d times, want once (on the first valid input)", opened)
	}
	if err := e.Close(); err != nil {
		t.Errorf("closing an embedder whose session never opened: %v", err)
	}
}
