package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/experiment/experimenttest"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/metrics"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/results"
)

// withFakeModels makes eval open the fake models of experimenttest
// (over the demo collection's words) for the duration of t.
func withFakeModels(t *testing.T) {
	t.Helper()
	c, err := dataset.Demo("test")
	if err != nil {
		t.Fatal(err)
	}
	tok := experimenttest.ForCollection(c)
	saved := evalRegistry
	evalRegistry = func() *experiment.Registry {
		r, _ := experimenttest.Registry(tok)
		return r
	}
	t.Cleanup(func() { evalRegistry = saved })
}

// readResults reads results.json from dir.
func readResults(t *testing.T, dir string) *results.Results {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res results.Results
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return &res
}

// checkRunFilesMatch scores every run file of an eval output with
// "dreval metrics -c" under st and trec and compares the numbers, mean and
// per query, with results.json: they must be equal, not close.
func checkRunFilesMatch(t *testing.T, dir string) {
	t.Helper()
	res := readResults(t, dir)
	runs := 0
	for _, ds := range res.Datasets {
		qrels := filepath.Join(dir, "qrels", ds.Name+".qrels")
		for _, m := range ds.Models {
			for _, rr := range append([]*results.RunResult{m.Clean}, m.Perturbed...) {
				runs++
				file := report.RunFile(res, ds, rr)
				for _, cm := range res.Conventions {
					conv := struct {
						name     string
						measures []string
						want     map[string]float64
					}{cm.Convention.String(), cm.Names, rr.Means[cm.Convention]}
					code, out, errOut := runCLI(t, "", "metrics", "-c", "-q", "-format", "json", "-convention", conv.name,
						"-m", strings.Join(conv.measures, ","),
						"-qrels", qrels, "-run", filepath.Join(dir, filepath.FromSlash(file)))
					if code != 0 {
						t.Fatalf("metrics on %s exited %d: %s", file, code, errOut)
					}
					var got struct {
						All      map[string]float64            `json:"all"`
						PerQuery map[string]map[string]float64 `json:"per_query"`
					}
					if err := json.Unmarshal([]byte(out), &got); err != nil {
						t.Fatal(err)
					}
					for _, name := range conv.measures {
						if got.All[name] != conv.want[name] {
							t.Errorf("%s %s %s: dreval metrics says %v, results.json %v", file, conv.name, name, got.All[name], conv.want[name])
						}
						for qid, vals := range got.PerQuery {
							if v, _ := rr.Value(cm.Convention, name, qid); vals[name] != v {
								t.Errorf("%s %s query %s %s: dreval metrics says %v, results.json %v", file, conv.name, qid, name, vals[name], v)
							}
						}
					}
				}
			}
		}
	}
	if runs == 0 {
		t.Fatal("no runs in results.json")
	}
}

func TestEvalFakeModelsOnDemo(t *testing.T) {
	withFakeModels(t)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "", "eval", "-models", "fake,fakebm25", "-rates", "0,0.2", "-seeds", "2",
		"-resamples", "200", "-no-cache", "-out", dir)
	if code != 0 {
		t.Fatalf("eval exited %d: %s", code, errOut)
	}
	for _, want := range []string{"| Model | Run | Acc@1 | Prec@1 | Rec@1 | NDCG@10 | MRR@10 | MAP@100 |", "| fake | clean |", "| fakebm25 | perturbed 20% |"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"encode corpus demo/fake", "encode queries demo/fake", "search demo/fakebm25", "wrote "} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks progress %q:\n%s", want, errOut)
		}
	}
	for _, f := range []string{"report.html", "examples.md", "ndcg_vs_rate.svg", "tables.md", "tables.tex", "runs/fake__clean.trec", "runs/fakebm25__rate0.2__seed2.trec"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing output %s", f)
		}
	}
	checkRunFilesMatch(t, dir)
}

func TestEvalQuiet(t *testing.T) {
	withFakeModels(t)
	code, _, errOut := runCLI(t, "", "eval", "-models", "fake", "-rates", "0,0.1", "-seeds", "1", "-resamples", "10", "-no-cache", "-quiet", "-out", t.TempDir())
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, errOut)
	}
}

