package metrics

import (
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

// eval reads qrels and run text, evaluates the given measures and fails
// the test on error.
func eval(t *testing.T, qrels, run, measures string, opts Options) *Result {
	t.Helper()
	res, err := evalErr(qrels, run, measures, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func evalErr(qrels, run, measures string, opts Options) (*Result, error) {
	q, err := ReadQrels(strings.NewReader(qrels), "qrels")
	if err != nil {
		return nil, err
	}
	ms, err := ParseMeasures([]string{measures}, opts.Convention)
	if err != nil {
		return nil, err
	}
	return EvaluateReader(q, strings.NewReader(run), "run", ms, opts)
}

const eps = 1e-12

// TestMeasures checks measures on small hand-made cases whose values are
// worked out in the comments.
func TestMeasures(t *testing.T) {
	l2 := func(x float64) float64 { return math.Log2(x) }
	cases := []struct {
		name    string
		qrels   string
		run     string
		opts    Options
		measure string
		qid     string // "all" for the summary
		want    float64
	}{
		{
			// Tied scores: trec_eval orders ties by document id descending,
			// so b (relevant) comes before a.
			name:    "tie broken by docid descending",
			qrels:   "q 0 b 1\n",
			run:     "q Q0 a 1 1.0 t\nq Q0 b 2 1.0 t\n",
			measure: "P.1", qid: "q", want: 1,
		},
		{
			// The rank column is ignored: b has the higher score.
			name:    "rank column ignored",
			qrels:   "q 0 b 1\n",
			run:     "q Q0 a 1 0.5 t\nq Q0 b 2 0.9 t\n",
			measure: "recip_rank", qid: "q", want: 1,
		},
		{
			// Under trec scores are compared as float32 (trec_eval stores
			// them so): these two tie, and z (not relevant) wins on docid.
			name:    "trec ties at float32 precision",
			qrels:   "q 0 a 1\n",
			run:     "q Q0 a 1 1.00000001 t\nq Q0 z 2 1.0 t\n",
			measure: "P.1", qid: "q", want: 0,
		},
		{
			// Under st the same scores differ in float64: a is first.
			name:    "st compares float64 scores",
			qrels:   "q 0 a 1\n",
			run:     "q Q0 a 1 1.00000001 t\nq Q0 z 2 1.0 t\n",
			opts:    Options{Convention: ConventionST},
			measure: "precision@1", qid: "q", want: 1,
		},
		{
			// Graded gains: ranks 1..3 have grades 1, 0 (unjudged), 3.
			// DCG = 1 + 3/log2(4); the ideal ranks 3, 2, 1:
			// 3 + 2/log2(3) + 1/log2(4).
			name:    "graded ndcg",
			qrels:   "q 0 a 1\nq 0 b 2\nq 0 c 3\n",
			run:     "q Q0 a 1 3 t\nq Q0 x 2 2 t\nq Q0 c 3 1 t\n",
			measure: "ndcg", qid: "q", want: (1 + 3/l2(4)) / (3 + 2/l2(3) + 1/l2(4)),
		},
		{
			// ndcg_cut.2 cuts both sums: DCG = 1; ideal = 3 + 2/log2(3).
			name:    "graded ndcg_cut",
			qrels:   "q 0 a 1\nq 0 b 2\nq 0 c 3\n",
			run:     "q Q0 a 1 3 t\nq Q0 x 2 2 t\nq Q0 c 3 1 t\n",
			measure: "ndcg_cut.2", qid: "q", want: 1 / (3 + 2/l2(3)),
		},
		{
			// -l 2 changes what is relevant (only c), not the gains.
			name:    "level 2 keeps ndcg gains",
			qrels:   "q 0 a 1\nq 0 b 2\nq 0 c 3\n",
			run:     "q Q0 a 1 3 t\nq Q0 x 2 2 t\nq Q0 c 3 1 t\n",
			opts:    Options{RelLevel: 2},
			measure: "ndcg", qid: "q", want: (1 + 3/l2(4)) / (3 + 2/l2(3) + 1/l2(4)),
		},
		{
			// -l 2: relevant are b and c (R = 2); only c is retrieved, at 3.
			name:    "level 2 map",
			qrels:   "q 0 a 1\nq 0 b 2\nq 0 c 3\n",
			run:     "q Q0 a 1 3 t\nq Q0 x 2 2 t\nq Q0 c 3 1 t\n",
			opts:    Options{RelLevel: 2},
			measure: "map", qid: "q", want: (1.0 / 3) / 2,
		},
		{
			// Relevance -1 is judged not relevant: no gain, not in R.
			name:    "relevance -1 in ndcg",
			qrels:   "q 0 a -1\nq 0 b 1\n",
			run:     "q Q0 a 1 2 t\nq Q0 b 2 1 t\n",
			measure: "ndcg", qid: "q", want: (1 / l2(3)) / 1,
		},
		{
			name:    "relevance -1 not counted in num_rel",
			qrels:   "q 0 a -1\nq 0 b 1\n",
			run:     "q Q0 a 1 2 t\nq Q0 b 2 1 t\n",
			measure: "num_rel", qid: "q", want: 1,
		},
		{
			// P.10 divides by 10 even with 2 documents retrieved.
			name:    "P@k with fewer than k results",
			qrels:   "q 0 a 1\nq 0 b 1\n",
			run:     "q Q0 a 1 2 t\nq Q0 b 2 1 t\n",
			measure: "P.10", qid: "q", want: 0.2,
		},
		{
			name:    "st precision@k with fewer than k results",
			qrels:   "q 0 a 1\nq 0 b 1\n",
			run:     "q Q0 a 1 2 t\nq Q0 b 2 1 t\n",
			opts:    Options{Convention: ConventionST},
			measure: "precision@10", qid: "q", want: 0.2,
		},
		// More relevant documents (R = 4) than k = 2; both top documents
		// are relevant.
		{name: "R > k: recall", qrels: fourRel, run: fourRelRun, measure: "recall.2", qid: "q", want: 0.5},
		{name: "R > k: P", qrels: fourRel, run: fourRelRun, measure: "P.2", qid: "q", want: 1},
		{name: "R > k: map_cut divides by R", qrels: fourRel, run: fourRelRun, measure: "map_cut.2", qid: "q", want: 2.0 / 4},
		{name: "R > k: trec ndcg_cut", qrels: fourRel, run: fourRelRun, measure: "ndcg_cut.2", qid: "q", want: 1},
		{name: "R > k: Rprec", qrels: fourRel, run: fourRelRun, measure: "Rprec", qid: "q", want: 2.0 / 4},
		{name: "R > k: st map divides by min(k, R)", qrels: fourRel, run: fourRelRun, opts: Options{Convention: ConventionST}, measure: "map@2", qid: "q", want: 1},
		{name: "R > k: st ndcg ideal of min(k, R)", qrels: fourRel, run: fourRelRun, opts: Options{Convention: ConventionST}, measure: "ndcg@2", qid: "q", want: 1},
		{name: "R > k: st recall", qrels: fourRel, run: fourRelRun, opts: Options{Convention: ConventionST}, measure: "recall@2", qid: "q", want: 0.5},
		{name: "R > k: success", qrels: fourRel, run: fourRelRun, measure: "success.1", qid: "q", want: 1},
		{
			// st mrr@k: the first hit at rank 3 is outside k = 2.
			name:    "st mrr outside k",
			qrels:   "q 0 c 1\n",
			run:     "q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 1 t\n",
			opts:    Options{Convention: ConventionST},
			measure: "mrr@2", qid: "q", want: 0,
		},
		{
			name:    "st mrr inside k",
			qrels:   "q 0 c 1\n",
			run:     "q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 1 t\n",
			opts:    Options{Convention: ConventionST},
			measure: "mrr@3", qid: "q", want: 1.0 / 3,
		},
		{
			// A query with only non-relevant judgments: trec keeps it
			// (scores 0), so the mean over q1 (1) and q2 (0) is 0.5.
			name:    "non-relevant-only query kept by trec",
			qrels:   "q1 0 a 1\nq2 0 a 0\nq2 0 b -1\n",
			run:     "q1 Q0 a 1 1 t\nq2 Q0 a 1 1 t\n",
			measure: "map", qid: "all", want: 0.5,
		},
		{
			// st drops it: the mean is over q1 only.
			name:    "non-relevant-only query dropped by st",
			qrels:   "q1 0 a 1\nq2 0 a 0\nq2 0 b -1\n",
			run:     "q1 Q0 a 1 1 t\nq2 Q0 a 1 1 t\n",
			opts:    Options{Convention: ConventionST},
			measure: "map@10", qid: "all", want: 1,
		},
		{
			// A qrels query missing from the run is left out by default...
			name:    "missing query without -c",
			qrels:   "q1 0 a 1\nq2 0 a 1\n",
			run:     "q1 Q0 a 1 1 t\n",
			measure: "map", qid: "all", want: 1,
		},
		{
			// ...and scores 0 with -c.
			name:    "missing query with -c",
			qrels:   "q1 0 a 1\nq2 0 a 1\n",
			run:     "q1 Q0 a 1 1 t\n",
			opts:    Options{Complete: true},
			measure: "map", qid: "all", want: 0.5,
		},
		{name: "missing query num_q without -c", qrels: "q1 0 a 1\nq2 0 a 1\n", run: "q1 Q0 a 1 1 t\n",
			measure: "num_q", qid: "all", want: 1},
		{name: "missing query num_q with -c", qrels: "q1 0 a 1\nq2 0 a 1\n", run: "q1 Q0 a 1 1 t\n",
			opts: Options{Complete: true}, measure: "num_q", qid: "all", want: 2},
		{name: "missing query num_rel with -c", qrels: "q1 0 a 1\nq2 0 a 1\nq2 0 b 1\n", run: "q1 Q0 a 1 1 t\n",
			opts: Options{Complete: true}, measure: "num_rel", qid: "all", want: 3},
		{name: "missing query st with -c", qrels: "q1 0 a 1\nq2 0 a 1\n", run: "q1 Q0 a 1 1 t\n",
			opts: Options{Convention: ConventionST, Complete: true}, measure: "accuracy@1", qid: "all", want: 0.5},
		{
			// A run query absent from the qrels is ignored.
			name:    "run query missing from qrels",
			qrels:   "q1 0 a 1\n",
			run:     "q1 Q0 a 1 1 t\nq9 Q0 a 1 1 t\n",
			measure: "num_q", qid: "all", want: 1,
		},
		{
			// beir removes the document whose id equals the query id: doc
			// "7" would be rank 1; without it the relevant "3" is first.
			name:    "beir ignores identical ids",
			qrels:   "7 0 3 1\n",
			run:     "7 Q0 7 1 0.9 t\n7 Q0 3 2 0.8 t\n",
			opts:    Options{Convention: ConventionBEIR},
			measure: "recip_rank", qid: "7", want: 1,
		},
		{
			name:    "trec keeps identical ids",
			qrels:   "7 0 3 1\n",
			run:     "7 Q0 7 1 0.9 t\n7 Q0 3 2 0.8 t\n",
			measure: "recip_rank", qid: "7", want: 0.5,
		},
		{
			name:    "beir num_ret after removal",
			qrels:   "7 0 3 1\n",
			run:     "7 Q0 7 1 0.9 t\n7 Q0 3 2 0.8 t\n",
			opts:    Options{Convention: ConventionBEIR},
			measure: "num_ret", qid: "7", want: 1,
		},
		{
			// dureader keeps submitted order (not scores): the relevant b
			// is second in the file though it has the top score.
			name:    "dureader submitted order",
			qrels:   "q 0 b 1\n",
			run:     "q Q0 a 1 0.1 t\nq Q0 b 2 0.9 t\n",
			opts:    Options{Convention: ConventionDuReader},
			measure: "MRR@10", qid: "q", want: 0.5,
		},
		{
			name:    "dureader recall is a hit rate",
			qrels:   "q 0 b 1\nq 0 c 1\n",
			run:     "q Q0 a 1 0.1 t\nq Q0 b 2 0.9 t\n",
			opts:    Options{Convention: ConventionDuReader},
			measure: "recall@50", qid: "q", want: 1,
		},
		{
			// A reference query missing from the run counts 0, always.
			name:    "dureader missing reference query",
			qrels:   "q1 0 b 1\nq2 0 c 1\nq3 0 d 0\n",
			run:     "q1 Q0 b 1 1 t\n",
			opts:    Options{Convention: ConventionDuReader},
			measure: "recall@1", qid: "all", want: 0.5,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := eval(t, c.qrels, c.run, c.measure, c.opts)
			m, err := ParseMeasures([]string{c.measure}, c.opts.Convention)
			if err != nil || len(m) != 1 {
				t.Fatalf("measure %q: %v", c.measure, err)
			}
			var got float64
			var ok bool
			if c.qid == "all" {
				got, ok = res.Mean(m[0].String())
			} else {
				got, ok = res.Value(c.qid, m[0].String())
			}
			if !ok {
				t.Fatalf("%s for %s not computed; queries %v", m[0], c.qid, res.Queries)
			}
			if math.Abs(got-c.want) > eps {
				t.Errorf("%s %s = %.15g, want %.15g", m[0], c.qid, got, c.want)
			}
		})
	}
}

const (
	fourRel    = "q 0 a 1\nq 0 b 1\nq 0 c 1\nq 0 d 1\n"
	fourRelRun = "q Q0 a 1 4 t\nq Q0 b 2 3 t\nq Q0 x 3 2 t\n"
)

// TestQueryLists checks which queries are evaluated, missing, ignored and
// dropped.
func TestQueryLists(t *testing.T) {
	qrels := "q1 0 a 1\nq2 0 a 1\nq3 0 a 0\n"
	run := "q1 Q0 a 1 1 t\nq3 Q0 a 1 1 t\nq9 Q0 a 1 1 t\n"
	cases := []struct {
		opts                               Options
		queries, missing, ignored, dropped []string
	}{
		{Options{}, []string{"q1", "q3"}, []string{"q2"}, []string{"q9"}, nil},
		{Options{Complete: true}, []string{"q1", "q2", "q3"}, []string{"q2"}, []string{"q9"}, nil},
		{Options{Convention: ConventionST}, []string{"q1"}, []string{"q2"}, []string{"q9"}, []string{"q3"}},
		{Options{Convention: ConventionDuReader}, []string{"q1", "q2"}, []string{"q2"}, []string{"q9"}, []string{"q3"}},
	}
	for _, c := range cases {
		ms := DefaultMeasures(c.opts.Convention)
		q, _ := ReadQrels(strings.NewReader(qrels), "qrels")
		res, err := EvaluateReader(q, strings.NewReader(run), "run", ms, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			what      string
			got, want []string
		}{{"queries", res.Queries, c.queries}, {"missing", res.Missing, c.missing}, {"ignored", res.Ignored, c.ignored}, {"dropped", res.Dropped, c.dropped}} {
			if !slices.Equal(f.got, f.want) {
				t.Errorf("%+v: %s = %v, want %v", c.opts, f.what, f.got, f.want)
			}
		}
		if res.NumQ != len(c.queries) {
			t.Errorf("%+v: NumQ = %d, want %d", c.opts, res.NumQ, len(c.queries))
		}
	}
}

func TestNoCommonQueries(t *testing.T) {
	_, err := evalErr("q1 0 a 1\n", "q2 Q0 a 1 1 t\n", "map", Options{})
	if err == nil || !strings.Contains(err.Error(), "no queries with both results and relevant judgments") {
		t.Fatalf("got %v", err)
	}
}

// TestUngroupedRun checks that a run whose queries are interleaved gives
// the same result as the grouped one, both through the seek fallback and
// through ReadRun, and that a reader that cannot seek reports it.
func TestUngroupedRun(t *testing.T) {
	qrels := "q1 0 a 1\nq1 0 c 1\nq2 0 b 2\n"
	grouped := "q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\nq2 Q0 a 1 2 t\nq2 Q0 b 2 1 t\n"
	ungrouped := "q1 Q0 c 3 1 t\nq2 Q0 b 2 1 t\nq1 Q0 a 1 3 t\nq2 Q0 a 1 2 t\nq1 Q0 b 2 2 t\n"
	want := eval(t, qrels, grouped, "all_trec", Options{})
	got := eval(t, qrels, ungrouped, "all_trec", Options{}) // strings.Reader seeks
	if !slices.Equal(got.All, want.All) {
		t.Errorf("ungrouped via seek: %v, want %v", got.All, want.All)
	}
	q, _ := ReadQrels(strings.NewReader(qrels), "qrels")
	// The fallback seeks back to where reading started, not to offset 0.
	mid := strings.NewReader("not a run line\n" + ungrouped)
	mid.Seek(int64(len("not a run line\n")), io.SeekStart)
	if res, err := EvaluateReader(q, mid, "run", want.Measures, Options{}); err != nil || !slices.Equal(res.All, want.All) {
		t.Errorf("ungrouped run read from mid-stream: %v, %v", res, err)
	}
	run, err := ReadRun(strings.NewReader(ungrouped), "run")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Evaluate(q, run, want.Measures, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.All, want.All) {
		t.Errorf("ReadRun + Evaluate: %v, want %v", res.All, want.All)
	}
	_, err = EvaluateReader(q, struct{ io_Reader }{strings.NewReader(ungrouped)}, "run", want.Measures, Options{})
	var pe *ParseError
	if !errors.Is(err, ErrUngrouped) || !errors.As(err, &pe) || pe.Line != 3 {
		t.Errorf("non-seekable ungrouped run: got %v, want ErrUngrouped at line 3", err)
	}
}

// io_Reader hides every method but Read.
type io_Reader interface{ Read([]byte) (int, error) }

func TestParseMeasures(t *testing.T) {
	cases := []struct {
		conv    Convention
		specs   []string
		want    string // names joined by spaces
		wantErr string
	}{
		{ConventionTREC, []string{"map,ndcg_cut.10,P.5,recip_rank"}, "map recip_rank P_5 ndcg_cut_10", ""},
		{ConventionTREC, []string{"P.5,10", "ndcg_cut.10"}, "P_5 P_10 ndcg_cut_10", ""},
		{ConventionTREC, []string{"P.10", "P.5", "P_5"}, "P_5 P_10", ""},
		{ConventionTREC, []string{"ndcg_cut"}, "ndcg_cut_5 ndcg_cut_10 ndcg_cut_15 ndcg_cut_20 ndcg_cut_30 ndcg_cut_100 ndcg_cut_200 ndcg_cut_500 ndcg_cut_1000", ""},
		{ConventionTREC, []string{"P"}, "P_5 P_10 P_15 P_20 P_30 P_100 P_200 P_500 P_1000", ""},
		{ConventionTREC, []string{"success"}, "success_1 success_5 success_10", ""},
		{ConventionTREC, []string{"recall.1000", "Rprec", "num_q"}, "num_q Rprec recall_1000", ""},
		{ConventionBEIR, []string{"ndcg_cut.10", "map_cut.100"}, "ndcg_cut_10 map_cut_100", ""},
		{ConventionST, []string{"ndcg@10,mrr@10", "accuracy@1,3"}, "accuracy@1 accuracy@3 mrr@10 ndcg@10", ""},
		{ConventionST, []string{"recall"}, "recall@1 recall@3 recall@5 recall@10", ""},
		{ConventionST, []string{"NDCG@10"}, "ndcg@10", ""},
		{ConventionDuReader, nil, "", "no measures"},
		{ConventionDuReader, []string{"MRR@10,recall@1,recall@50"}, "MRR@10 recall@1 recall@50", ""},
		{ConventionDuReader, []string{"mrr@10"}, "MRR@10", ""},
		{ConventionDuReader, []string{"recall@100"}, "", "at most 50"},
		{ConventionTREC, []string{"ndcg@10"}, "", "ndcg_cut.10"},
		{ConventionTREC, []string{"accuracy@1"}, "", "st convention"},
		{ConventionST, []string{"ndcg_cut.10"}, "", "trec convention"},
		{ConventionST, []string{"ndcg.10"}, "", "ndcg@10"},
		{ConventionTREC, []string{"map.5"}, "", "map_cut.5"},
		{ConventionTREC, []string{"P.0"}, "", "positive integer"},
		{ConventionTREC, []string{"P.x"}, "", "positive integer"},
		{ConventionTREC, []string{"bpref"}, "", "unknown measure"},
		{ConventionTREC, []string{"map,,P.5"}, "", "empty name"},
		{ConventionTREC, []string{"10"}, "", "follows no measure"},
		{ConventionTREC, []string{"map,10"}, "", "follows no measure"},
		{ConventionTREC, []string{"MAP"}, "", "did you mean map?"},
	}
	for _, c := range cases {
		ms, err := ParseMeasures(c.specs, c.conv)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s %q: error %v, want one containing %q", c.conv, c.specs, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", c.conv, c.specs, err)
			continue
		}
		var names []string
		for _, m := range ms {
			names = append(names, m.String())
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("%s %q = %s, want %s", c.conv, c.specs, got, c.want)
		}
	}
}

