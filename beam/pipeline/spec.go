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
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/perturb"
)

// Spec is what a pipeline computes: the dataset, the model and the sweep.
// It travels inside the DoFns (JSON), so every worker builds the same
// experiment.Config from it.
type Spec struct {
	// Data is a BEIR folder: a local path, or a Beam file system URL
	// (gs://bucket/beir/nq).
	Data  string
	Split string
	// Model is an installed model's name (minilm, static) or a model
	// folder, as "dreval eval -models" takes it; ModelsDir is where
	// installed models are on every worker (empty: each worker's own
	// default, $DREVAL_MODELS, else its user cache folder's
	// dreval/models, so that a launcher's paths never reach a worker
	// container).
	Model, ModelsDir string
	// Engine is auto (ONNX Runtime where the worker has the library and
	// the model folder model.onnx), go or ort; OrtLibrary the library's
	// path on the workers (empty: each worker's $DREVAL_ORT_LIB, else
	// where "make setup" installs it in its user cache folder).
	Engine, OrtLibrary string
	// Perturb is the perturbation mode (idshift when empty), Rates and
	// Seeds the sweep, K the documents kept per query.
	Perturb string
	Rates   []float64
	Seeds   int
	K       int
	// Resamples of the paired tests (0: experiment's default).
	Resamples int
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

// Defaults of Spec.Shards.
const (
	DefaultShardDocs = 10000
	MinShards        = 4
)

// shardsFor returns the number of shards of a corpus of total documents.
func (s Spec) shardsFor(total int) int {
	n := s.Shards
	if n <= 0 {
		n = max(MinShards, (total+DefaultShardDocs-1)/DefaultShardDocs)
	}
	return max(1, min(n, total))
}

// Remote reports whether Data is a Beam file system URL rather than a
// local path.
func Remote(path string) bool { return strings.Contains(path, "://") }

// Config returns the experiment.Config of s: what "dreval eval -data
// Data -models Model -rates ... -seeds ... -k K" runs, with the
// collection given (col, for remote data) or read by experiment from the
// local folder.
func (s Spec) Config() (experiment.Config, error) {
	mode, err := perturb.ParseMode(s.Perturb)
	if s.Perturb == "" {
		mode, err = perturb.IDShift, nil
	}
	if err != nil {
		return experiment.Config{}, err
	}
	eng := experiment.EngineAuto
	if s.Engine != "" {
		if eng, err = experiment.ParseEngine(s.Engine); err != nil {
			return experiment.Config{}, err
		}
	}
	models, lib := s.ModelsDir, s.OrtLibrary
	if models == "" {
		models = WorkerModelsDir()
	}
	if lib == "" {
		lib = WorkerOrtLibrary()
	}
	cfg := experiment.Config{
		Split:    s.Split,
		Models:   []string{s.Model},
		Registry: experiment.DefaultRegistry(),
		ModelOptions: experiment.ModelOptions{
			Engine: eng, ModelsDir: models, Analyzer: experiment.AnalyzerWordPiece, OrtLibrary: lib,
			EncoderThreads: max(s.Threads, 1),
		},
		Perturbation: perturb.Config{Mode: mode, OOV: perturb.Redraw},
		Rates:        s.Rates,
		Seeds:        s.Seeds,
		K:            s.K,
		Resamples:    s.Resamples,
		Version:      s.Version,
	}
	if !Remote(s.Data) {
		cfg.Data = []string{s.Data}
	}
	return cfg, nil
}

// WorkerModelsDir is where this process finds installed models when
// Spec.ModelsDir is empty: $DREVAL_MODELS, else dreval/models in the
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
// Spec.OrtLibrary is empty: $DREVAL_ORT_LIB, else where scripts/setup-ort.sh
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

// Validate reports the first problem with s, naming the flag.
func (s Spec) Validate() error {
	switch {
	case s.Data == "":
		return fmt.Errorf("-data is required: a BEIR folder (local or gs://, s3://)")
	case s.Model == "":
		return fmt.Errorf("-model is required")
	case s.Model == "bm25":
		return fmt.Errorf("-model bm25: the pipeline runs dense models (bm25 needs no encoding; run it with dreval eval)")
	case s.Out == "":
		return fmt.Errorf("-out is required")
	case s.Shards < 0:
		return fmt.Errorf("-shards %d: want 0 (automatic) or more", s.Shards)
	case s.Threads < 0:
		return fmt.Errorf("-threads %d: want 0 or more", s.Threads)
	case s.Encoders < 0:
		return fmt.Errorf("-encoders %d: want 0 (automatic) or more", s.Encoders)
	}
	cfg, err := s.Config()
	if err != nil {
		return err
	}
	if cfg.Data == nil {
		cfg.Data = []string{"remote"} // Validate needs a dataset; Collections come later.
	}
	return cfg.Validate()
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

// openModel returns s's model, opening it on the first call in this
// process.
func (s Spec) openModel(ctx context.Context) (*experiment.Model, error) {
	key := strings.Join([]string{s.Model, s.ModelsDir, s.Engine, s.OrtLibrary, strconv.Itoa(s.Threads)}, "\x00")
	models.Lock()
	e := models.m[key]
	if e == nil {
		e = &modelEntry{}
		models.m[key] = e
	}
	models.Unlock()
	e.once.Do(func() {
		cfg, err := s.Config()
		if err != nil {
			e.err = err
			return
		}
		e.m, e.err = cfg.Registry.Open(ctx, s.Model, cfg.ModelOptions)
		if e.err == nil && e.m.Kind != experiment.Dense {
			e.err = fmt.Errorf("model %s is not a dense model", s.Model)
		}
	})
	return e.m, e.err
}

// encoders returns the most shards this process encodes at once under s
// (Spec.Encoders), for a process of procs cores.
func (s Spec) encoders(procs int) int {
	if s.Encoders > 0 {
		return s.Encoders
	}
	return max(1, procs/max(s.Threads, 1))
}

// encodeSlots holds the process's encoding slots, made on first use with
// the size the first shard's Spec asks for.
var encodeSlots struct {
	once  sync.Once
	slots chan struct{}
}

// acquireEncoder waits for one of the process's encoding slots and
// returns its release, or ctx's error.
func (s Spec) acquireEncoder(ctx context.Context) (release func(), err error) {
	encodeSlots.once.Do(func() { encodeSlots.slots = make(chan struct{}, s.encoders(runtime.GOMAXPROCS(0))) })
	select {
	case encodeSlots.slots <- struct{}{}:
		return func() { <-encodeSlots.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
