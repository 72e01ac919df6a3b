// Package pipeline is dreval's robustness experiment as an Apache Beam
// pipeline: the corpus is read from a BEIR folder (local, or on any Beam
// file system: gs://, s3://), split into contiguous shards, and each shard
// is encoded by a DoFn that loads the model once per worker process and
// written as an embedding shard ("dreval eval -corpus-embeddings" reads
// the shards); the queries are perturbed at every rate and seed by the
// code and seeds "dreval eval" uses (experiment.QuerySequences), encoded
// in batches, and given as a side input to every shard's search; the
// shards' top-k lists are merged per query (retrieval.MergeIDHits), and
// one last DoFn scores the merged rankings with experiment.Run and writes
// TREC runs, results.json and the tables with package report, as "dreval
// eval" does. Runs on prism (in-process), Flink, Spark and Dataflow.
package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/spec"
)

// Job is one run of the pipeline: the experiment it computes, described
// as "dreval eval" and results.json describe one (a spec.Spec), and where
// and how this job runs it. It travels inside the DoFns (JSON), so every
// worker builds the same experiment.Config from it.
type Job struct {
	// Experiment is what to compute: one dataset (Data[0], a BEIR
	// folder: a local path, or a Beam file system URL such as
	// gs://bucket/beir/nq) and one dense model (Models[0], an installed
	// model's name or a model folder, as "dreval eval -models" takes
	// it), task ir; Validate says what else the pipeline refuses.
	// results.json records it, Data as given.
	Experiment spec.Spec
	// ModelsDir is where installed models are on every worker (empty:
	// each worker's own default, $DREVAL_MODELS, else its user cache
	// folder's dreval/models, so that a launcher's paths never reach a
	// worker container).
	ModelsDir string
	// OrtLibrary is ONNX Runtime's library on the workers (empty: each
	// worker's $DREVAL_ORT_LIB, else where "make setup" installs it in
	// its user cache folder).
	OrtLibrary string
	// Out is the output folder (local path or Beam file system URL):
	// runs/, results.json, tables, and embeddings/ (the shards).
	Out string
	// Shards is the number of corpus shards; 0 means one per
	// DefaultShardDocs documents, at least MinShards.
	Shards int
	// Threads is the threads of each encoding (goroutines of the go
	// engine, ONNX Runtime's intra-op threads) and of each shard's search
	// (0: one); workers parallelise by bundles, several shards at once.
	Threads int
	// Encoders is the most shards a worker process encodes and searches
	// at once (0: its cores, GOMAXPROCS, over Threads, at least one).
	// Runners start more bundles than that (prism splits a slow bundle
	// and runs up to 8 at once in its process): more encodings than cores
	// cost memory (an ONNX Runtime session's buffers each) and cache,
	// and finish no sooner.
	Encoders int
	// Version is recorded in results.json.
	Version string
}

// Defaults of Job.Shards.
const (
	DefaultShardDocs = 10000
	MinShards        = 4
)

// data is the job's dataset, model its model (Validate checks that there
// is one of each).
func (j Job) data() string  { return first(j.Experiment.Data) }
func (j Job) model() string { return first(j.Experiment.Models) }

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// shardsFor returns the number of shards of a corpus of total documents.
func (j Job) shardsFor(total int) int {
	n := j.Shards
	if n <= 0 {
		n = max(MinShards, (total+DefaultShardDocs-1)/DefaultShardDocs)
	}
	return max(1, min(n, total))
}

// Remote reports whether Data is a Beam file system URL rather than a
// local path.
func Remote(path string) bool { return strings.Contains(path, "://") }

// Config returns the experiment.Config of j: experiment.FromSpec of the
// Experiment ("dreval eval -spec" runs the same), with the job's ports
// (the registry, the models folder, ONNX Runtime's library, the threads
// of an encoding) and the collection read by experiment from the local
// folder, or given by the caller (Collections) for remote data.
func (j Job) Config() (experiment.Config, error) {
	cfg, err := experiment.FromSpec(j.Experiment)
	if err != nil {
		return experiment.Config{}, err
	}
	models, lib := j.ModelsDir, j.OrtLibrary
	if models == "" {
		models = WorkerModelsDir()
	}
	if lib == "" {
		lib = WorkerOrtLibrary()
	}
	cfg.Registry = experiment.DefaultRegistry()
	cfg.ModelOptions.ModelsDir, cfg.ModelOptions.OrtLibrary = models, lib
	cfg.ModelOptions.EncoderThreads = max(j.Threads, 1)
	cfg.Version = j.Version
	if Remote(j.data()) {
		cfg.Data = nil
	}
	return cfg, nil
}

