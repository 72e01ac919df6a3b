package experiment_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/results"
)

var update = flag.Bool("update", false, "rewrite testdata/golden_fake_demo.json")

// golden is the part of Results the golden file pins: every run's means
// and every comparison, bit for bit (JSON writes float64 exactly).
type golden struct {
	Runs  map[string]map[string]float64            `json:"runs"`
	Drops map[string]map[string]results.Comparison `json:"drops"`
}

// TestGoldenFakeDemo pins the numbers of a fake-model experiment on the
// demo collection. Run natively and under js/wasm, it checks that both
// give the same numbers:
//
//	go test ./experiment/ -run TestGolden -update     # rewrite, natively
//	GOOS=js GOARCH=wasm go test ./experiment/ -run TestGolden -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec"
func TestGoldenFakeDemo(t *testing.T) {
	c := demo(t)
	cfg, _ := fakeConfig(c)
	cfg.Models = []string{"fake", "fakebm25"}
	res, err := experiment.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := golden{Runs: map[string]map[string]float64{}, Drops: map[string]map[string]results.Comparison{}}
	for _, m := range res.Datasets[0].Models {
		for _, rr := range append([]*results.RunResult{m.Clean}, m.Perturbed...) {
			vals := map[string]float64{"changed_fraction": rr.ChangedFraction}
			for k, v := range rr.Means[st] {
				vals["st:"+k] = v
			}
			for k, v := range rr.Means[trec] {
				vals["trec:"+k] = v
			}
			got.Runs[rr.Name] = vals
		}
		for _, rs := range m.Rates {
			for k, v := range rs.Drop[st] {
				key := m.Model + "@" + results.FormatRate(rs.Rate)
				if got.Drops[key] == nil {
					got.Drops[key] = map[string]results.Comparison{}
				}
				got.Drops[key][k] = v
			}
		}
	}
	b, err := json.MarshalIndent(got, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden_fake_demo.json")
	if *update {
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with -update)", err)
	}
	var w golden
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	compareGolden(t, got, w)
}

// compareGolden reports every difference between the numbers of a run
// (got) and the golden file's (want), over the keys of both: a run, a
// measure or a comparison that vanished from the output fails as surely
// as one whose value changed, and so does one the golden file lacks.
func compareGolden(t testing.TB, got, want golden) {
	t.Helper()
	for _, name := range unionKeys(got.Runs, want.Runs) {
		g, inGot := got.Runs[name]
		w, inWant := want.Runs[name]
		switch {
		case !inGot:
			t.Errorf("run %s is in the golden file but not in the output", name)
			continue
		case !inWant:
			t.Errorf("run %s is in the output but not in the golden file (rewrite it with -update if it is new)", name)
			continue
		}
		for _, k := range unionKeys(g, w) {
			gv, inGot := g[k]
			wv, inWant := w[k]
			switch {
			case !inGot:
				t.Errorf("%s %s is in the golden file (%v) but not in the output", name, k, wv)
			case !inWant:
				t.Errorf("%s %s = %v is not in the golden file", name, k, gv)
			case gv != wv:
				t.Errorf("%s %s = %v, golden %v", name, k, gv, wv)
			}
		}
	}
	for _, key := range unionKeys(got.Drops, want.Drops) {
		g, inGot := got.Drops[key]
		w, inWant := want.Drops[key]
		switch {
		case !inGot:
			t.Errorf("rate summary %s is in the golden file but not in the output", key)
			continue
		case !inWant:
			t.Errorf("rate summary %s is in the output but not in the golden file", key)
			continue
		}
		for _, k := range unionKeys(g, w) {
			v, inGot := g[k]
			gv, inWant := w[k]
			switch {
			case !inGot:
				t.Errorf("drop %s %s is in the golden file but not in the output", key, k)
				continue
			case !inWant:
				t.Errorf("drop %s %s = %+v is not in the golden file", key, k, v)
				continue
			}
			// Every field, the t-test's p-value too (computed with
			// exactly rounded operations only: metrics/studentt.go),
			// has the same bits natively and in wasm.
			if v != gv {
				t.Errorf("drop %s %s = %+v, golden %+v", key, k, v, gv)
			}
		}
	}
}

// unionKeys returns the keys of a and b, sorted.
func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// TestCompareGoldenMissesNothing: compareGolden fails when a measure, a
// run or a comparison the golden file holds is missing from the output,
// and when one is added.
func TestCompareGoldenMissesNothing(t *testing.T) {
	base := func() golden {
		return golden{
			Runs:  map[string]map[string]float64{"clean": {"st:ndcg@10": 0.5, "trec:map": 0.25}, "r0.1": {"st:ndcg@10": 0.4}},
			Drops: map[string]map[string]results.Comparison{"m@0.1": {"ndcg@10": {MeanA: 0.5, MeanB: 0.4, N: 3}, "map@100": {N: 3}}},
		}
	}
	tests := []struct {
		name   string
		change func(*golden)
		fails  bool
	}{
		{"equal", func(*golden) {}, false},
		{"measure vanished", func(g *golden) { delete(g.Runs["clean"], "trec:map") }, true},
		{"measure added", func(g *golden) { g.Runs["clean"]["trec:P_10"] = 0.1 }, true},
		{"run vanished", func(g *golden) { delete(g.Runs, "r0.1") }, true},
		{"comparison vanished", func(g *golden) { delete(g.Drops["m@0.1"], "map@100") }, true},
		{"rate summary vanished", func(g *golden) { delete(g.Drops, "m@0.1") }, true},
		{"value changed", func(g *golden) { g.Runs["r0.1"]["st:ndcg@10"] = 0.41 }, true},
	}
	for _, tt := range tests {
		got := base()
		tt.change(&got)
		rec := &recorder{TB: t}
		compareGolden(rec, got, base())
		if rec.failed != tt.fails {
			t.Errorf("%s: compareGolden failed = %v, want %v", tt.name, rec.failed, tt.fails)
		}
	}
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
