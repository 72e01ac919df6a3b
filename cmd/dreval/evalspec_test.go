package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/spec"
)

// runMeans returns every run's means of res by dataset, model and run
// name, and every comparison with clean.
func runMeans(res *results.Results) (map[string]map[string]map[string]float64, map[string]any) {
	means := map[string]map[string]map[string]float64{}
	drops := map[string]any{}
	for _, ds := range res.Datasets {
		for _, m := range ds.Models {
			for _, rr := range append([]*results.RunResult{m.Clean}, m.Perturbed...) {
				key := ds.Name + "/" + m.Model + "/" + rr.Name
				means[key] = map[string]map[string]float64{}
				for c, v := range rr.Means {
					means[key][c.String()] = v
				}
			}
			for _, rs := range m.Rates {
				drops[ds.Name+"/"+m.Model+"/"+results.FormatRate(rs.Rate)] = rs.Drop
			}
		}
	}
	return means, drops
}

// TestEvalSpecRerun runs an experiment from flags, then again from its
// results.json with -spec into another folder: the second records the
// same spec and gives the same numbers, every run and every test.
func TestEvalSpecRerun(t *testing.T) {
	withFakeModels(t)
	first, second := t.TempDir(), t.TempDir()
	code, _, errOut := runCLI(t, "", "eval", "-models", "fake,fakebm25", "-rates", "0,0.1,0.2", "-seeds", "2",
		"-perturb", "idrandom", "-k", "50", "-resamples", "300", "-no-cache", "-quiet", "-out", first)
	if code != 0 {
		t.Fatalf("eval exited %d: %s", code, errOut)
	}
	a := readResults(t, first)
	if a.Spec == nil {
		t.Fatal("results.json records no spec")
	}
	want := spec.Spec{Data: []string{"demo"}, Models: []string{"fake", "fakebm25"}, Rates: []float64{0, 0.1, 0.2}, Seeds: 2, K: 50, Resamples: 300}
	if s := a.Spec; !reflect.DeepEqual(s.Data, want.Data) || !reflect.DeepEqual(s.Models, want.Models) || !reflect.DeepEqual(s.Rates, want.Rates) ||
		s.Seeds != want.Seeds || s.K != want.K || s.Resamples != want.Resamples || s.Perturbation.Mode != "idrandom" {
		t.Errorf("recorded spec %+v does not say what the flags asked", *s)
	}
	code, _, errOut = runCLI(t, "", "eval", "-spec", filepath.Join(first, "results.json"), "-no-cache", "-quiet", "-out", second)
	if code != 0 {
		t.Fatalf("eval -spec exited %d: %s", code, errOut)
	}
	b := readResults(t, second)
	if !reflect.DeepEqual(a.Spec, b.Spec) {
		t.Errorf("the rerun's spec %+v differs from the first's %+v", *b.Spec, *a.Spec)
	}
	am, ad := runMeans(a)
	bm, bd := runMeans(b)
	if len(am) != 2*(1+2*2) {
		t.Fatalf("%d runs, want 10", len(am))
	}
	if !reflect.DeepEqual(am, bm) {
		t.Errorf("the rerun's means differ:\n%v\n%v", am, bm)
	}
	if !reflect.DeepEqual(ad, bd) {
		t.Errorf("the rerun's paired tests differ")
	}
	// A spec file written by hand runs too.
	specFile := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(specFile, []byte(`{"data": ["demo"], "models": ["fake"], "rates": [0, 0.2], "seeds": 1, "k": 10, "resamples": 100}`), 0o644); err != nil {
		t.Fatal(err)
	}
	third := t.TempDir()
	if code, _, errOut := runCLI(t, "", "eval", "-spec", specFile, "-no-cache", "-quiet", "-out", third); code != 0 {
		t.Fatalf("eval -spec %s exited %d: %s", specFile, code, errOut)
	}
	if c := readResults(t, third); c.Spec.Perturbation.Mode != "idshift" || c.Spec.Seeds != 1 || len(c.Datasets[0].Models[0].Perturbed) != 1 {
		t.Errorf("hand-written spec ran as %+v", *c.Spec)
	}
}

// TestEvalSpecErrors checks that -spec refuses flags that would change
// the experiment and bad spec files, naming the file and the field.
func TestEvalSpecErrors(t *testing.T) {
	withFakeModels(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"data": ["demo"], "models": ["fake"], "rates": [0], "seeds": 1, "k": 10}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-spec", good, "-rates", "0,0.1"}, "-rates would change it"},
		{[]string{"-spec", filepath.Join(dir, "absent.json")}, "absent.json: no such file"},
		{[]string{"-spec", write("typo.json", `{"data": ["demo"], "modles": ["fake"]}`)}, `typo.json: json: unknown field "modles"`},
		{[]string{"-spec", write("norate.json", `{"data": ["demo"], "models": ["fake"], "rates": []}`)}, `norate.json: "rates": no rate`},
		{[]string{"-spec", write("mode.json", `{"data": ["demo"], "models": ["fake"], "rates": [0], "perturbation": {"mode": "shout"}}`)}, `mode.json: "perturbation.mode"`},
		{[]string{"-spec", write("old.json", `{"version": "x", "datasets": []}`)}, `old.json: a results.json without a "spec"`},
	} {
		code, _, errOut := runCLI(t, "", append([]string{"eval"}, append(c.args, "-no-cache", "-quiet", "-out", t.TempDir())...)...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("eval %v: exit %d, stderr %q; want an error containing %q", c.args, code, errOut, c.want)
		}
	}
}
