package experiment_test

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
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
	if len(w.Runs) != len(got.Runs) || len(w.Drops) != len(got.Drops) {
		t.Fatalf("%d runs and %d rate summaries, golden %d and %d", len(got.Runs), len(got.Drops), len(w.Runs), len(w.Drops))
	}
	for name, vals := range got.Runs {
		for k, v := range vals {
			if w.Runs[name][k] != v {
				t.Errorf("%s %s = %v, golden %v", name, k, v, w.Runs[name][k])
			}
		}
	}
	for key, ms := range got.Drops {
		for k, v := range ms {
			g := w.Drops[key][k]
			// The t-test p-value goes through math.Exp and friends,
			// which have assembly on amd64 and not in wasm: the last
			// bits may differ. Everything else must be equal.
			if rel := math.Abs(float64(v.PTTest-g.PTTest)) / math.Abs(float64(g.PTTest)); rel < 1e-12 {
				v.PTTest = g.PTTest
			}
			if v != g {
				t.Errorf("drop %s %s = %+v, golden %+v", key, k, v, g)
			}
		}
	}
}
