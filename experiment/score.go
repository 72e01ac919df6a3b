package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
)

// Conventions returns the conventions the runs of task are scored under,
// in table order, with their measures: the paper's (st, the
// sentence-transformers evaluator's Acc@1, Prec@1, Rec@1, NDCG@10, MRR@10
// and MAP@100), trec_eval's, and for task dureader DuReader_retrieval's
// official script's. It is the one place that decides them: adding a
// convention to an experiment is adding it here. Each call returns new
// slices.
func Conventions(task Task) []results.Measures {
	out := []results.Measures{
		{Convention: metrics.ConventionST, Names: []string{"accuracy@1", "precision@1", "recall@1", "ndcg@10", "mrr@10", "map@100"}},
		{Convention: metrics.ConventionTREC, Names: []string{"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"}},
	}
	if task == TaskDuReader {
		out = append(out, results.Measures{Convention: metrics.ConventionDuReader, Names: []string{"MRR@10", "recall@1", "recall@50"}})
	}
	return out
}

// PaperConvention is the convention of the study's tables, which the
// per-run comparisons (RunResult.VsClean), the average drops and the
// findings use: sentence-transformers' evaluator, the study's tool.
const PaperConvention = metrics.ConventionST

// scoring is one convention's parsed measures.
type scoring struct {
	conv     metrics.Convention
	measures []metrics.Measure
	names    []string
	key      string // the convention and names: the values a ranking keeps
}

// parseConventions parses the measures of every convention of cs; the
// names of the result are the measures' canonical names (ndcg_cut.10 is
// ndcg_cut_10), which key every value.
func parseConventions(cs []results.Measures) ([]scoring, error) {
	out := make([]scoring, len(cs))
	for i, c := range cs {
		out[i] = scoring{conv: c.Convention}
		// One by one, keeping the order (metrics.ParseMeasures sorts).
		for _, n := range c.Names {
			ms, err := metrics.ParseMeasures([]string{n}, c.Convention)
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				out[i].measures = append(out[i].measures, m)
				out[i].names = append(out[i].names, m.String())
			}
		}
		out[i].key = c.Convention.String() + ":" + strings.Join(out[i].names, ",")
	}
	return out, nil
}

// getter reads one query's value in a run.
type getter func(rr *results.RunResult, qid string) (float64, bool)

// measureGetter reads a query's measure under convention c.
func measureGetter(c metrics.Convention, measure string) getter {
	return func(rr *results.RunResult, qid string) (float64, bool) { return rr.Value(c, measure, qid) }
}

// answerGetter reads a question's hit@k in mode.
func answerGetter(mode string, k int) getter {
	return func(rr *results.RunResult, qid string) (float64, bool) {
		a := rr.Answers[mode]
		if a == nil {
			return 0, false
		}
		return a.Hit(qid, k)
	}
}

// values returns, for the queries of clean that have a value (read by
// get), the clean value and the perturbed runs' values averaged over runs.
func values(clean *results.RunResult, runs []*results.RunResult, get getter) (qids []string, a, b []float64) {
	// Every query searched is in PerQuery, or without qrels (PerQuery
	// nil) in the run; answer questions are a subset.
	keep := func(qid string) {
		if _, ok := get(clean, qid); ok {
			qids = append(qids, qid)
		}
	}
	if clean.PerQuery != nil {
		for qid := range clean.PerQuery {
			keep(qid)
		}
	} else {
		for qid := range clean.Run {
			keep(qid)
		}
	}
	slices.Sort(qids)
	kept := qids[:0]
	for _, qid := range qids {
		x, _ := get(clean, qid)
		var sum float64
		n := 0
		for _, rr := range runs {
			if y, ok := get(rr, qid); ok {
				sum += y
				n++
			}
		}
		if n == 0 {
			continue
		}
		kept = append(kept, qid)
		a = append(a, x)
		b = append(b, sum/float64(n))
	}
	return kept, a, b
}

// compare compares clean with runs averaged query by query, per measure
// of convention s.
func (r *runner) compare(clean *results.RunResult, runs []*results.RunResult, s scoring) (map[string]results.Comparison, error) {
	getters := make([]getter, len(s.names))
	for i, name := range s.names {
		getters[i] = measureGetter(s.conv, name)
	}
	return r.compareBy(clean, runs, s.names, getters)
}

// compareBy compares clean with runs averaged query by query, per name,
// reading values with the getter of the same index. The tests of all
// names run together (metrics.PairedTests shares their random draws);
// each test's result equals its own metrics.PairedTest.
func (r *runner) compareBy(clean *results.RunResult, runs []*results.RunResult, names []string, getters []getter) (map[string]results.Comparison, error) {
	as := make([][]float64, len(names))
	bs := make([][]float64, len(names))
	for i := range names {
		_, as[i], bs[i] = values(clean, runs, getters[i])
	}
	res, err := pairedCompares(as, bs, r.cfg.TestOptions())
	if err != nil {
		return nil, fmt.Errorf("comparing %s: %w", strings.Join(names, ", "), err)
	}
	out := make(map[string]results.Comparison, len(names))
	for i, name := range names {
		out[name] = res[i]
	}
	return out, nil
}

// paper returns the scoring of PaperConvention.
func (r *runner) paper() scoring {
	for _, s := range r.scoring {
		if s.conv == PaperConvention {
			return s
		}
	}
	return scoring{conv: PaperConvention}
}

