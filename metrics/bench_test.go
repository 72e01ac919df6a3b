package metrics

import (
	"bytes"
	"sync"
	"testing"

	"github.com/dreval/dreval/metrics/metricstest"
)

var (
	benchOnce        sync.Once
	benchRun, benchQ []byte
)

func benchData(b *testing.B) ([]byte, []byte) {
	benchOnce.Do(func() {
		var run, qrels bytes.Buffer
		s := metricstest.BenchmarkShape
		if err := s.WriteRun(&run); err != nil {
			panic(err)
		}
		if err := s.WriteQrels(&qrels); err != nil {
			panic(err)
		}
		benchRun, benchQ = run.Bytes(), qrels.Bytes()
	})
	return benchRun, benchQ
}

// BenchmarkEvaluateReader is the speed target: 2,000 queries x 1,000
// documents (2M run lines) against 100,000 qrels lines, measures map
// ndcg_cut.10 P.10 recall.100 recip_rank, from bytes in memory (reading the
// qrels included). scripts/bench-metrics.sh times the same from files.
func BenchmarkEvaluateReader(b *testing.B) {
	run, qrelsText := benchData(b)
	ms, err := ParseMeasures([]string{"map,ndcg_cut.10,P.10,recall.100,recip_rank"}, ConventionTREC)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(run) + len(qrelsText)))
	b.ResetTimer()
	for b.Loop() {
		q, err := ReadQrels(bytes.NewReader(qrelsText), "qrels")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := EvaluateReader(q, bytes.NewReader(run), "run", ms, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadQrels times the qrels part alone.
func BenchmarkReadQrels(b *testing.B) {
	_, qrelsText := benchData(b)
	b.SetBytes(int64(len(qrelsText)))
	for b.Loop() {
		if _, err := ReadQrels(bytes.NewReader(qrelsText), "qrels"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunReader times parsing the run alone.
func BenchmarkRunReader(b *testing.B) {
	run, _ := benchData(b)
	b.SetBytes(int64(len(run)))
	for b.Loop() {
		rr := NewRunReader(bytes.NewReader(run), "run")
		for {
			_, _, err := rr.Next()
			if err != nil {
				break
			}
		}
	}
}

// BenchmarkPairedTests is the statistics of one comparison of the
// browser's rate slider: the six st measures of the demo's 212 queries,
// 10,000 permutations and bootstrap resamples.
func BenchmarkPairedTests(b *testing.B) {
	const n, measures = 212, 6
	a, c := pairedValues(measures, n)
	opts := CompareOptions{Permutations: 10000, Resamples: 10000, Seed: 1}
	for b.Loop() {
		if _, err := PairedTests(a, c, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// pairedValues returns two systems' per-query values of measures
// measures over n queries, spread deterministically over [0, 1].
func pairedValues(measures, n int) (a, b [][]float64) {
	a, b = make([][]float64, measures), make([][]float64, measures)
	for m := range measures {
		a[m], b[m] = make([]float64, n), make([]float64, n)
		for i := range n {
			a[m][i] = float64((i*7+m)%11) / 10
			b[m][i] = float64((i*5+m*3)%13) / 12
		}
	}
	return a, b
}
