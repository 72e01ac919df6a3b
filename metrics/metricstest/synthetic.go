// Package metricstest writes synthetic TREC runs and qrels for benchmarks
// of package metrics: deterministic for a seed, shaped like a dense
// retriever's output (distinct scores with occasional ties, a few graded
// relevant documents per query).
package metricstest

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// Synthetic describes a synthetic evaluation.
type Synthetic struct {
	Queries      int    // number of queries
	DocsPerQuery int    // run lines per query
	JudgedPerQ   int    // qrels lines per query
	Corpus       int    // documents to draw ids from
	Seed         uint64 // seed of every random choice
}

// BenchmarkShape is the speed target's shape: 2,000 queries x 1,000
// documents (2M run lines) against 100,000 qrels lines.
var BenchmarkShape = Synthetic{Queries: 2000, DocsPerQuery: 1000, JudgedPerQ: 50, Corpus: 1000000, Seed: 1}

func (s Synthetic) rng(q int) *rand.Rand {
	return rand.New(rand.NewPCG(s.Seed, uint64(q)))
}

func qid(q int) string { return "q" + strconv.Itoa(1000+q) }

func docID(d int) string { return fmt.Sprintf("D%07d", d) }

// docs returns query q's retrieved documents (distinct) in rank order.
func (s Synthetic) docs(q int) []int {
	r := s.rng(q)
	seen := make(map[int]bool, s.DocsPerQuery)
	out := make([]int, 0, s.DocsPerQuery)
	for len(out) < s.DocsPerQuery && len(out) < s.Corpus {
		d := r.IntN(s.Corpus)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// WriteRun writes the run in TREC format, grouped by query.
func (s Synthetic) WriteRun(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for q := range s.Queries {
		score := 30.0
		r := s.rng(q + 1<<40)
		for i, d := range s.docs(q) {
			if r.IntN(20) != 0 { // about 1 in 20 ties with the previous one
				score -= r.Float64() * 0.05
			}
			fmt.Fprintf(bw, "%s Q0 %s %d %.6f synth\n", qid(q), docID(d), i+1, score)
		}
	}
	return bw.Flush()
}

// WriteQrels writes the qrels in TREC format: per query, half of the
// judged documents come from the top of its run, half from elsewhere, with
// relevance 0 (60%), 1 (25%), 2 (10%) or 3 (5%).
func (s Synthetic) WriteQrels(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for q := range s.Queries {
		r := s.rng(q + 1<<41)
		docs := s.docs(q)
		seen := map[int]bool{}
		for j := 0; j < s.JudgedPerQ; {
			var d int
			if j%2 == 0 && len(docs) > 0 {
				d = docs[r.IntN(min(len(docs), 200))]
			} else {
				d = r.IntN(s.Corpus)
			}
			if seen[d] {
				if len(seen) >= s.Corpus {
					break
				}
				continue
			}
			seen[d] = true
			rel := 0
			switch x := r.IntN(100); {
			case x >= 95:
				rel = 3
			case x >= 85:
				rel = 2
			case x >= 60:
				rel = 1
			}
			fmt.Fprintf(bw, "%s 0 %s %d\n", qid(q), docID(d), rel)
			j++
		}
	}
	return bw.Flush()
}
