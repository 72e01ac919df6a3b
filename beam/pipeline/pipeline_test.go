package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"

	"github.com/dreval/dreval/beam/launch"

	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/sharedtest"
	"github.com/dreval/dreval/spec"
)

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

// runPrism runs job's pipeline on prism, in this process, as
// dreval-beam does (launch.Run), and returns the progress it reported:
// the counters polled while the job ran, then the final ones.
func runPrism(t *testing.T, job Job) []Progress {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	if err := Build(s, job); err != nil {
		t.Fatal(err)
	}
	var reports []Progress
	if _, err := launch.Run(context.Background(), p, 200*time.Millisecond, func(m metrics.Results) {
		reports = append(reports, ProgressOf(m))
	}); err != nil {
		t.Fatalf("the pipeline on prism: %v", err)
	}
	return reports
}

// checkProgress checks the progress a run of docs documents in shards
// shards reported: counts that never fall, documents encoded batch by
// batch (some report between none and all), and final counts that are
// the whole corpus and every shard.
func checkProgress(t *testing.T, reports []Progress, docs, shards int) {
	t.Helper()
	if len(reports) < 2 {
		t.Fatalf("%d progress reports: want some while the job runs and the final one", len(reports))
	}
	partial := false
	for i, p := range reports {
		if p.DocsEncoded > 0 && p.DocsEncoded < int64(docs) && p.DocsTotal == int64(docs) {
			partial = true
		}
		if i > 0 {
			q := reports[i-1]
			if p.DocsEncoded < q.DocsEncoded || p.ShardsSearched < q.ShardsSearched || p.DocsTotal < q.DocsTotal {
				t.Errorf("progress went back: report %d %+v, then %+v", i, q, p)
			}
		}
	}
	if !partial {
		t.Errorf("no report between none and all %d documents: %+v", docs, reports)
	}
	last := reports[len(reports)-1]
	if last.DocsTotal != int64(docs) || last.DocsEncoded != int64(docs) || last.ShardsTotal != int64(shards) || last.ShardsSearched != int64(shards) || last.QueriesEncoded != last.QueriesTotal || last.QueriesTotal == 0 {
		t.Errorf("final progress %+v: want %d documents of %d encoded, %d shards of %d searched, every query sequence encoded", last, docs, docs, shards, shards)
	}
	t.Logf("%d progress reports; final %+v", len(reports), last)
}

// buildCLI builds the main module's dreval command into dir.
func buildCLI(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "dreval")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/dreval")
	cmd.Dir = sharedtest.Root() // the main module (internal/sharedtest's)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building dreval: %v\n%s", err, out)
	}
	return bin
}

// trecLine is one line of a TREC run.
type trecLine struct {
	qid, doc string
	rank     int
	score    float64
}

func readRun(t *testing.T, path string) []trecLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []trecLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 6 {
			t.Fatalf("%s: line %q is not a TREC run line", path, sc.Text())
		}
		r, err1 := strconv.Atoi(f[3])
		s, err2 := strconv.ParseFloat(f[4], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: line %q", path, sc.Text())
		}
		out = append(out, trecLine{f[0], f[2], r, s})
	}
	return out
}

// sameRuns checks the must-show: the same documents in the same
// order for every query, scores within 1e-6; it also reports whether the
// files are byte-identical.
func sameRuns(t *testing.T, cliDir, beamDir string, runs []string) {
	t.Helper()
	for _, run := range runs {
		a := readRun(t, filepath.Join(cliDir, "runs", run))
		b := readRun(t, filepath.Join(beamDir, "runs", run))
		if len(a) == 0 || len(a) != len(b) {
			t.Errorf("%s: dreval eval wrote %d lines, the pipeline %d", run, len(a), len(b))
			continue
		}
		worst := 0.0
		for i := range a {
			if a[i].qid != b[i].qid || a[i].doc != b[i].doc || a[i].rank != b[i].rank {
				t.Errorf("%s line %d: dreval eval has %+v, the pipeline %+v", run, i+1, a[i], b[i])
				break
			}
			worst = max(worst, math.Abs(a[i].score-b[i].score))
		}
		if worst > 1e-6 {
			t.Errorf("%s: scores differ by up to %g", run, worst)
		}
		x, _ := os.ReadFile(filepath.Join(cliDir, "runs", run))
		y, _ := os.ReadFile(filepath.Join(beamDir, "runs", run))
		t.Logf("%s: %d lines, same documents and order, worst score difference %g, byte-identical %v", run, len(a), worst, bytes.Equal(x, y))
	}
}

