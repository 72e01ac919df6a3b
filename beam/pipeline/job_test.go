package pipeline

import (
	"reflect"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/util/jsonx"

	"github.com/dreval/dreval/spec"
)

// TestValidate: Validate refuses what the pipeline cannot run (several
// datasets or models, bm25, the built-in demo, tasks other than ir, DPR
// passages), a bad spec and bad job flags, naming the spec's field or
// the flag.
func TestValidate(t *testing.T) {
	ok := Job{Experiment: spec.Spec{Data: []string{"d"}, Models: []string{"static"}, Rates: []float64{0, 0.2}, Seeds: 1, K: 10}, Out: "o"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("a good job: %v", err)
	}
	remote := ok
	remote.Experiment.Data = []string{"gs://bucket/beir/nq"}
	if err := remote.Validate(); err != nil {
		t.Fatalf("a job on remote data: %v", err)
	}
	for _, tc := range []struct {
		edit func(*Job)
		want string
	}{
		{func(j *Job) { j.Experiment.Data = nil }, `"data" (-data): no dataset`},
		{func(j *Job) { j.Experiment.Data = []string{"a", "b"} }, `"data": 2 datasets (a, b): the pipeline runs one`},
		{func(j *Job) { j.Experiment.Data = []string{"demo"} }, `"data" (-data): "demo" is dreval eval's built-in collection`},
		{func(j *Job) { j.Experiment.Models = nil }, `"models" (-model): no model`},
		{func(j *Job) { j.Experiment.Models = []string{"static", "minilm"} }, `"models": 2 models (static, minilm): the pipeline runs one dense model`},
		{func(j *Job) { j.Experiment.Models = []string{"bm25"} }, `"models" (-model): bm25: the pipeline runs dense models`},
		{func(j *Job) { j.Experiment.Task = "dpr" }, `"task": "dpr": the pipeline runs task ir`},
		{func(j *Job) { j.Experiment.Task = "dureader" }, `"task": "dureader"`},
		{func(j *Job) { j.Experiment.PassageText = true }, `"passage_text": true`},
		{func(j *Job) { j.Experiment.AnswerModes = []string{"string"} }, `"answer_modes": string`},
		{func(j *Job) { j.Experiment.Rates = nil }, `"rates": no rate`},
		{func(j *Job) { j.Experiment.Rates = []float64{0, 1.5} }, `"rates"[1]: 1.5 is outside [0, 1]`},
		{func(j *Job) { j.Experiment.Perturbation.Mode = "nonsense" }, `"perturbation.mode"`},
		{func(j *Job) { j.Experiment.Perturbation.OOV = "skip" }, `"perturbation.oov"`},
		{func(j *Job) { j.Experiment.Engine = "gpu" }, `"engine"`},
		{func(j *Job) { j.Experiment.Score = "l2" }, `"score"`},
		{func(j *Job) { j.Out = "" }, "-out is required"},
		{func(j *Job) { j.Shards = -1 }, "-shards -1"},
		{func(j *Job) { j.Threads = -2 }, "-threads -2"},
		{func(j *Job) { j.Encoders = -1 }, "-encoders -1"},
	} {
		j := ok
		tc.edit(&j)
		if err := j.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v; want an error with %q", j, err, tc.want)
		}
	}
}

// TestJobTravels: a Job survives the JSON Beam serialises DoFns with,
// the spec's pointer fields (an empty prompt is not an absent one)
// included.
func TestJobTravels(t *testing.T) {
	empty, q := "", "query: "
	job := Job{Experiment: spec.Spec{Data: []string{"gs://b/beir/nq"}, Models: []string{"e5"}, Rates: []float64{0, 0.1},
		Seeds: 2, K: 10, Score: "dot", QueryPrompt: &q, DocumentPrompt: &empty,
		Perturbation: spec.Perturbation{Mode: "vocabswap", ProtectSpecial: true, Pairs: 3}}, Out: "gs://b/out", Shards: 8, Threads: 2, Version: "v"}
	b, err := jsonx.Marshal(&shardFn{Job: job})
	if err != nil {
		t.Fatal(err)
	}
	var got shardFn
	if err := jsonx.Unmarshal(&got, b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Job, job) {
		t.Errorf("the job came back as %+v from %s", got.Job, b)
	}
}

func TestShardsFor(t *testing.T) {
	for _, tc := range []struct{ shards, total, want int }{
		{0, 1400, MinShards},
		{0, 100000, 10},
		{0, 100001, 11},
		{0, 2, 2},
		{3, 200, 3},
		{50, 7, 7},
	} {
		if got := (Job{Shards: tc.shards}).shardsFor(tc.total); got != tc.want {
			t.Errorf("shardsFor(shards %d, %d documents) = %d, want %d", tc.shards, tc.total, got, tc.want)
		}
	}
}

func TestEncoders(t *testing.T) {
	for _, tc := range []struct{ encoders, threads, procs, want int }{
		{0, 0, 2, 2}, // one a core
		{0, 1, 16, 16},
		{0, 4, 16, 4}, // each encoding takes 4 cores
		{0, 4, 2, 1},  // at least one
		{3, 1, 2, 3},  // as asked
	} {
		if got := (Job{Encoders: tc.encoders, Threads: tc.threads}).encoders(tc.procs); got != tc.want {
			t.Errorf("encoders(-encoders %d, -threads %d, %d cores) = %d, want %d", tc.encoders, tc.threads, tc.procs, got, tc.want)
		}
	}
}

func TestWorkerDefaults(t *testing.T) {
	t.Setenv("DREVAL_MODELS", "/opt/dreval/models")
	t.Setenv("DREVAL_ORT_LIB", "/opt/dreval/lib/libonnxruntime.so.1")
	exp := spec.Spec{Data: []string{"d"}, Models: []string{"static"}, Rates: []float64{0}}
	cfg, err := Job{Experiment: exp, Out: "o"}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ModelOptions.ModelsDir != "/opt/dreval/models" || cfg.ModelOptions.OrtLibrary != "/opt/dreval/lib/libonnxruntime.so.1" {
		t.Errorf("empty -models-dir/-ort-lib: got %q, %q; want the worker's $DREVAL_MODELS, $DREVAL_ORT_LIB", cfg.ModelOptions.ModelsDir, cfg.ModelOptions.OrtLibrary)
	}
	cfg, _ = Job{Experiment: exp, Out: "o", ModelsDir: "/m", OrtLibrary: "/l.so"}.Config()
	if cfg.ModelOptions.ModelsDir != "/m" || cfg.ModelOptions.OrtLibrary != "/l.so" {
		t.Errorf("given -models-dir/-ort-lib: got %q, %q", cfg.ModelOptions.ModelsDir, cfg.ModelOptions.OrtLibrary)
	}
}
