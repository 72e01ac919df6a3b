package metrics

import (
	"math/rand/v2"
	"sync"
)

// The paired tests draw the same random numbers whenever the number of
// queries, the number of resamples and the seed are the same: every
// comparison of an experiment (each rate, seed and convention) and every
// refresh of the browser's rate slider. Drawing them is a large part of a
// test's cost (the generator's 128-bit multiply is emulated in
// WebAssembly), so the draws of recent tests are kept in a small cache,
// bounded in memory; larger draws are made again each time. Either way a
// test sees the same numbers in the same order.

// Bounds of the draw cache: a table is kept only when it holds at most
// maxDrawTable values, and the cache keeps at most maxDrawCache values in
// all (int32 bootstrap indices or uint64 sign words: at most 16 and 32 MiB
// in all, and so a table). The demo's bootstrap table, 10,000 resamples of
// 212 queries, holds 2.1 million indices (8.5 MiB).
const (
	maxDrawTable = 4 << 20
	maxDrawCache = 4 << 20
)

// drawKind says which draws a table holds.
type drawKind uint8

const (
	signDraws      drawKind = iota // randomization test: uint64 words of signs
	bootstrapDraws                 // bootstrap: resampled query indices
)

// drawKey names a table: rows rows of rowLen values each, drawn from a
// generator seeded with seed.
type drawKey struct {
	kind         drawKind
	rows, rowLen int
	seed         uint64
}

// drawTable is one cached table: rows rows of rowLen values, row b being
// what the b-th permutation or resample draws.
type drawTable[T int32 | uint64] struct {
	key  drawKey
	data []T
}

var drawCache struct {
	sync.Mutex
	tables []any // *drawTable[int32] or *drawTable[uint64], most recent first
	size   int   // values held
}

// draws hands out the rows of one test's draws in order: from a cached
// table, or made by fill from a fresh generator when the table is too
// large to keep.
type draws[T int32 | uint64] struct {
	table  []T // the whole table, or nil
	buf    []T // the current row, when drawing afresh
	rowLen int
	r      *rand.Rand
	fill   func(r *rand.Rand, row []T)
	next   int
}

// newDraws returns the draws of key; fill writes one row's values from r
// (called in row order on a generator seeded with key.seed).
func newDraws[T int32 | uint64](key drawKey, fill func(r *rand.Rand, row []T)) *draws[T] {
	if key.rows*key.rowLen > maxDrawTable {
		return &draws[T]{buf: make([]T, key.rowLen), rowLen: key.rowLen, r: newRand(key.seed), fill: fill}
	}
	drawCache.Lock()
	for i, t := range drawCache.tables {
		if t, ok := t.(*drawTable[T]); ok && t.key == key {
			copy(drawCache.tables[1:i+1], drawCache.tables[:i])
			drawCache.tables[0] = t
			drawCache.Unlock()
			return &draws[T]{table: t.data, rowLen: key.rowLen}
		}
	}
	drawCache.Unlock()
	// Made outside the lock: two tests wanting the same new table may both
	// make it, with the same values.
	t := &drawTable[T]{key: key, data: make([]T, key.rows*key.rowLen)}
	r := newRand(key.seed)
	for b := range key.rows {
		fill(r, t.data[b*key.rowLen:(b+1)*key.rowLen])
	}
	keepTable(t)
	return &draws[T]{table: t.data, rowLen: key.rowLen}
}

// keepTable puts t first in the draw cache, dropping the least recently
// used tables beyond its bound. A table of the same key already there is
// kept instead (its values are the same).
func keepTable[T int32 | uint64](t *drawTable[T]) {
	drawCache.Lock()
	defer drawCache.Unlock()
	for _, old := range drawCache.tables {
		if old, ok := old.(*drawTable[T]); ok && old.key == t.key {
			return
		}
	}
	drawCache.tables = append([]any{t}, drawCache.tables...)
	drawCache.size += len(t.data)
	for drawCache.size > maxDrawCache {
		last := len(drawCache.tables) - 1
		switch old := drawCache.tables[last].(type) {
		case *drawTable[int32]:
			drawCache.size -= len(old.data)
		case *drawTable[uint64]:
			drawCache.size -= len(old.data)
		}
		drawCache.tables = drawCache.tables[:last]
	}
}

// row returns the next row's values; the slice is valid until the next
// call.
func (d *draws[T]) row() []T {
	if d.table != nil {
		row := d.table[d.next*d.rowLen : (d.next+1)*d.rowLen]
		d.next++
		return row
	}
	d.fill(d.r, d.buf)
	d.next++
	return d.buf
}
