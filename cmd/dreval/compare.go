package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
)

func init() {
	register(&command{
		name:    "compare",
		summary: "compare two runs on the same qrels: mean difference, randomization and t-test p-values, bootstrap CI",
		run:     runCompare,
	})
}

// compareDefaults are the measures compared when -m is not given: the
// headline measures of each convention, without counts.
func compareDefaults(c metrics.Convention) []metrics.Measure {
	var spec []string
	switch c {
	case metrics.ConventionST:
		spec = []string{"accuracy@1", "precision@1", "recall@1", "ndcg@10", "mrr@10", "map@100"}
	case metrics.ConventionDuReader:
		return metrics.DefaultMeasures(c)
	default:
		spec = []string{"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"}
	}
	ms, err := metrics.ParseMeasures(spec, c)
	if err != nil {
		panic(err)
	}
	return ms
}

func runCompare(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "compare", "-qrels FILE RUN_A RUN_B [-m MEASURES] [-convention trec|st|beir|dureader] [-c] [-l N] [-permutations N] [-resamples N] [-seed N] [-format text|json|csv]")
	var ef evalFlags
	ef.register(fs)
	perms := fs.Int("permutations", metrics.DefaultPermutations, "sign-flip permutations of the paired randomization test")
	resamples := fs.Int("resamples", metrics.DefaultResamples, "bootstrap resamples for the 95% confidence interval")
	seed := fs.Uint64("seed", 0, "seed of the permutations and resamples")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("expected two runs, RUN_A and RUN_B; got %d arguments", len(pos))
	}
	if *perms < 1 || *resamples < 1 {
		return usageErrorf("-permutations and -resamples must be positive")
	}
	qrels, ms, opts, err := ef.options(compareDefaults)
	if err != nil {
		return err
	}
	var res [2]*metrics.Result
	for i, p := range pos {
		if res[i], err = evaluateRunFile(qrels, p, ms, opts); err != nil {
			return err
		}
		noteSkipped(env, "compare", p, res[i])
	}
	cmp, err := metrics.Compare(res[0], res[1], metrics.CompareOptions{Permutations: *perms, Resamples: *resamples, Seed: *seed})
	if err != nil {
		return err
	}
	if n := len(cmp.OnlyA) + len(cmp.OnlyB); n > 0 {
		fmt.Fprintf(env.stderr, "dreval compare: note: %d queries were evaluated for one run only and score 0 for the other (A only: %s; B only: %s)\n",
			n, someIDs(cmp.OnlyA), someIDs(cmp.OnlyB))
	}
	switch ef.format {
	case "json":
		return writeCompareJSON(env, pos, opts, cmp)
	case "csv":
		return writeCompareCSV(env, cmp)
	}
	w := len("measure")
	for _, m := range cmp.Measures {
		w = max(w, len(m.String()))
	}
	fmt.Fprintf(env.stdout, "%-*s  %7s  %7s  %8s  %-20s  %7s  %8s\n", w, "measure", "mean A", "mean B", "diff", "95% CI", "p rand", "p t-test")
	for i, m := range cmp.Measures {
		r := cmp.Rows[i]
		ci := fmt.Sprintf("[%+.4f, %+.4f]", r.CILow, r.CIHigh)
		fmt.Fprintf(env.stdout, "%-*s  %7.4f  %7.4f  %+8.4f  %-20s  %7s  %8s\n",
			w, m, r.MeanA, r.MeanB, r.Diff, ci, pValue(r.PRandomization), pValue(r.PTTest))
	}
	fmt.Fprintf(env.stdout, "\nA = %s, B = %s; diff = B - A; %s convention, %d paired queries.\n", pos[0], pos[1], opts.Convention, len(cmp.Queries))
	fmt.Fprintf(env.stdout, "p rand: two-sided paired randomization test, %d sign-flip permutations; p t-test: two-sided paired t-test;\n95%% CI: percentile bootstrap, %d resamples; seed %d.\n",
		cmp.Options.Permutations, cmp.Options.Resamples, cmp.Options.Seed)
	return nil
}

func pValue(p float64) string {
	if math.IsNaN(p) {
		return "n/a"
	}
	return fmt.Sprintf("%.4f", p)
}

func writeCompareJSON(env *cliEnv, runs []string, opts metrics.Options, c *metrics.Comparison) error {
	type row struct {
		Measure        string        `json:"measure"`
		MeanA          results.Float `json:"mean_a"`
		MeanB          results.Float `json:"mean_b"`
		Diff           results.Float `json:"diff"`
		CILow          results.Float `json:"ci_low"`
		CIHigh         results.Float `json:"ci_high"`
		PRandomization results.Float `json:"p_randomization"`
		PTTest         results.Float `json:"p_ttest"`
	}
	out := struct {
		A            string   `json:"a"`
		B            string   `json:"b"`
		Convention   string   `json:"convention"`
		Queries      int      `json:"queries"`
		Permutations int      `json:"permutations"`
		Resamples    int      `json:"resamples"`
		Seed         uint64   `json:"seed"`
		OnlyA        []string `json:"only_a,omitempty"`
		OnlyB        []string `json:"only_b,omitempty"`
		Rows         []row    `json:"rows"`
	}{
		A: runs[0], B: runs[1], Convention: opts.Convention.String(), Queries: len(c.Queries),
		Permutations: c.Options.Permutations, Resamples: c.Options.Resamples, Seed: c.Options.Seed,
		OnlyA: c.OnlyA, OnlyB: c.OnlyB,
	}
	for i, m := range c.Measures {
		r := c.Rows[i]
		out.Rows = append(out.Rows, row{m.String(), results.Float(r.MeanA), results.Float(r.MeanB), results.Float(r.Diff),
			results.Float(r.CILow), results.Float(r.CIHigh), results.Float(r.PRandomization), results.Float(r.PTTest)})
	}
	enc := json.NewEncoder(env.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeCompareCSV(env *cliEnv, c *metrics.Comparison) error {
	cw := csv.NewWriter(env.stdout)
	cw.Write([]string{"measure", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "p_randomization", "p_ttest", "queries", "permutations", "resamples", "seed"})
	f := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for i, m := range c.Measures {
		r := c.Rows[i]
		cw.Write([]string{m.String(), f(r.MeanA), f(r.MeanB), f(r.Diff), f(r.CILow), f(r.CIHigh), f(r.PRandomization), f(r.PTTest),
			strconv.Itoa(len(c.Queries)), strconv.Itoa(c.Options.Permutations), strconv.Itoa(c.Options.Resamples), strconv.FormatUint(c.Options.Seed, 10)})
	}
	cw.Flush()
	return cw.Error()
}
