// Command dreval-beam runs dreval's robustness experiment as an Apache
// Beam pipeline (package pipeline): on prism in-process by default, or on
// Flink, Spark or Google Cloud Dataflow with Beam's own flags.
//
// Usage:
//
//	dreval-beam -runner prism -data DIR -model static -rates 0,0.2 -seeds 1 -out DIR
//
//	dreval-beam -spec results.json -out DIR
//
// It writes what "dreval eval -data DIR -models MODEL ..." writes (runs/,
// results.json, tables, report.html), and the corpus embedding shards in
// OUT/embeddings ("dreval eval -corpus-embeddings" reads them). -spec
// runs the experiment a spec file (or a results.json) describes, as
// "dreval eval -spec" does.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"

	"github.com/dreval/dreval/beam/flags"
	"github.com/dreval/dreval/beam/launch"
	"github.com/dreval/dreval/beam/pipeline"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/progress"
	"github.com/dreval/dreval/spec"
)

const usage = `usage: dreval-beam [-runner prism|flink|spark|dataflow] -data DIR|URL -model NAME|DIR [-rates 0,0.05,0.1,0.2] [-seeds 5] [-k 100] -out DIR|URL [flags]
       dreval-beam [-runner ...] -spec FILE -out DIR|URL [flags]

Runs the robustness experiment of "dreval eval" as an Apache Beam pipeline:
the corpus is cut into -shards contiguous shards, each encoded by a worker
(the model loaded once per worker process) and written to OUT/embeddings;
the queries are perturbed at every rate and seed by dreval's own code and
seeds, encoded, and searched against every shard; the shards' top-k lists
are merged per query, scored, and written as dreval eval writes them.

Runners: prism (default; in this process), flink and spark (-endpoint of
their Beam job server), dataflow (-project, -region, -temp_location,
-staging_location; -worker_binary for a prebuilt linux/amd64 binary), with
-environment_type/-environment_config to run workers in the dreval Beam
worker image (beam/Dockerfile). -data and -out may be local paths or any
Beam file system (gs://, s3://). Beam's own flags follow dreval's.

-spec FILE runs the experiment a spec describes (a JSON spec, or the
results.json of dreval eval or dreval-beam): one dataset, one dense model,
task ir. results.json records the spec the pipeline ran, its -data as
given, so "dreval eval -spec OUT/results.json" runs it again on one machine.

flags:`

// cliFlags are dreval-beam's own flags: those that describe the
// experiment fill a spec.Spec (or -spec gives one), the others the job.
type cliFlags struct {
	data, split, model, engine, perturb, rates, specFile string
	seeds, k, resamples                                  int
	job                                                  pipeline.Job
}

// describingFlags are the flags that describe the experiment (a spec's
// fields): -spec refuses them, as "dreval eval -spec" does. machineFlags
// say where and how this job runs it: they apply with -spec. Beam's own
// flags (-runner, -endpoint, ...) are the job's too.
var (
	describingFlags = map[string]bool{"data": true, "split": true, "model": true, "engine": true, "perturb": true, "rates": true, "seeds": true, "k": true, "resamples": true}
	machineFlags    = map[string]bool{"spec": true, "models-dir": true, "ort-lib": true, "out": true, "shards": true, "threads": true, "encoders": true}
)

// defineFlags defines dreval-beam's flags on fs.
func defineFlags(fs *flag.FlagSet) *cliFlags {
	c := &cliFlags{}
	fs.StringVar(&c.specFile, "spec", "", "run the experiment a spec `FILE` describes: a JSON spec, or a results.json of dreval eval or dreval-beam (its \"spec\"); flags that describe the experiment are then refused, those of the job (-out, -models-dir, -ort-lib, -shards, -threads, -encoders, Beam's) apply")
	fs.StringVar(&c.data, "data", "", "BEIR `folder` (corpus.jsonl, queries.jsonl, qrels/<split>.tsv): a local path or a Beam file system URL")
	fs.StringVar(&c.split, "split", "test", "qrels `split`")
	fs.StringVar(&c.model, "model", "", "dense model: an installed `name` (minilm, static) or a model folder, present on every worker")
	fs.StringVar(&c.job.ModelsDir, "models-dir", "", "`folder` of installed models on the workers (default: each worker's $DREVAL_MODELS, else its user cache folder's dreval/models)")
	fs.StringVar(&c.engine, "engine", "auto", "encoder engine: auto (ONNX Runtime where the worker has the library and the model model.onnx, else pure Go), go or ort")
	fs.StringVar(&c.job.OrtLibrary, "ort-lib", "", "ONNX Runtime shared `library` on the workers (default: each worker's $DREVAL_ORT_LIB, else where make setup installs it)")
	fs.StringVar(&c.perturb, "perturb", "idshift", "perturbation `mode`, as dreval eval -perturb")
	fs.StringVar(&c.rates, "rates", "0,0.05,0.1,0.2", "perturbation `rates` in [0,1], comma-separated (0: the clean run)")
	fs.IntVar(&c.seeds, "seeds", experiment.DefaultSeeds, "`number` of seeds per rate > 0")
	fs.IntVar(&c.k, "k", experiment.DefaultK, "documents retrieved per query")
	fs.IntVar(&c.resamples, "resamples", experiment.DefaultResamples, "randomization-test and bootstrap resamples")
	fs.StringVar(&c.job.Out, "out", "", "output `folder`: a local path or a Beam file system URL")
	fs.IntVar(&c.job.Shards, "shards", 0, "corpus shards (0: one per 10,000 documents, at least 4)")
	fs.IntVar(&c.job.Threads, "threads", 1, "threads of each encoding and shard search")
	fs.IntVar(&c.job.Encoders, "encoders", 0, "most shards a worker process encodes at once (0: its cores over -threads); runners run more bundles than cores")
	return c
}

