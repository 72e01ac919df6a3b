package metrics

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dreval/dreval/internal/sharedtest"
)

// stringPathValues scores one query as the evaluator did before
// Judgments: the list put in the convention's order by Convention.Order,
// each document's relevance looked up by id in the query's map, the
// judgment statistics computed from the map. nil: the convention leaves
// the query out.
func stringPathValues(qrels Qrels, qid string, list Ranked, measures []Measure, opts Options) []float64 {
	docs, ok := qrels[qid]
	if !ok {
		return nil
	}
	q := queryData{level: opts.level()}
	q.numRel, q.ideal = judgmentStats(docs, q.level)
	if (opts.Convention == ConventionST || opts.Convention == ConventionDuReader) && q.numRel == 0 {
		return nil
	}
	for _, d := range opts.Convention.Order(qid, list) {
		r, ok := docs[d.DocID]
		if !ok {
			r = unjudged
		}
		q.rels = append(q.rels, r)
	}
	vals := make([]float64, len(measures))
	for i, m := range measures {
		vals[i] = m.f.calc(&q, m.k)
	}
	return vals
}

// TestCheckedListsEqualStringPath scores the real run of trec_eval's
// test suite (../shared) against its real qrels, whole (hundreds of
// judgments a query: looked up in maps) and cut to a few judgments a
// query (looked up by hash), each list checked once by CheckedList.Check and
// scored under every convention, in file order and sorted as a ranker
// lists (the two order paths), with run queries the qrels lack, unjudged
// documents and qrels queries the run lacks; every value must equal the
// string path's bit for bit, and every Result Evaluate's.
func TestCheckedListsEqualStringPath(t *testing.T) {
	dir := sharedtest.Path(t, "testdata/trec_eval")
	full := readQrelsFile(t, filepath.Join(dir, "qrels.rel_level")) // graded
	f, err := os.Open(filepath.Join(dir, "results.test"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := ReadRun(f, "results.test")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// A few judgments a query, every other query only, and a query the
	// run lacks.
	few := Qrels{"absent-from-run": {"d": 1}}
	for i, qid := range full.QueryIDs() {
		if i%2 == 1 {
			continue
		}
		docs := map[string]int{}
		for j, doc := range slices.Sorted(maps.Keys(full[qid])) {
			if (j%40 == 0 || full[qid][doc] > 0 && j%3 == 0) && len(docs) < smallJudged {
				docs[doc] = full[qid][doc]
			}
		}
		few[qid] = docs
	}
	sorted := Run{}
	for qid, list := range run {
		sorted[qid] = ConventionST.Order(qid, list)
	}
	smallAndLarge := 0
	for _, qrels := range []Qrels{full, few} {
		for _, qid := range qrels.QueryIDs() {
			if len(qrels[qid]) <= smallJudged {
				smallAndLarge |= 1
			} else {
				smallAndLarge |= 2
			}
		}
	}
	if smallAndLarge != 3 {
		t.Fatalf("the qrels do not cover both look-ups (%b)", smallAndLarge)
	}
	convs := []Convention{ConventionTREC, ConventionST, ConventionBEIR, ConventionDuReader}
	for qi, qrels := range []Qrels{full, few} {
		for ri, r := range []Run{run, sorted} {
			checked := map[string]*CheckedList{}
			for _, qid := range r.QueryIDs() {
				c := new(CheckedList)
				if err := c.Check(qid, r[qid]); err != nil {
					t.Fatal(err)
				}
				checked[qid] = c
			}
			for _, conv := range convs {
				for _, opts := range []Options{{Convention: conv, Complete: true}, {Convention: conv, RelLevel: 2}} {
					name := fmt.Sprintf("qrels %d run %d %s -c=%v -l=%d", qi, ri, conv, opts.Complete, opts.RelLevel)
					measures := DefaultMeasures(conv)
					if conv.trecFamily() {
						measures, _ = ParseMeasures([]string{"all_trec"}, conv)
					}
					ev := judgedEvaluator(t, qrels, opts, measures)
					for _, qid := range r.QueryIDs() {
						got, err := ev.AddChecked(checked[qid])
						if err != nil {
							t.Fatal(err)
						}
						want := stringPathValues(qrels, qid, r[qid], measures, opts)
						if !slices.Equal(got, want) { // bit for bit (no NaN)
							t.Errorf("%s query %s: %v, string path %v", name, qid, got, want)
						}
					}
					res, err := ev.Finish()
					if err != nil {
						t.Fatal(err)
					}
					ref, err := Evaluate(qrels, r, measures, opts)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(res.All, ref.All) || !slices.Equal(res.Queries, ref.Queries) || !slices.Equal(res.Missing, ref.Missing) ||
						!slices.Equal(res.Ignored, ref.Ignored) || !slices.Equal(res.Dropped, ref.Dropped) {
						t.Errorf("%s: Evaluator's Result differs from Evaluate's", name)
					}
				}
			}
		}
	}
}

// TestCheckListErrors checks that CheckedList.Check refuses what Add refuses,
// with Add's message: the first document (in list order) listed a
// second time, and scores that are not finite.
func TestCheckListErrors(t *testing.T) {
	qrels := Qrels{"q1": {"a": 1}}
	ms := DefaultMeasures(ConventionST)
	long := Ranked{}
	for i := range 300 { // past the duplicate table's stack size
		long = append(long, ScoredDoc{DocID: fmt.Sprintf("d%d", i), Score: float64(-i)})
	}
	cases := []struct {
		name string
		list Ranked
		want string
	}{
		{"duplicate", Ranked{{"a", 3}, {"b", 2}, {"c", 1}, {"b", 0}, {"a", -1}}, `query "q1": document "b" listed twice`},
		{"duplicate in a long list", append(long[:300:300], ScoredDoc{"d7", -500}), `query "q1": document "d7" listed twice`},
		{"NaN", Ranked{{"a", 1}, {"b", math.NaN()}}, `query "q1", document "b": score NaN: expected a finite number`},
		{"infinite", Ranked{{"a", 1}, {"b", math.Inf(-1)}}, `query "q1", document "b": score -Inf: expected a finite number`},
		{"duplicate before NaN", Ranked{{"a", math.NaN()}, {"a", 1}}, `document "a" listed twice`},
	}
	var reused CheckedList // each case checked into the memory of the one before
	for _, c := range cases {
		err := reused.Check("q1", c.list)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Check: %v, want %q", c.name, err, c.want)
		}
		ev, _ := NewEvaluator(qrels, ms, Options{Convention: ConventionST})
		_, addErr := ev.Add("q1", c.list)
		if addErr == nil || err == nil || addErr.Error() != err.Error() {
			t.Errorf("%s: Add: %v, Check: %v", c.name, addErr, err)
		}
		ev, _ = NewEvaluator(qrels, ms, Options{Convention: ConventionST})
		if _, err := ev.AddChecked(&reused); err == nil || !strings.Contains(err.Error(), "not checked") {
			t.Errorf("%s: AddChecked of a list that failed its check: %v", c.name, err)
		}
	}
	if _, err := new(Evaluator).AddChecked(new(CheckedList)); err == nil {
		t.Error("AddChecked of a list never checked: no error")
	}
	if err := reused.Check("q1", long); err != nil {
		t.Fatal(err)
	}
	ev, _ := NewEvaluator(qrels, ms, Options{Convention: ConventionST})
	if _, err := ev.AddChecked(&reused); err != nil {
		t.Fatal(err)
	}
	if _, err := ev.AddChecked(&reused); err == nil || !strings.Contains(err.Error(), "added twice") {
		t.Errorf("query added twice: %v", err)
	}
	if _, err := ev.Add("q9", long); err != nil { // not in the qrels: left out
		t.Fatal(err)
	}
	if _, err := ev.Add("q9", long); err == nil || !strings.Contains(err.Error(), "added twice") {
		t.Errorf("unjudged query added twice: %v", err)
	}
}

// FuzzCheckedListEqualsStringPath checks, for any qrels and run that
// parse, under every convention and with relevance levels 1 and 2, that
// each query's values through Judgments and CheckedList are bit for bit
// those of the string path (and Evaluate's), documents looked up by hash
// or in maps (a query with more than smallJudged judgments).
func FuzzCheckedListEqualsStringPath(f *testing.F) {
	f.Add("q 0 a 2\nq 0 b 1\nr 0 a -1\n", "q Q0 a 1 1 t\nq Q0 b 2 1 t\nr Q0 r 1 0 t\nx Q0 a 1 3 t\n", uint8(0), uint8(40))
	f.Add("q 0 a 1\n", "q Q0 q 1 5 t\nq Q0 a 2 5 t\n", uint8(2), uint8(0))
	f.Add("q 0 b 3\nq 0 a 1\n", "q Q0 a 1 1.5 t\nq Q0 b 2 1.5000001 t\nq Q0 c 3 1.5 t\n", uint8(1), uint8(33))
	f.Fuzz(func(t *testing.T, qrelsText, runText string, conv, extra uint8) {
		qrels, err := ReadQrels(strings.NewReader(qrelsText), "qrels")
		if err != nil {
			return
		}
		run, err := ReadRun(strings.NewReader(runText), "run")
		if err != nil {
			return
		}
		// extra judgments for the first query, past smallJudged when
		// extra > smallJudged.
		first := qrels.QueryIDs()[0]
		for i := range int(extra) {
			if _, ok := qrels[first][fmt.Sprintf("extra%d", i)]; !ok {
				qrels[first][fmt.Sprintf("extra%d", i)] = i % 3
			}
		}
		c := Convention(conv % 4)
		measures := DefaultMeasures(c)
		if c.trecFamily() {
			measures, _ = ParseMeasures([]string{"all_trec"}, c)
		}
		var lists []CheckedList
		for _, qid := range run.QueryIDs() {
			var l CheckedList
			if err := l.Check(qid, run[qid]); err != nil {
				t.Fatalf("a list ReadRun accepted fails its check: %v", err)
			}
			lists = append(lists, l)
		}
		for _, opts := range []Options{{Convention: c, Complete: true}, {Convention: c, RelLevel: 2}} {
			ev := judgedEvaluator(t, qrels, opts, measures)
			for i, qid := range run.QueryIDs() {
				got, err := ev.AddChecked(&lists[i])
				if err != nil {
					t.Fatal(err)
				}
				want := stringPathValues(qrels, qid, run[qid], measures, opts)
				if len(got) != len(want) || (got == nil) != (want == nil) {
					t.Fatalf("%s query %s: %v, string path %v", c, qid, got, want)
				}
				for k := range got {
					if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
						t.Fatalf("%s query %s %s: %v, string path %v", c, qid, measures[k], got[k], want[k])
					}
				}
			}
			res, err := ev.Finish()
			ref, refErr := Evaluate(qrels, run, measures, opts)
			if (err == nil) != (refErr == nil) {
				t.Fatalf("Finish: %v, Evaluate: %v", err, refErr)
			}
			if err == nil && (!slices.Equal(res.Queries, ref.Queries) || !slices.Equal(res.Missing, ref.Missing) || len(res.All) != len(ref.All)) {
				t.Fatalf("Finish's Result differs from Evaluate's")
			}
		}
	})
}

// judgedEvaluator returns the Evaluator of measures over qrels prepared
// with opts (NewJudgments), failing t on an error.
func judgedEvaluator(t *testing.T, qrels Qrels, opts Options, measures []Measure) *Evaluator {
	t.Helper()
	j, err := NewJudgments(qrels, opts)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := j.Evaluator(measures)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}