// WorkerModelsDir is where this process finds installed models when
// Job.ModelsDir is empty: $DREVAL_MODELS, else dreval/models in the
// user cache folder (where "make setup" and the worker image put them).
func WorkerModelsDir() string {
	if d := os.Getenv("DREVAL_MODELS"); d != "" {
		return d
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(c, "dreval", "models")
}

// WorkerOrtLibrary is the ONNX Runtime library this process loads when
// Job.OrtLibrary is empty: $DREVAL_ORT_LIB, else where scripts/setup-ort.sh
// installs it in the user cache folder.
func WorkerOrtLibrary() string {
	if p := os.Getenv("DREVAL_ORT_LIB"); p != "" {
		return p
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return ort.DefaultLibPath(c)
}

// Validate reports the first problem with j: what the pipeline cannot
// run, naming the spec's field (and dreval-beam's flag that fills it),
// then the spec's own problems (experiment.FromSpec, Config.Validate),
// then the job's flags.
func (j Job) Validate() error {
	s := j.Experiment
	switch {
	case len(s.Data) == 0 || s.Data[0] == "":
		return fmt.Errorf(`"data" (-data): no dataset: want one BEIR folder, local or on a Beam file system (gs://, s3://)`)
	case len(s.Data) > 1:
		return fmt.Errorf(`"data": %d datasets (%s): the pipeline runs one; run a job for each`, len(s.Data), strings.Join(s.Data, ", "))
	case s.Data[0] == "demo":
		return fmt.Errorf(`"data" (-data): "demo" is dreval eval's built-in collection; the pipeline reads BEIR folders (corpus.jsonl, queries.jsonl, qrels/): run demo with dreval eval, or write ./demo for a folder of that name`)
	case len(s.Models) == 0 || s.Models[0] == "":
		return fmt.Errorf(`"models" (-model): no model: want one dense model (an installed name such as minilm or static, or a model folder)`)
	case len(s.Models) > 1:
		return fmt.Errorf(`"models": %d models (%s): the pipeline runs one dense model; run a job for each`, len(s.Models), strings.Join(s.Models, ", "))
	case s.Models[0] == "bm25":
		return fmt.Errorf(`"models" (-model): bm25: the pipeline runs dense models (bm25 needs no encoding; run it with dreval eval)`)
	case s.Task != "" && s.Task != string(experiment.TaskIR):
		return fmt.Errorf(`"task": %q: the pipeline runs task ir (its last stage holds the corpus's ids, not the text answers are found in); run %s with dreval eval`, s.Task, s.Task)
	case s.PassageText:
		return fmt.Errorf(`"passage_text": true: the pipeline encodes documents as title and text (task ir); run DPR passages with dreval eval`)
	case len(s.AnswerModes) > 0:
		return fmt.Errorf(`"answer_modes": %s: task ir measures no answer accuracy`, strings.Join(s.AnswerModes, ", "))
	}
	cfg, err := j.Config()
	if err != nil {
		return err
	}
	if cfg.Data == nil {
		cfg.Data = []string{"remote"} // Validate needs a dataset; Collections come later.
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	switch {
	case j.Out == "":
		return fmt.Errorf("-out is required")
	case j.Shards < 0:
		return fmt.Errorf("-shards %d: want 0 (automatic) or more", j.Shards)
	case j.Threads < 0:
		return fmt.Errorf("-threads %d: want 0 or more", j.Threads)
	case j.Encoders < 0:
		return fmt.Errorf("-encoders %d: want 0 (automatic) or more", j.Encoders)
	}
	return nil
}

// models keeps every model a worker process opened, by what opened it,
// so that the DoFns of one process (one per bundle in flight) share one
// copy of the weights: the model loads once per worker.
var models = struct {
	sync.Mutex
	m map[string]*modelEntry
}{m: map[string]*modelEntry{}}

type modelEntry struct {
	once sync.Once
	m    *experiment.Model
	err  error
}

// openModel returns j's model, opening it on the first call in this
// process.
func (j Job) openModel(ctx context.Context) (*experiment.Model, error) {
	s := j.Experiment
	k, err := json.Marshal([]any{s.Models, j.ModelsDir, s.Engine, j.OrtLibrary, j.Threads, s.Score, s.QueryPrompt, s.DocumentPrompt})
	if err != nil {
		return nil, err
	}
	key := string(k)
	models.Lock()
	e := models.m[key]
	if e == nil {
		e = &modelEntry{}
		models.m[key] = e
	}
	models.Unlock()
	e.once.Do(func() {
		cfg, err := j.Config()
		if err != nil {
			e.err = err
			return
		}
		e.m, e.err = cfg.Registry.Open(ctx, j.model(), cfg.ModelOptions)
		if e.err == nil && e.m.Kind != experiment.Dense {
			e.err = fmt.Errorf("model %s is not a dense model", j.model())
		}
	})
	return e.m, e.err
}

// encoders returns the most shards this process encodes at once under j
// (Job.Encoders), for a process of procs cores.
func (j Job) encoders(procs int) int {
	if j.Encoders > 0 {
		return j.Encoders
	}
	return max(1, procs/max(j.Threads, 1))
}

// encodeSlots holds the process's encoding slots, made on first use with
// the size the first shard's Job asks for.
var encodeSlots struct {
	once  sync.Once
	slots chan struct{}
}

// acquireEncoder waits for one of the process's encoding slots and
// returns its release, or ctx's error.
func (j Job) acquireEncoder(ctx context.Context) (release func(), err error) {
	encodeSlots.once.Do(func() { encodeSlots.slots = make(chan struct{}, j.encoders(runtime.GOMAXPROCS(0))) })
	select {
	case encodeSlots.slots <- struct{}{}:
		return func() { <-encodeSlots.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