// makeJob returns the job fs's flags (parsed) ask for, validated: the
// experiment from -spec, or the one the describing flags describe.
func (c *cliFlags) makeJob(fs *flag.FlagSet) (pipeline.Job, error) {
	job := c.job
	job.Version = version()
	if c.specFile != "" {
		var conflict []string
		fs.Visit(func(f *flag.Flag) {
			if describingFlags[f.Name] {
				conflict = append(conflict, "-"+f.Name)
			}
		})
		if len(conflict) > 0 {
			return job, usageError{fmt.Errorf("-spec %s describes the whole experiment: %s would change it (edit the spec instead)", c.specFile, strings.Join(conflict, ", "))}
		}
		sp, err := spec.ReadFile(c.specFile)
		if err != nil {
			return job, usageError{err}
		}
		job.Experiment = *sp
		if err := job.Validate(); err != nil {
			return job, usageError{fmt.Errorf("%s: %w", c.specFile, err)}
		}
		return job, nil
	}
	switch {
	case c.seeds < 1:
		return job, usageError{fmt.Errorf("-seeds %d: want at least 1", c.seeds)}
	case c.k < 1:
		return job, usageError{fmt.Errorf("-k %d: want at least 1", c.k)}
	case c.resamples < 1:
		return job, usageError{fmt.Errorf("-resamples %d: want at least 1", c.resamples)}
	}
	rates, err := flags.ParseRates(c.rates)
	if err != nil {
		return job, usageError{err}
	}
	job.Experiment = spec.Spec{
		Split:        c.split,
		Engine:       c.engine,
		Perturbation: spec.Perturbation{Mode: c.perturb},
		Rates:        rates,
		Seeds:        c.seeds,
		K:            c.k,
		Resamples:    c.resamples,
	}
	if c.data != "" {
		job.Experiment.Data = []string{c.data}
	}
	if c.model != "" {
		job.Experiment.Models = []string{c.model}
	}
	if err := job.Validate(); err != nil {
		return job, usageError{err}
	}
	return job, nil
}

// version is what results.json records as the version.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return "dreval-beam " + bi.Main.Version
	}
	return "dreval-beam (devel)"
}

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, usage)
		flag.PrintDefaults()
	}
	c := defineFlags(flag.CommandLine)
	flag.Parse()
	beam.Init()
	if err := run(c); err != nil {
		fmt.Fprintf(os.Stderr, "dreval-beam: %v\n", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ error }

func run(c *cliFlags) error {
	if flag.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", flag.Arg(0))}
	}
	if r := flag.Lookup("runner").Value.String(); r != "" {
		switch r {
		case "prism", "flink", "spark", "dataflow", "universal", "PrismRunner", "FlinkRunner", "SparkRunner", "DataflowRunner":
		default:
			return usageError{fmt.Errorf("-runner %q: want prism, flink, spark or dataflow", r)}
		}
	}
	job, err := c.makeJob(flag.CommandLine)
	if err != nil {
		return err
	}
	p, s := beam.NewPipelineWithRoot()
	if err := pipeline.Build(s, job); err != nil {
		return err
	}
	start := time.Now()
	bar := progress.New(os.Stderr)
	view := &progressView{bar: bar, model: job.Experiment.Models[0]}
	res, err := launch.Run(context.Background(), p, time.Second, func(m metrics.Results) { view.show(pipeline.ProgressOf(m)) })
	bar.Done()
	if err != nil {
		return err
	}
	el := time.Since(start).Seconds()
	if res != nil {
		if pr := pipeline.ProgressOf(res.Metrics()); pr.DocsEncoded > 0 {
			fmt.Fprintf(os.Stderr, "dreval-beam: encoded %d documents; pipeline %.1fs (%.1f documents/s end to end; %.1f/s per encoding bundle)\n",
				pr.DocsEncoded, el, float64(pr.DocsEncoded)/el, float64(pr.DocsEncoded)/max(float64(pr.EncodeMillis)/1000, 1e-9))
		}
	}
	fmt.Fprintf(os.Stderr, "dreval-beam: wrote %s (runs/, results.json, tables, report.html; embeddings/)\n", job.Out)
	return nil
}

// progressView draws the pipeline's progress from its counters on a
// progress.Bar: the corpus's documents encoded of the total (the bulk of
// the work), then its shards searched; the bar gives the rate and the
// time left. Each step's finished line is drawn once.
type progressView struct {
	bar                  *progress.Bar
	model                string
	docsDone, shardsDone bool
}

func (v *progressView) show(p pipeline.Progress) {
	if p.DocsTotal > 0 && !v.docsDone {
		v.bar.Update("encode corpus "+v.model, int(p.DocsEncoded), int(p.DocsTotal), "docs")
		v.docsDone = p.DocsEncoded >= p.DocsTotal
		if !v.docsDone {
			return
		}
	}
	if p.ShardsTotal > 0 && v.docsDone && !v.shardsDone {
		v.bar.Update("search shards", int(p.ShardsSearched), int(p.ShardsTotal), "shards")
		v.shardsDone = p.ShardsSearched >= p.ShardsTotal
	}
}
