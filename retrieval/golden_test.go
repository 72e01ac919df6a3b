package retrieval

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/topk.golden")

// lcgMatrix fills a matrix from a fixed linear congruential generator, so
// the data is the same on every platform and Go version.
func lcgMatrix(rows, dim int, seed uint64) *Matrix {
	m := NewMatrix(rows, dim)
	x := seed
	for i := range m.Data {
		x = x*6364136223846793005 + 1442695040888963407
		m.Data[i] = float32(int32(x>>32)) / (1 << 31)
	}
	return m
}

// TestTopKGolden pins the exact float32 bits of cosine and dot scores. The
// file was written on amd64 with the assembly kernel; the same test run
// with -tags purego, under GOOS=js GOARCH=wasm, or on arm64 must match it
// bit for bit: that is the guarantee that the browser and the CLI agree.
// Correctness itself is checked against brute force in
// TestTopKMatchesBruteForce; run with -update to rewrite the file after an
// intended change of the summation order.
func TestTopKGolden(t *testing.T) {
	corpus := lcgMatrix(301, 37, 1)
	queries := lcgMatrix(7, 37, 2)
	var buf bytes.Buffer
	for _, s := range []Scoring{Cosine, Dot} {
		hits, err := TopK(corpus, queries, Options{K: 5, Scoring: s, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		for qi, hs := range hits {
			for r, h := range hs {
				fmt.Fprintf(&buf, "%s q%d %d d%d %08x %v\n", s, qi, r+1, h.Doc, math.Float32bits(h.Score), h.Score)
			}
		}
	}
	const path = "testdata/topk.golden"
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("TopK scores differ from %s (useAVX = %v):\ngot:\n%s", path, useAVX, buf.Bytes())
	}
}
