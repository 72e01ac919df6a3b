package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/progress"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/report"
)

func init() {
	register(&command{
		name:    "eval",
		summary: "run the robustness experiment: models x datasets x perturbation rates x seeds, with tables, charts and a report",
		run:     runEval,
	})
}

const evalUsage = `[-data demo|DIR[,DIR...]] [-models minilm,bm25] [-perturb idshift] [-rates 0,0.05,0.1,0.2] [-seeds 5] [-k 100] [-out DIR] [-quiet]

Encodes each corpus once (cached by model and corpus hash; the tokenizer's
fingerprint is stored beside the vectors and checked), runs the judged
queries clean and perturbed at every rate with every seed, scores every run
under the st and trec conventions, compares each rate with the clean run
(paired randomization and t-tests, bootstrap CI), prints the main table and
writes into -out: results.json, runs/*.trec (score them with
"dreval metrics -c -qrels qrels/<dataset>.qrels -run ..."), tables
(tables.md, tables.tex, tables/*.csv), examples.md, ndcg_vs_rate.svg and
report.html.`

// evalRegistry returns the models eval can open; tests replace it.
var evalRegistry = experiment.DefaultRegistry

func runEval(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "eval", evalUsage)
	data := fs.String("data", "demo", "datasets: \"demo\" or BEIR-layout `DIRS`, comma-separated")
	split := fs.String("split", "test", "qrels `split`")
	models := fs.String("models", "minilm,bm25", "models, comma-separated: "+strings.Join(evalRegistry().Names(), ", ")+", or model directories")
	modelsDir := fs.String("models-dir", defaultModelsDir(), "`directory` of installed models (default from $DREVAL_MODELS, else the user cache directory)")
	mode := fs.String("perturb", "idshift", "perturbation `mode`: idshift, idrandom, typo, charswap, charinsert, chardelete, worddrop, or vocabswap (tokenizer poisoning; needs -protect-special)")
	oov := fs.String("oov", "redraw", "idshift: what to do with ids shifted past the vocabulary: redraw, clamp, wrap or error")
	protect := fs.Bool("protect-special", false, "leave special tokens ([CLS], [SEP]) unperturbed (the paper perturbs them)")
	rates := fs.String("rates", "0,0.05,0.1,0.2", "perturbation `rates` in [0,1], comma-separated; the clean run (0) is always made, since every comparison needs it")
	seeds := fs.Int("seeds", experiment.DefaultSeeds, "`number` of seeds per rate > 0")
	k := fs.Int("k", experiment.DefaultK, "documents retrieved per query")
	out := fs.String("out", "out/eval", "output `directory`")
	engine := fs.String("engine", "auto", "dense encoder engine: auto (ONNX Runtime when available, else go), go or ort")
	ortLib := fs.String("ort-lib", evalDefaultOrtLib(), "ONNX Runtime shared `library` for -engine ort/auto")
	analyzer := fs.String("analyzer", "wordpiece", "BM25 analyser: wordpiece (the minilm tokenizer's tokens) or words")
	cacheDir := fs.String("cache", evalDefaultCacheDir(), "corpus embedding cache `directory` (ONNX graphs exported for -engine ort go to ../onnx beside it)")
	noCache := fs.Bool("no-cache", false, "neither read nor write the corpus embedding cache")
	examples := fs.Int("examples", experiment.DefaultExamples, "decoded perturbed queries kept per model and rate")
	resamples := fs.Int("resamples", experiment.DefaultResamples, "randomization-test and bootstrap resamples")
	quiet := fs.Bool("quiet", false, "no progress output on stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	cfg := experiment.Config{
		Data:     evalSplitList(*data),
		Split:    *split,
		Models:   evalSplitList(*models),
		Registry: evalRegistry(),
		ModelOptions: experiment.ModelOptions{
			Engine: *engine, ModelsDir: *modelsDir, Analyzer: *analyzer,
			OrtLibrary: *ortLib, CacheDir: filepath.Dir(*cacheDir),
		},
		Seeds:     *seeds,
		K:         *k,
		Examples:  *examples,
		Resamples: *resamples,
		Version:   evalVersion(),
	}
	m, err := perturb.ParseMode(*mode)
	if err != nil {
		return usageErrorf("-perturb: %v", err)
	}
	o, err := perturb.ParseOOV(*oov)
	if err != nil {
		return usageErrorf("-oov: %v", err)
	}
	cfg.Perturbation = perturb.Config{Mode: m, OOV: o, ProtectSpecial: *protect}
	if cfg.Rates, err = evalParseRates(*rates); err != nil {
		return usageErrorf("-rates: %v", err)
	}
	switch {
	case *seeds < 1:
		return usageErrorf("-seeds %d: want at least 1", *seeds)
	case *k < 1:
		return usageErrorf("-k %d: want at least 1", *k)
	case *resamples < 1:
		return usageErrorf("-resamples %d: want at least 1", *resamples)
	case *examples < 0:
		return usageErrorf("-examples %d: want 0 or more", *examples)
	case *out == "":
		return usageErrorf("-out is required")
	}
	if *examples == 0 {
		cfg.Examples = -1
	}
	if !*noCache {
		cfg.Cache = experiment.DirCache{Dir: *cacheDir}
	}
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}

	var bar *progress.Bar
	onEvent := func(experiment.Event) {}
	if !*quiet {
		bar = progress.New(env.stderr)
		onEvent = func(e experiment.Event) {
			switch {
			case e.Step == experiment.StepWarning:
				bar.Done()
				if s := e.Subject(); s != "" {
					fmt.Fprintf(env.stderr, "warning: %s: %s\n", s, e.Message)
				} else {
					fmt.Fprintf(env.stderr, "warning: %s\n", e.Message)
				}
			case e.Total > 0:
				bar.Update(e.Label(), e.Done, e.Total, e.Unit)
			case e.Message != "":
				bar.Done()
				fmt.Fprintf(env.stderr, "%s: %s\n", e.Label(), e.Message)
			}
		}
	}
	res, err := experiment.Run(context.Background(), cfg, onEvent)
	if bar != nil {
		bar.Done()
	}
	if err != nil {
		return err
	}
	written, err := report.WriteDir(*out, res)
	if err != nil {
		return err
	}
	if err := report.Summary(env.stdout, res); err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(env.stderr, "wrote %d files to %s (report.html, results.json, tables.md, runs/)\n", len(written), *out)
	}
	return nil
}

// evalSplitList splits a comma-separated flag value, dropping blanks.
func evalSplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// evalParseRates parses comma-separated rates in [0, 1].
func evalParseRates(s string) ([]float64, error) {
	var out []float64
	for _, p := range evalSplitList(s) {
		r, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", p)
		}
		if !(r >= 0 && r <= 1) {
			return nil, fmt.Errorf("rate %v is outside [0, 1]", r)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rate given")
	}
	return out, nil
}

func evalDefaultCacheDir() string {
	d, err := experiment.DefaultCacheDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "dreval", "embeddings")
	}
	return d
}

func evalDefaultOrtLib() string {
	c, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return ort.DefaultLibPath(c)
}

// evalVersion returns dreval's version as the build records it.
func evalVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
