package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dreval/dreval/beam/pipeline"
	"github.com/dreval/dreval/internal/progress"
	"github.com/dreval/dreval/spec"
)

// TestProgressView: the counters polled from a job become progress lines
// with the count, the rate and the time left; a finished step's line is
// drawn once however often the final counters come.
func TestProgressView(t *testing.T) {
	var out bytes.Buffer
	bar := progress.New(&out)
	bar.Interval = 0
	now := time.Unix(0, 0)
	bar.Now = func() time.Time { return now }
	v := &progressView{bar: bar, model: "minilm"}
	for _, p := range []pipeline.Progress{
		{}, // nothing read yet
		{DocsTotal: 1400, ShardsTotal: 8},
		{DocsTotal: 1400, DocsEncoded: 350, ShardsTotal: 8},
		{DocsTotal: 1400, DocsEncoded: 700, ShardsTotal: 8, ShardsSearched: 3},
		{DocsTotal: 1400, DocsEncoded: 1400, ShardsTotal: 8, ShardsSearched: 6},
		{DocsTotal: 1400, DocsEncoded: 1400, ShardsTotal: 8, ShardsSearched: 8},
		{DocsTotal: 1400, DocsEncoded: 1400, ShardsTotal: 8, ShardsSearched: 8}, // the final metrics again
	} {
		v.show(p)
		now = now.Add(10 * time.Second)
	}
	bar.Done()
	got := out.String()
	for _, want := range []string{
		"encode corpus minilm [", "0/1400 docs",
		"350/1400 docs  35.0 docs/s  ETA 30s",
		"700/1400 docs  35.0 docs/s  ETA 20s",
		"1400/1400 docs  46.7 docs/s  in 30s",
		"search shards [", "6/8 shards", "8/8 shards",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("progress lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "8/8 shards"); n != 1 {
		t.Errorf("the finished search line is drawn %d times:\n%s", n, got)
	}
	if n := strings.Count(got, "1400/1400 docs"); n != 1 {
		t.Errorf("the finished encoding line is drawn %d times:\n%s", n, got)
	}
}

// parseJob parses args as dreval-beam's flags and returns the job.
func parseJob(t *testing.T, args ...string) (pipeline.Job, error) {
	t.Helper()
	fs := flag.NewFlagSet("dreval-beam", flag.ContinueOnError)
	c := defineFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return c.makeJob(fs)
}

// TestSpecFlag: the flags fill a spec; -spec FILE (a spec or a
// results.json) gives the whole experiment, refusing the flags that
// describe it and keeping the job's; bad spec files are refused, naming
// the file and the field.
func TestSpecFlag(t *testing.T) {
	// Every flag is either a spec's or the job's.
	fs := flag.NewFlagSet("dreval-beam", flag.ContinueOnError)
	defineFlags(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if describingFlags[f.Name] == machineFlags[f.Name] {
			t.Errorf("-%s is in neither or both of describingFlags and machineFlags", f.Name)
		}
	})

	job, err := parseJob(t, "-data", "beir/nq", "-model", "static", "-rates", "0,0.2", "-seeds", "1", "-out", "o", "-shards", "3")
	if err != nil {
		t.Fatal(err)
	}
	want := spec.Spec{Data: []string{"beir/nq"}, Split: "test", Models: []string{"static"}, Engine: "auto",
		Perturbation: spec.Perturbation{Mode: "idshift"}, Rates: []float64{0, 0.2}, Seeds: 1, K: 100, Resamples: 10000}
	if !reflect.DeepEqual(job.Experiment, want) || job.Out != "o" || job.Shards != 3 {
		t.Errorf("flags gave %+v, want the experiment %+v", job, want)
	}

	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"data": ["beir/nq"], "models": ["minilm"], "rates": [0, 0.1], "seeds": 2, "k": 10, "query_prompt": ""}`)
	job, err = parseJob(t, "-spec", good, "-out", "o", "-threads", "2", "-models-dir", "/m")
	if err != nil {
		t.Fatal(err)
	}
	if e := job.Experiment; len(e.Models) != 1 || e.Models[0] != "minilm" || e.Seeds != 2 || e.QueryPrompt == nil || job.Threads != 2 || job.ModelsDir != "/m" {
		t.Errorf("-spec gave %+v", job)
	}
	results := write("results.json", `{"dreval_version": "x", "datasets": [], "spec": {"data": ["beir/nq"], "models": ["static"], "rates": [0]}}`)
	if job, err = parseJob(t, "-spec", results, "-out", "o"); err != nil || job.Experiment.Models[0] != "static" {
		t.Errorf("-spec results.json: %+v, %v", job, err)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-spec", good, "-rates", "0,0.1", "-model", "static"}, "describes the whole experiment: -model, -rates would change it"},
		{[]string{"-spec", good}, "-out is required"},
		{[]string{"-spec", filepath.Join(dir, "absent.json")}, "absent.json: no such file"},
		{[]string{"-spec", write("typo.json", `{"data": ["d"], "modles": ["static"]}`)}, `typo.json: json: unknown field "modles"`},
		{[]string{"-spec", write("two.json", `{"data": ["d"], "models": ["static", "minilm"], "rates": [0]}`), "-out", "o"}, `two.json: "models": 2 models (static, minilm): the pipeline runs one dense model`},
		{[]string{"-spec", write("dpr.json", `{"data": ["d"], "models": ["static"], "rates": [0], "task": "dpr"}`), "-out", "o"}, `dpr.json: "task": "dpr"`},
		{[]string{"-spec", write("demo.json", `{"data": ["demo"], "models": ["static"], "rates": [0]}`), "-out", "o"}, `demo.json: "data" (-data): "demo"`},
		{[]string{"-model", "static", "-out", "o"}, `"data" (-data): no dataset`},
		{[]string{"-data", "d", "-model", "static", "-seeds", "0", "-out", "o"}, "-seeds 0: want at least 1"},
		{[]string{"-data", "d", "-model", "static", "-rates", "0,2", "-out", "o"}, `-rates: "2" is not a rate`},
	} {
		if _, err := parseJob(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("dreval-beam %v: %v; want an error containing %q", c.args, err, c.want)
		}
	}
}
