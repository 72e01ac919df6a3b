package experiment

import (
	"context"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/results"
)

// lessonRankings runs the page's opening lesson (static model on the demo,
// 7 rates, 5 seeds, top 100) once and returns its qrels and its 31 runs as
// scoreRun takes them: a query's equal lists share one ranking, as the
// rankings of a session's equal query sequences do.
func lessonRankings(b testing.TB) (metrics.Qrels, []map[string]*ranking) {
	sharedtest.ModelDir(b, "static")
	c, err := dataset.Demo("test")
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{
		Collections:  []*dataset.Collection{c},
		Models:       []string{"static"},
		Registry:     DefaultRegistry(),
		ModelOptions: ModelOptions{Engine: "go", ModelsDir: sharedtest.ModelsDir()},
		Rates:        []float64{0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5},
		Seeds:        5,
		K:            100,
		DeferTests:   true,
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	ds := res.Datasets[0]
	mr := ds.Models[0]
	shared := map[string]*ranking{}
	var runs []map[string]*ranking
	for _, rr := range append([]*results.RunResult{mr.Clean}, mr.Perturbed...) {
		m := map[string]*ranking{}
		for qid, list := range rr.Run {
			var key strings.Builder
			key.WriteString(qid)
			for _, d := range list {
				key.WriteString("\x00" + d.DocID)
			}
			rk := shared[key.String()]
			if rk == nil {
				rk = &ranking{list: list}
				shared[key.String()] = rk
			}
			m[qid] = rk
		}
		runs = append(runs, m)
	}
	b.Logf("%d distinct rankings", len(shared))
	if len(runs) != 31 {
		b.Fatalf("%d runs, want 31", len(runs))
	}
	return ds.Qrels, runs
}

// BenchmarkScoreLessonStatic measures the scoring of the page's opening
// lesson: its 31 runs scored by scoreRun under every convention the page
// shows, each distinct ranking's values computed once (the rankings made
// beforehand, outside the timing).
func BenchmarkScoreLessonStatic(b *testing.B) {
	qrels, runs := lessonRankings(b)
	sc, err := parseConventions(Conventions(TaskIR))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, run := range runs {
			for _, rk := range run {
				rk.vals = nil
			}
		}
		r := &runner{scoring: sc}
		s := &scorer{qrels: qrels}
		for _, run := range runs {
			if _, err := r.scoreRun(s, run, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}
