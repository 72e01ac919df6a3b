package metrics_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/dreval/dreval/metrics"
)

func ExampleEvaluateReader() {
	qrels, err := metrics.ReadQrels(strings.NewReader("q1 0 d1 1\nq1 0 d2 2\nq2 0 d3 1\n"), "example.qrels")
	if err != nil {
		fmt.Println(err)
		return
	}
	run := "q1 Q0 d2 1 0.9 demo\nq1 Q0 d9 2 0.8 demo\nq1 Q0 d1 3 0.7 demo\nq2 Q0 d4 1 0.5 demo\nq2 Q0 d3 2 0.5 demo\n"
	ms, err := metrics.ParseMeasures([]string{"map,P.2,ndcg_cut.10"}, metrics.ConventionTREC)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := metrics.EvaluateReader(qrels, strings.NewReader(run), "example.run", ms, metrics.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// q1 ranks d2 (grade 2), d9, d1 (grade 1): map (1/1 + 2/3) / 2;
	// ndcg (2 + 1/log2 4) / (2 + 1/log2 3). q2's tie at 0.5 puts d4 first
	// (document id descending), so d3 is at rank 2.
	metrics.WriteTREC(os.Stdout, res, true)
	// Output:
	// map                   	q1	0.8333
	// P_2                   	q1	0.5000
	// ndcg_cut_10           	q1	0.9502
	// map                   	q2	0.5000
	// P_2                   	q2	0.5000
	// ndcg_cut_10           	q2	0.6309
	// map                   	all	0.6667
	// P_2                   	all	0.5000
	// ndcg_cut_10           	all	0.7906
}

func ExamplePairedTest() {
	clean := []float64{0.9, 0.7, 0.8, 0.6, 1.0, 0.5}
	perturbed := []float64{0.6, 0.5, 0.7, 0.2, 0.9, 0.1}
	p, err := metrics.PairedTest(clean, perturbed, metrics.CompareOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Differences -0.3 -0.2 -0.1 -0.4 -0.1 -0.4: t = -4.44 on 5 degrees of
	// freedom.
	fmt.Printf("diff %.4f, t-test p %.4f, randomization p < 0.05: %v, CI excludes 0: %v\n",
		p.Diff, p.PTTest, p.PRandomization < 0.05, p.CIHigh < 0)
	// Output:
	// diff -0.2500, t-test p 0.0067, randomization p < 0.05: true, CI excludes 0: true
}
