//go:build js && wasm

package main

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/dreval/dreval/retrieval"
)

// TestSearchParts: the hits of query rows ranked in parts, packed and
// unpacked as the workers pass them, are TopK's of all rows at once.
func TestSearchParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	corpus, queries := retrieval.NewMatrix(50, 16), retrieval.NewMatrix(9, 16)
	for _, m := range []*retrieval.Matrix{corpus, queries} {
		for i := range m.Data {
			m.Data[i] = float32(rng.NormFloat64())
		}
	}
	copy(corpus.Row(7), corpus.Row(3)) // a tie, broken by document id
	ids := make([]string, corpus.Rows)
	for i := range ids {
		ids[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	opt := retrieval.Options{K: 5, DocIDs: ids}
	want, err := retrieval.TopK(corpus, queries, opt)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]retrieval.Hit
	for _, part := range [][2]int{{0, 4}, {4, 9}} {
		c, err := matrixOf(floatBytes(corpus.Data), 16)
		if err != nil {
			t.Fatal(err)
		}
		q, err := matrixOf(floatBytes(queries.Data[part[0]*16:part[1]*16]), 16)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := retrieval.TopK(c, q, opt)
		if err != nil {
			t.Fatal(err)
		}
		back, err := unpackHits(packHits(hits), part[1]-part[0], corpus.Rows)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, back...)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hits in parts %v, all at once %v", got, want)
	}
	b := packHits(want)
	for _, bad := range [][]byte{b[:len(b)-1], append(b, 0), nil} {
		if _, err := unpackHits(bad, len(want), corpus.Rows); err == nil {
			t.Errorf("unpackHits took %d malformed bytes", len(bad))
		}
	}
	if _, err := unpackHits(b, len(want), 3); err == nil {
		t.Error("unpackHits took document rows past the corpus")
	}
	if _, err := matrixOf(make([]byte, 10), 16); err == nil {
		t.Error("matrixOf took 10 bytes as rows of 16 values")
	}
}
