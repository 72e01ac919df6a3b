//go:build js && wasm

package main

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"syscall/js"
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

// TestSearchCorporaHeld: the first worker numbers a corpus once and a
// new one anew; a helper ranks against a corpus it holds when a message
// names it without carrying it, the same hits as with it, and refuses
// one it no longer holds.
func TestSearchCorporaHeld(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	corpus, other, queries := retrieval.NewMatrix(40, 8), retrieval.NewMatrix(40, 8), retrieval.NewMatrix(6, 8)
	for _, m := range []*retrieval.Matrix{corpus, other, queries} {
		for i := range m.Data {
			m.Data[i] = float32(rng.NormFloat64())
		}
	}
	ids := make([]string, corpus.Rows)
	for i := range ids {
		ids[i] = "d" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	var first searchCorpora
	a1 := first.id(corpus, ids)
	if a2 := first.id(corpus, ids); a2 != a1 {
		t.Errorf("the same corpus numbered %d, then %d", a1, a2)
	}
	b := first.id(other, ids)
	if b == a1 {
		t.Errorf("another corpus got the same number %d", b)
	}
	if c := first.id(corpus, slices.Clone(ids)); c == a1 || c == b {
		t.Errorf("the corpus with other id strings got number %d again", c)
	}

	helper := &app{}
	msg := func(id int, with *retrieval.Matrix) js.Value {
		m := map[string]any{"type": "search", "id": 1, "dim": 8, "k": 5, "scoring": 0, "corpusID": id,
			"queries": jsBytes(floatBytes(queries.Data))}
		if with != nil {
			docIDs := make([]any, len(ids))
			for i, d := range ids {
				docIDs[i] = d
			}
			m["corpus"], m["docIDs"] = jsBytes(floatBytes(with.Data)), docIDs
		}
		return js.ValueOf(m)
	}
	want, err := retrieval.TopK(corpus, queries, retrieval.Options{K: 5, DocIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []js.Value{msg(1, corpus), msg(1, nil)} {
		b, err := helper.searchPart(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := unpackHits(b, queries.Rows, corpus.Rows)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("hits %v, want %v", got, want)
		}
	}
	if _, err := helper.searchPart(msg(2, nil)); err == nil || !strings.Contains(err.Error(), "corpus 2 is not held") {
		t.Errorf("a corpus never sent: %v", err)
	}
	for id := 2; id <= 1+keepCorpora; id++ {
		if _, err := helper.searchPart(msg(id, other)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := helper.searchPart(msg(1, nil)); err == nil {
		t.Errorf("corpus 1 still held after %d newer ones", keepCorpora)
	}
}