func TestEvaluateDoesNotModifyRun(t *testing.T) {
	q := Qrels{"q": {"a": 1}}
	run := Run{"q": {{"a", 1}, {"b", 2}}}
	if _, err := Evaluate(q, run, DefaultMeasures(ConventionTREC), Options{}); err != nil {
		t.Fatal(err)
	}
	if run["q"][0].DocID != "a" {
		t.Errorf("Evaluate reordered the caller's list: %v", run["q"])
	}
}

func TestEvaluateRefusesNaN(t *testing.T) {
	q := Qrels{"q": {"a": 1}}
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		run := Run{"q": {{"a", 1}, {"b", bad}}}
		if _, err := Evaluate(q, run, DefaultMeasures(ConventionTREC), Options{}); err == nil || !strings.Contains(err.Error(), `document "b"`) {
			t.Errorf("score %v: got %v", bad, err)
		}
	}
}

func TestEvaluateRefusesDuplicates(t *testing.T) {
	q := Qrels{"q": {"a": 1}}
	run := Run{"q": {{"a", 2}, {"b", 1}, {"a", 0.5}}}
	if _, err := Evaluate(q, run, DefaultMeasures(ConventionTREC), Options{}); err == nil || !strings.Contains(err.Error(), `document "a" listed twice`) {
		t.Errorf("got %v", err)
	}
}

