//go:build js && wasm

package main

import (
	"slices"
	"strconv"
	"syscall/js"
	"testing"

	"github.com/dreval/dreval/metrics"
)

// TestDrawsMessage: the tables a helper worker answers a "draws" request
// with (drawTables) read back (uint64s, int32s) as metrics.DrawTables's,
// and metrics.KeepDrawTables takes them; a bad seed is an error.
func TestDrawsMessage(t *testing.T) {
	opts := metrics.CompareOptions{Permutations: 300, Resamples: 200, Seed: 1<<63 + 12345}
	const n = 70
	msg := js.ValueOf(map[string]any{"type": "draws", "n": n, "permutations": opts.Permutations, "resamples": opts.Resamples, "seed": strconv.FormatUint(opts.Seed, 10)})
	out, err := drawTables(msg)
	if err != nil {
		t.Fatal(err)
	}
	r := js.ValueOf(out)
	signs, err := valuesOf[uint64](r.Get("signs"))
	if err != nil {
		t.Fatal(err)
	}
	picks, err := valuesOf[int32](r.Get("picks"))
	if err != nil {
		t.Fatal(err)
	}
	ws, wp := metrics.DrawTables(n, opts)
	if !slices.Equal(signs, ws) || !slices.Equal(picks, wp) {
		t.Fatalf("the answer's tables (%d words, %d picks) are not DrawTables's (%d, %d)", len(signs), len(picks), len(ws), len(wp))
	}
	if err := metrics.KeepDrawTables(n, opts, signs, picks); err != nil {
		t.Fatal(err)
	}
	if _, err := valuesOf[uint64](jsBytes(make([]byte, 12))); err == nil {
		t.Error("12 bytes read as uint64s")
	}
	if _, err := valuesOf[int32](jsBytes(make([]byte, 6))); err == nil {
		t.Error("6 bytes read as int32s")
	}
	if v, err := valuesOf[int32](jsBytes(nil)); err != nil || len(v) != 0 {
		t.Errorf("no bytes: %v, %v", v, err)
	}
	bad := js.ValueOf(map[string]any{"type": "draws", "n": n, "seed": "-1"})
	if _, err := drawTables(bad); err == nil {
		t.Error("a seed of -1 was taken")
	}
}
