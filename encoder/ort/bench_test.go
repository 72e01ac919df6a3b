//go:build cgo && unix

package ort

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/dreval/dreval/encoder/onnx"
	"github.com/dreval/dreval/encoder/quantize"
)

// BenchmarkEmbed reports sentences per second for ONNX Runtime on the
// exported MiniLM, batches of 32 sentences of 32 or 128 tokens, on 1 and 2
// intra-op threads. Besides wall-clock throughput (sentences/s) it reports
// sentences per second of process CPU time (sentences/cpu-s), which a busy,
// shared machine disturbs much less; with one thread it estimates the
// throughput of an idle core.
func BenchmarkEmbed(b *testing.B) {
	lib := libPath(b)
	m := miniLM(b)
	for _, tokens := range []int{32, 128} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("tokens=%d/threads=%d", tokens, threads), func(b *testing.B) {
				e, err := New(m.onnx, lib, threads)
				if err != nil {
					b.Fatal(err)
				}
				defer e.Close()
				rng := rand.New(rand.NewPCG(1, uint64(tokens)))
				ids := make([][]int32, 32)
				for i := range ids {
					ids[i] = make([]int32, tokens)
					ids[i][0], ids[i][tokens-1] = 101, 102
					for j := 1; j < tokens-1; j++ {
						ids[i][j] = int32(1000 + rng.IntN(29000))
					}
				}
				if _, err := e.EmbedIDs(ids); err != nil { // warm up
					b.Fatal(err)
				}
				var before syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &before)
				b.ResetTimer()
				for b.Loop() {
					if _, err := e.EmbedIDs(ids); err != nil {
						b.Fatal(err)
					}
				}
				var after syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &after)
				sentences := float64(len(ids) * b.N)
				b.ReportMetric(sentences/b.Elapsed().Seconds(), "sentences/s")
				b.ReportMetric(sentences/(cpuSeconds(after)-cpuSeconds(before)), "sentences/cpu-s")
			})
		}
	}
}

// BenchmarkEmbedPrecision compares MiniLM's float32 graph with the int8
// and float16 graphs "dreval model quantize" writes of it (package
// quantize, default options), one intra-op thread, batches of 32 random
// sequences.
func BenchmarkEmbedPrecision(b *testing.B) {
	lib := libPath(b)
	m := miniLM(b)
	data, err := os.ReadFile(m.onnx)
	if err != nil {
		b.Fatal(err)
	}
	g, err := onnx.Decode(data)
	if err != nil {
		b.Fatal(err)
	}
	q8, _, err := quantize.Int8(g, quantize.Int8Options{PerChannel: true, Unsigned: true, FloatDown: true, Embeddings: true})
	if err != nil {
		b.Fatal(err)
	}
	f16, _, err := quantize.Float16(g, quantize.Float16Options{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	paths := map[string]string{"fp32": m.onnx, "int8": filepath.Join(dir, "int8.onnx"), "fp16": filepath.Join(dir, "fp16.onnx")}
	for name, mm := range map[string]*onnx.Model{"int8": q8, "fp16": f16} {
		if err := os.WriteFile(paths[name], mm.Marshal(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, tokens := range []int{32, 128} {
		for _, prec := range []string{"fp32", "int8", "fp16"} {
			b.Run(fmt.Sprintf("tokens=%d/%s", tokens, prec), func(b *testing.B) {
				cfg := m.cfg
				e, err := Open(paths[prec], lib, Options{Threads: 1, Config: &cfg})
				if err != nil {
					b.Fatal(err)
				}
				defer e.Close()
				benchEmbed(b, e, tokens)
			})
		}
	}
}

// benchEmbed times e on batches of 32 random sequences of tokens ids.
func benchEmbed(b *testing.B, e *Embedder, tokens int) {
	rng := rand.New(rand.NewPCG(1, uint64(tokens)))
	ids := make([][]int32, 32)
	for i := range ids {
		ids[i] = make([]int32, tokens)
		ids[i][0], ids[i][tokens-1] = 101, 102
		for j := 1; j < tokens-1; j++ {
			ids[i][j] = int32(1000 + rng.IntN(29000))
		}
	}
	if _, err := e.EmbedIDs(ids); err != nil { // warm up
		b.Fatal(err)
	}
	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.EmbedIDs(ids); err != nil {
			b.Fatal(err)
		}
	}
	var after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	sentences := float64(len(ids) * b.N)
	b.ReportMetric(sentences/b.Elapsed().Seconds(), "sentences/s")
	b.ReportMetric(sentences/(cpuSeconds(after)-cpuSeconds(before)), "sentences/cpu-s")
}

func cpuSeconds(r syscall.Rusage) float64 {
	return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)/1e6
}