// TestPipelineEqualsEval is the must-show: the pipeline on prism
// writes the TREC runs "dreval eval" writes (the clean run and the 20%
// idshift run of seed 1) on Cranfield with the static model, and on a
// 200-document slice of Cranfield with MiniLM; "dreval eval
// -corpus-embeddings" reads the pipeline's shards and gives the same runs.
// The static job runs the spec eval's results.json records (dreval-beam
// -spec), the minilm one a spec made of dreval-beam's flags; both
// pipelines record in results.json the spec eval recorded, -data as
// given, so that either runs again with the other.
func TestPipelineEqualsEval(t *testing.T) {
	models := sharedtest.ModelsDir()
	cranfield := sharedtest.Path(t, "data/cranfield")
	tmp := t.TempDir()
	cli := buildCLI(t, tmp)
	slice := filepath.Join(tmp, "cranfield-200")
	writeSlice(t, cranfield, slice, 200)
	runs := []string{"%s__clean.trec", "%s__rate0.2__seed1.trec"}
	for _, tc := range []struct {
		model, data string
		shards      int
	}{
		{"static", cranfield, 0},
		{"minilm", slice, 3},
	} {
		t.Run(tc.model, func(t *testing.T) {
			sharedtest.ModelDir(t, tc.model)
			cliOut, beamOut := filepath.Join(tmp, tc.model+"-cli"), filepath.Join(tmp, tc.model+"-beam")
			cmd := exec.Command(cli, "eval", "-quiet", "-data", tc.data, "-models", tc.model, "-models-dir", models,
				"-rates", "0,0.2", "-seeds", "1", "-no-cache", "-out", cliOut)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("dreval eval: %v\n%s", err, out)
			}
			job := Job{ModelsDir: models, OrtLibrary: ortLib(), Out: beamOut, Shards: tc.shards}
			if tc.model == "static" {
				sp, err := spec.ReadFile(filepath.Join(cliOut, "results.json"))
				if err != nil {
					t.Fatal(err)
				}
				job.Experiment = *sp
			} else {
				job.Experiment = spec.Spec{Data: []string{tc.data}, Split: "test", Models: []string{tc.model}, Engine: "auto",
					Perturbation: spec.Perturbation{Mode: "idshift"}, Rates: []float64{0, 0.2}, Seeds: 1, K: 100, Resamples: experiment.DefaultResamples}
			}
			reports := runPrism(t, job)
			if tc.model == "minilm" { // tens of seconds of encoding: the polls see it under way
				checkProgress(t, reports, 200, tc.shards)
			}
			names := []string{fmt.Sprintf(runs[0], tc.model), fmt.Sprintf(runs[1], tc.model)}
			sameRuns(t, cliOut, beamOut, names)
			for _, f := range []string{"results.json", "tables.md", "report.html", "ndcg_vs_rate.svg"} {
				if _, err := os.Stat(filepath.Join(beamOut, f)); err != nil {
					t.Errorf("the pipeline wrote no %s: %v", f, err)
				}
			}
			sameMeasures(t, filepath.Join(cliOut, "results.json"), filepath.Join(beamOut, "results.json"))
			sameSpec(t, filepath.Join(cliOut, "results.json"), filepath.Join(beamOut, "results.json"))

			// The pipeline's shards are "dreval encode -shard" shards.
			evalOut := filepath.Join(tmp, tc.model+"-from-shards")
			cmd = exec.Command(cli, "eval", "-quiet", "-data", tc.data, "-models", tc.model, "-models-dir", models,
				"-rates", "0,0.2", "-seeds", "1", "-no-cache", "-corpus-embeddings", filepath.Join(beamOut, "embeddings"), "-out", evalOut)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("dreval eval -corpus-embeddings: %v\n%s", err, out)
			}
			sameRuns(t, cliOut, evalOut, names)
		})
	}
}

// sameMeasures checks that the clean run's measures of both results
// agree (every convention's means).
func sameMeasures(t *testing.T, a, b string) {
	t.Helper()
	read := func(p string) map[string]any {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	get := func(v map[string]any) any {
		ds := v["datasets"].([]any)[0].(map[string]any)
		m := ds["models"].([]any)[0].(map[string]any)
		clean := m["clean"].(map[string]any)
		return clean["means"]
	}
	x, y := get(read(a)), get(read(b))
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	if !bytes.Equal(xs, ys) {
		t.Errorf("the clean run's summaries differ:\ndreval eval %s\npipeline    %s", xs, ys)
	}
}

// sameSpec checks that both results.json record the same spec.
func sameSpec(t *testing.T, a, b string) {
	t.Helper()
	x, err := spec.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := spec.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(x, y) {
		xs, _ := x.JSON()
		ys, _ := y.JSON()
		t.Errorf("the recorded specs differ:\ndreval eval %s\npipeline    %s", xs, ys)
	}
}

// writeSlice writes the first n documents of the BEIR folder src into
// dst, with the queries judged on them and their judgments.
func writeSlice(t *testing.T, src, dst string, n int) {
	t.Helper()
	os.MkdirAll(filepath.Join(dst, "qrels"), 0o755)
	corpus, err := os.ReadFile(filepath.Join(src, "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(corpus), "\n")
	keep := map[string]bool{}
	for _, l := range lines[:n] {
		var d struct {
			ID string `json:"_id"`
		}
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		keep[d.ID] = true
	}
	os.WriteFile(filepath.Join(dst, "corpus.jsonl"), []byte(strings.Join(lines[:n], "")), 0o644)
	qrels, err := os.ReadFile(filepath.Join(src, "qrels", "test.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	judged := map[string]bool{}
	for i, l := range strings.Split(strings.TrimSpace(string(qrels)), "\n") {
		f := strings.Split(l, "\t")
		if i == 0 || (len(f) >= 3 && keep[f[1]]) {
			out = append(out, l)
			if i > 0 {
				judged[f[0]] = true
			}
		}
	}
	os.WriteFile(filepath.Join(dst, "qrels", "test.tsv"), []byte(strings.Join(out, "\n")+"\n"), 0o644)
	queries, err := os.ReadFile(filepath.Join(src, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	for _, l := range strings.SplitAfter(string(queries), "\n") {
		var q struct {
			ID string `json:"_id"`
		}
		if json.Unmarshal([]byte(l), &q) == nil && judged[q.ID] {
			qs = append(qs, l)
		}
	}
	os.WriteFile(filepath.Join(dst, "queries.jsonl"), []byte(strings.Join(qs, "")), 0o644)
}

func ortLib() string {
	if p := os.Getenv("DREVAL_ORT_LIB"); p != "" {
		return p
	}
	c, _ := os.UserCacheDir()
	return ort.DefaultLibPath(c)
}