// FuzzEvaluate checks, for any qrels and run text that parse, under every
// convention, that evaluation does not panic and that every measure but
// the counts lies in [0, 1].
func FuzzEvaluate(f *testing.F) {
	f.Add("q 0 a 2\nq 0 b 1\nr 0 a -1\n", "q Q0 a 1 1 t\nq Q0 b 2 1 t\nr Q0 r 1 0 t\n", uint8(0))
	f.Add("q 0 a 1\n", "q Q0 q 1 5 t\nq Q0 a 2 5 t\n", uint8(2))
	f.Fuzz(func(t *testing.T, qrelsText, runText string, conv uint8) {
		c := Convention(conv % 4)
		for _, complete := range []bool{false, true} {
			res, err := evalErr(qrelsText, runText, map[Convention]string{
				ConventionTREC: "all_trec", ConventionBEIR: "all_trec",
				ConventionST: "accuracy,precision,recall,mrr,ndcg,map", ConventionDuReader: "MRR,recall",
			}[c], Options{Convention: c, Complete: complete})
			if err != nil {
				return
			}
			for _, q := range res.Queries {
				for i, m := range res.Measures {
					if v := res.PerQuery[q][i]; !m.IsCount() && !(v >= 0 && v <= 1) {
						t.Fatalf("%s %s = %v under %s", m, q, v, c)
					}
				}
			}
		}
	})
}