func TestEvalBadFlags(t *testing.T) {
	withFakeModels(t)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-rates", "0,2"}, 2, "outside [0, 1]"},
		{[]string{"-rates", "x"}, 2, `"x" is not a number`},
		{[]string{"-seeds", "0"}, 2, "-seeds 0"},
		{[]string{"-k", "0"}, 2, "-k 0"},
		{[]string{"-perturb", "nope"}, 2, "unknown perturbation mode"},
		{[]string{"-oov", "nope"}, 2, "out-of-vocabulary policy"},
		{[]string{"-engine", "gpu"}, 2, "engine"},
		{[]string{"-models", "nosuch"}, 1, `unknown model "nosuch"`},
		{[]string{"-data", "/no/such/dir"}, 1, "/no/such/dir"},
		{[]string{"extra"}, 2, "unexpected argument"},
	}
	for _, tt := range tests {
		args := append([]string{"eval", "-models", "fake", "-no-cache", "-quiet", "-out", t.TempDir()}, tt.args...)
		code, _, errOut := runCLI(t, "", args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("eval %q: exit %d %q; want %d and %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}
}

// TestEvalMiniLM runs the real models (minilm, bm25, and static when it
// has been distilled) on the demo when minilm is installed, checks the run files against "dreval metrics", that
// a second run reads the corpus vectors from the cache, and that a
// tampered tokenizer meeting those vectors is refused.
func TestEvalMiniLM(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes the demo corpus with MiniLM")
	}
	modelDir := sharedtest.ModelDir(t, "minilm")
	cache := t.TempDir()
	dir := t.TempDir()
	models := "minilm,bm25"
	if _, err := os.Stat(filepath.Join(filepath.Dir(modelDir), "static", "config.json")); err == nil {
		models = "minilm,static,bm25" // "dreval model distill" has been run
	}
	args := []string{"eval", "-models", models, "-models-dir", filepath.Dir(modelDir), "-rates", "0,0.2", "-seeds", "1",
		"-resamples", "200", "-cache", cache, "-out", dir}
	code, _, errOut := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("eval exited %d: %s", code, errOut)
	}
	checkRunFilesMatch(t, dir)
	res := readResults(t, dir)
	m := res.Datasets[0].Models[0]
	if m.CorpusCache != "stored" || m.Dim != 384 {
		t.Errorf("first run: cache %q dim %d", m.CorpusCache, m.Dim)
	}
	if ndcg := m.Clean.Means[st]["ndcg@10"]; ndcg < 0.8 {
		t.Errorf("minilm clean NDCG@10 on the demo = %v; want the demo answered well (> 0.8)", ndcg)
	}
	dir2 := t.TempDir()
	args[len(args)-1] = dir2
	if code, _, errOut := runCLI(t, "", args...); code != 0 {
		t.Fatalf("second eval exited %d: %s", code, errOut)
	}
	res2 := readResults(t, dir2)
	if s := res2.Datasets[0].Models[0].CorpusCache; s != "hit" {
		t.Errorf("second run: corpus cache %q, want hit", s)
	}
	if a, b := m.Clean.Means[st], res2.Datasets[0].Models[0].Clean.Means[st]; a["ndcg@10"] != b["ndcg@10"] {
		t.Errorf("cached run NDCG@10 %v, first run %v", b["ndcg@10"], a["ndcg@10"])
	}
	checkRefusesPoisonedTokenizer(t, modelDir, cache)
}

func FuzzEvalParseRates(f *testing.F) {
	for _, s := range []string{"0,0.05,0.1,0.2", "1", "", ",,", "0.5,NaN", "-0", "1e-3, 0.2 ", "Inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rates, err := evalParseRates(s)
		if err != nil {
			return
		}
		if len(rates) == 0 {
			t.Fatalf("%q: no rates and no error", s)
		}
		for _, r := range rates {
			if !(r >= 0 && r <= 1) {
				t.Fatalf("%q: accepted rate %v outside [0, 1]", s, r)
			}
		}
	})
}

// checkRefusesPoisonedTokenizer runs eval with a copy of the minilm model
// whose tokenizer.json has two vocabulary entries swapped, against a cache
// holding the demo corpus encoded by the clean model: the cached vectors
// carry the clean tokenizer's fingerprint, so eval must refuse instead of
// scoring queries from the tampered tokenizer against them.
func checkRefusesPoisonedTokenizer(t *testing.T, modelDir, cache string) {
	t.Helper()
	args := []string{"eval", "-models", "", "-rates", "0", "-seeds", "1",
		"-resamples", "10", "-cache", cache, "-quiet", "-out", t.TempDir()}
	// A copy of the model directory with a tampered tokenizer.
	bad := filepath.Join(t.TempDir(), "minilm")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	// Everything but the tokenizer is the installed model's (model.onnx
	// too, when exported, so the engine and the fingerprint stay the same).
	entries, err := os.ReadDir(modelDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "tokenizer.json" {
			continue
		}
		if err := os.Symlink(filepath.Join(modelDir, e.Name()), filepath.Join(bad, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	tok, err := tokenizer.Load(filepath.Join(modelDir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tok.ID("burger")
	b, _ := tok.ID("python")
	swapped, err := tok.WithSwappedTokens([][2]int32{{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(bad, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := swapped.Save(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	args[2] = bad
	code, _, errOut := runCLI(t, "", args...)
	if code != 1 || !strings.Contains(errOut, "tampered (poisoned) tokenizer") {
		t.Fatalf("eval with a tampered tokenizer exited %d: %s; want a refusal naming the tampered tokenizer", code, errOut)
	}
}

func TestEvalDefaultModels(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"minilm/config.json", "minilm/tokenizer.json", "static/tokenizer.json"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, missing := evalInstalled(evalSplitList(evalDefaultModels), dir)
	if strings.Join(got, ",") != "minilm,bm25" || strings.Join(missing, ",") != "static" {
		t.Errorf("installed %q missing %q; want minilm,bm25 and static", got, missing)
	}
	code, _, errOut := runCLI(t, "", "eval", "-models-dir", t.TempDir(), "-quiet", "-out", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "none of the default models") {
		t.Errorf("no model installed: exit %d, %q", code, errOut)
	}
}

// The conventions' short names in the tests.
const (
	st       = metrics.ConventionST
	trec     = metrics.ConventionTREC
	dureader = metrics.ConventionDuReader
)
