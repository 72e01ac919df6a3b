// Command dreval-beam runs dreval's robustness experiment as an Apache
// Beam pipeline (package pipeline): on prism in-process by default, or on
// Flink, Spark or Google Cloud Dataflow with Beam's own flags.
//
// Usage:
//
//	dreval-beam -runner prism -data DIR -model static -rates 0,0.2 -seeds 1 -out DIR
//
// It writes what "dreval eval -data DIR -models MODEL ..." writes (runs/,
// results.json, tables, report.html), and the corpus embedding shards in
// OUT/embeddings ("dreval eval -corpus-embeddings" reads them).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"

	"github.com/dreval/dreval/beam/flags"
	"github.com/dreval/dreval/beam/launch"
	"github.com/dreval/dreval/beam/pipeline"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/progress"
)

const usage = `usage: dreval-beam [-runner prism|flink|spark|dataflow] -data DIR|URL -model NAME|DIR [-rates 0,0.05,0.1,0.2] [-seeds 5] [-k 100] -out DIR|URL [flags]

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

flags:`

func main() {
	var spec pipeline.Spec
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, usage)
		flag.PrintDefaults()
	}
	flag.StringVar(&spec.Data, "data", "", "BEIR `folder` (corpus.jsonl, queries.jsonl, qrels/<split>.tsv): a local path or a Beam file system URL")
	flag.StringVar(&spec.Split, "split", "test", "qrels `split`")
	flag.StringVar(&spec.Model, "model", "", "dense model: an installed `name` (minilm, static) or a model folder, present on every worker")
	flag.StringVar(&spec.ModelsDir, "models-dir", "", "`folder` of installed models on the workers (default: each worker's $DREVAL_MODELS, else its user cache folder's dreval/models)")
	flag.StringVar(&spec.Engine, "engine", "auto", "encoder engine: auto (ONNX Runtime where the worker has the library and the model model.onnx, else pure Go), go or ort")
	flag.StringVar(&spec.OrtLibrary, "ort-lib", "", "ONNX Runtime shared `library` on the workers (default: each worker's $DREVAL_ORT_LIB, else where make setup installs it)")
	flag.StringVar(&spec.Perturb, "perturb", "idshift", "perturbation `mode`, as dreval eval -perturb")
	rates := flag.String("rates", "0,0.05,0.1,0.2", "perturbation `rates` in [0,1], comma-separated (0: the clean run)")
	flag.IntVar(&spec.Seeds, "seeds", experiment.DefaultSeeds, "`number` of seeds per rate > 0")
	flag.IntVar(&spec.K, "k", experiment.DefaultK, "documents retrieved per query")
	flag.IntVar(&spec.Resamples, "resamples", experiment.DefaultResamples, "randomization-test and bootstrap resamples")
	flag.StringVar(&spec.Out, "out", "", "output `folder`: a local path or a Beam file system URL")
	flag.IntVar(&spec.Shards, "shards", 0, "corpus shards (0: one per 10,000 documents, at least 4)")
	flag.IntVar(&spec.Threads, "threads", 1, "threads of each encoding and shard search")
	flag.IntVar(&spec.Encoders, "encoders", 0, "most shards a worker process encodes at once (0: its cores over -threads); runners run more bundles than cores")
	flag.Parse()
	beam.Init()
	if err := run(&spec, *rates); err != nil {
		fmt.Fprintf(os.Stderr, "dreval-beam: %v\n", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ error }

func run(spec *pipeline.Spec, rates string) error {
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
	r, err := flags.ParseRates(rates)
	if err != nil {
		return usageError{err}
	}
	spec.Rates = r
	spec.Version = "dreval-beam (devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		spec.Version = "dreval-beam " + bi.Main.Version
	}
	if err := spec.Validate(); err != nil {
		return usageError{err}
	}
	p, s := beam.NewPipelineWithRoot()
	if err := pipeline.Build(s, *spec); err != nil {
		return err
	}
	start := time.Now()
	bar := progress.New(os.Stderr)
	view := &progressView{bar: bar, model: spec.Model}
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
	fmt.Fprintf(os.Stderr, "dreval-beam: wrote %s (runs/, results.json, tables, report.html; embeddings/)\n", spec.Out)
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
