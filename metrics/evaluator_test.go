package metrics

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestEvaluatorEqualsEvaluate scores runs that share lists with an
// Evaluator, reusing the values of every list scored before, and checks
// each Result against Evaluate's, under every convention, with -c and
// without, with queries the qrels lack, queries without a relevant
// document and qrels queries missing from the run.
func TestEvaluatorEqualsEvaluate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	qrels := Qrels{}
	for q := range 12 {
		qid := fmt.Sprintf("q%02d", q)
		qrels[qid] = map[string]int{}
		for d := range 6 {
			rel := r.IntN(3)
			if q == 3 { // no relevant document
				rel = 0
			}
			qrels[qid][fmt.Sprintf("d%d", r.IntN(30))] = rel + 0*d
		}
	}
	list := func() Ranked {
		var l Ranked
		seen := map[int]bool{}
		for len(l) < 10 {
			d := r.IntN(30)
			if seen[d] {
				continue
			}
			seen[d] = true
			l = append(l, ScoredDoc{DocID: fmt.Sprintf("d%d", d), Score: float64(r.IntN(5))}) // ties
		}
		return l
	}
	// Each query has two candidate lists; a run picks one per query.
	lists := map[string][2]Ranked{}
	for q := range 13 { // q12 is not in the qrels
		qid := fmt.Sprintf("q%02d", q)
		lists[qid] = [2]Ranked{list(), list()}
	}
	for _, conv := range []Convention{ConventionTREC, ConventionST, ConventionBEIR, ConventionDuReader} {
		for _, complete := range []bool{false, true} {
			opts := Options{Convention: conv, Complete: complete}
			measures := DefaultMeasures(conv)
			memo := map[string][]float64{} // qid/list -> values
			for runNo := range 6 {
				run := Run{}
				for qid, ls := range lists {
					if qid == "q05" && runNo%2 == 1 {
						continue // missing from the run
					}
					run[qid] = ls[r.IntN(2)]
				}
				want, err := Evaluate(qrels, run, measures, opts)
				if err != nil {
					t.Fatal(err)
				}
				ev, err := NewEvaluator(qrels, measures, opts)
				if err != nil {
					t.Fatal(err)
				}
				for _, qid := range run.QueryIDs() {
					key := qid + "/" + fmt.Sprint(&run[qid][0])
					if vals, ok := memo[key]; ok {
						if err := ev.Reuse(qid, vals); err != nil {
							t.Fatal(err)
						}
						continue
					}
					vals, err := ev.Add(qid, run[qid])
					if err != nil {
						t.Fatal(err)
					}
					memo[key] = vals
				}
				got, err := ev.Finish()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s -c=%v run %d: Evaluator %+v\nEvaluate %+v", conv, complete, runNo, got, want)
				}
			}
		}
	}
}

func TestEvaluatorErrors(t *testing.T) {
	qrels := Qrels{"q1": {"a": 1}, "q2": {"b": 0}}
	ms := DefaultMeasures(ConventionST)
	ev, err := NewEvaluator(qrels, ms, Options{Convention: ConventionST})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Add("q1", Ranked{{DocID: "a", Score: 1}, {DocID: "a", Score: 0}}); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("duplicate document: %v", err)
	}
	ev, _ = NewEvaluator(qrels, ms, Options{Convention: ConventionST})
	if _, err := ev.Add("q1", Ranked{{DocID: "a", Score: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := ev.Reuse("q1", make([]float64, len(ms))); err == nil || !strings.Contains(err.Error(), "added twice") {
		t.Errorf("query added twice: %v", err)
	}
	if err := ev.Reuse("q2", make([]float64, len(ms))); err == nil || !strings.Contains(err.Error(), "leaves out") {
		t.Errorf("values for a dropped query: %v", err)
	}
	if err := ev.Reuse("q9", []float64{1}); err == nil {
		t.Error("values for a query the qrels lack were accepted")
	}
	ev, _ = NewEvaluator(qrels, ms, Options{Convention: ConventionST})
	if err := ev.Reuse("q1", []float64{1}); err == nil || !strings.Contains(err.Error(), "values reused for") {
		t.Errorf("wrong number of values: %v", err)
	}
}