// vsClean compares a perturbed run with the clean one on the paper's
// measures.
func (r *runner) vsClean(clean, rr *results.RunResult) (results.Comparisons, error) {
	c, err := r.compare(clean, []*results.RunResult{rr}, r.paper())
	if err != nil {
		return nil, err
	}
	return results.Comparisons{PaperConvention: c}, nil
}

// summarizeRate summarises the runs of one rate over seeds; without qrels
// only the changed fraction and the task's answer accuracy.
func (r *runner) summarizeRate(clean *results.RunResult, rate float64, seeds []uint64, runs []*results.RunResult, td *taskData) (*results.RateSummary, error) {
	s := &results.RateSummary{Rate: rate, Seeds: seeds}
	stat := func(f func(*results.RunResult) float64) results.Stat {
		xs := make([]float64, len(runs))
		for i, rr := range runs {
			xs[i] = f(rr)
		}
		return results.NewStat(xs)
	}
	s.ChangedFraction = stat(func(rr *results.RunResult) float64 { return rr.ChangedFraction })
	if judged(td) {
		s.Stats = results.Stats{}
		if !r.cfg.DeferTests {
			s.Drop = results.Comparisons{}
		}
		for _, sc := range r.scoring {
			stats := make(map[string]results.Stat, len(sc.names))
			for _, name := range sc.names {
				stats[name] = stat(func(rr *results.RunResult) float64 { return rr.Means[sc.conv][name] })
			}
			s.Stats[sc.conv] = stats
			if r.cfg.DeferTests {
				continue
			}
			if sc.conv == PaperConvention && len(runs) == 1 && runs[0].VsClean != nil {
				// One seed: the drop is the run's own comparison with the
				// clean run (same values, same test seed), already computed.
				s.Drop[sc.conv] = runs[0].VsClean[sc.conv]
				continue
			}
			d, err := r.compare(clean, runs, sc)
			if err != nil {
				return nil, err
			}
			s.Drop[sc.conv] = d
		}
	}
	if err := r.summarizeAnswers(clean, runs, s); err != nil {
		return nil, err
	}
	return s, nil
}

// averageDrops computes Results.Average: for every model run on every
// dataset with qrels, every perturbed rate and measure of the paper's
// convention, the drop averaged over those datasets and the paired
// comparison over the pooled queries. Datasets without qrels have no
// values and are left out.
func (r *runner) averageDrops() ([]*results.AverageDrop, error) {
	var ds []*results.DatasetResult
	for _, d := range r.res.Datasets {
		if !d.QrelsAbsent {
			ds = append(ds, d)
		}
	}
	if len(ds) < 2 {
		return nil, nil
	}
	conv := PaperConvention
	var out []*results.AverageDrop
	for _, m0 := range ds[0].Models {
		per := make([]*results.ModelResult, 0, len(ds))
		for _, d := range ds {
			if m := d.Model(m0.Model); m != nil {
				per = append(per, m)
			}
		}
		if len(per) != len(ds) {
			continue
		}
		for _, rate := range r.cfg.perturbedRates() {
			for _, name := range r.paper().names {
				ad := &results.AverageDrop{Model: m0.Model, Rate: rate, Convention: conv, Measure: name, Datasets: len(ds)}
				var a, b []float64
				for _, m := range per {
					var runs []*results.RunResult
					for _, rr := range m.Perturbed {
						if rr.Rate == rate {
							runs = append(runs, rr)
						}
					}
					ad.Clean += m.Clean.Means[conv][name] / float64(len(per))
					var sum float64
					for _, rr := range runs {
						sum += rr.Means[conv][name]
					}
					if len(runs) > 0 {
						ad.Perturbed += sum / float64(len(runs)) / float64(len(per))
					}
					_, xa, xb := values(m.Clean, runs, measureGetter(conv, name))
					a, b = append(a, xa...), append(b, xb...)
				}
				ad.Drop = results.Float(ad.Clean - ad.Perturbed)
				ad.Relative = results.Float(math.NaN())
				if ad.Clean != 0 {
					ad.Relative = ad.Drop / results.Float(ad.Clean)
				}
				var err error
				if ad.Pooled, err = pairedCompare(a, b, r.cfg.TestOptions()); err != nil {
					return nil, fmt.Errorf("average drop of %s at rate %v on %s: %w", m0.Model, rate, name, err)
				}
				out = append(out, ad)
			}
		}
	}
	return out, nil
}

// pairedCompare compares the paired values a and b (same queries, same
// order) with metrics.PairedTest. With no queries every field but N is
// NaN.
func pairedCompare(a, b []float64, opts metrics.CompareOptions) (results.Comparison, error) {
	cs, err := pairedCompares([][]float64{a}, [][]float64{b}, opts)
	if err != nil {
		return results.Comparison{}, err
	}
	return cs[0], nil
}

// pairedCompares runs pairedCompare on every pair (as[i], bs[i]) with
// metrics.PairedTests, which shares the random draws between pairs.
func pairedCompares(as, bs [][]float64, opts metrics.CompareOptions) ([]results.Comparison, error) {
	out := make([]results.Comparison, len(as))
	var idx []int
	var ta, tb [][]float64
	for i := range as {
		if len(as[i]) == 0 {
			out[i] = results.NoComparison()
			continue
		}
		idx, ta, tb = append(idx, i), append(ta, as[i]), append(tb, bs[i])
	}
	if len(idx) == 0 {
		return out, nil
	}
	ps, err := metrics.PairedTests(ta, tb, opts)
	if err != nil {
		return nil, err
	}
	for k, i := range idx {
		out[i] = results.NewComparison(ps[k])
	}
	return out, nil
}
