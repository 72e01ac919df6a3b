package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/report"
)

func init() {
	register(&command{
		name:    "reproduce",
		summary: "run the perturbation study's protocol (idshift at 0, 5, 10, 20%, 5 seeds, every model) and write its tables and docs/reproduction.md",
		run:     runReproduce,
	})
}

// reproduceDefaultData are the collections reproduce runs by default,
// relative to the repository root.
const reproduceDefaultData = "../shared/data/hotpotqa-dev-100,../shared/data/cranfield"

const reproduceUsage = `[-data DIR[,DIR...]] [-models minilm,static,bm25] [-model-dirs DIR[,DIR...]] [-seeds 5] [-out DIR] [-doc FILE]

Runs the study's protocol with dreval eval's pipeline: the faithful idshift
perturbation (special tokens perturbed, out-of-vocabulary ids redrawn) at
rates 0, 5%, 10% and 20%, -seeds seeds (the protocol's 5 by default), every
installed model of minilm, static and bm25 plus any -model-dirs, on every
collection. Writes eval's outputs into -out and the study's table shapes
(Table 1 examples, Tables 5-7 per dataset, Table 2 average, Table 3 average
drop at 5% and 20%) with the findings paragraph, generated from the
numbers, into -doc.`

func runReproduce(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "reproduce", reproduceUsage)
	data := fs.String("data", reproduceDefaultData, "BEIR-layout collection `DIRS` (or demo), comma-separated")
	models := fs.String("models", evalDefaultModels, "models, comma-separated (by default, those of the defaults that are installed)")
	modelDirs := fs.String("model-dirs", "", "more model `DIRS` to run, comma-separated")
	modelsDir := fs.String("models-dir", defaultModelsDir(), "`directory` of installed models")
	seeds := fs.Int("seeds", experiment.StudySeeds, "`number` of seeds per rate > 0 (the protocol: 5)")
	out := fs.String("out", "out/reproduce", "output `directory` of the eval outputs")
	doc := fs.String("doc", "docs/reproduction.md", "the reproduction document to write (- for standard output)")
	machine := fs.String("machine", "", "machine description for the document (default: GOOS/GOARCH and CPU count)")
	engine := fs.String("engine", "auto", "dense encoder engine: auto, go or ort")
	ortLib := fs.String("ort-lib", defaultORTLib(), "ONNX Runtime shared `library`")
	cacheDir := fs.String("cache", evalDefaultCacheDir(), "corpus embedding cache `directory`")
	resamples := fs.Int("resamples", experiment.DefaultResamples, "randomization-test and bootstrap resamples")
	quiet := fs.Bool("quiet", false, "no progress output on stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	case *seeds < 1:
		return usageErrorf("-seeds %d: want at least 1 (the protocol uses 5)", *seeds)
	case *resamples < 1:
		return usageErrorf("-resamples %d: want at least 1", *resamples)
	case *out == "" || *doc == "":
		return usageErrorf("-out and -doc are required")
	}
	names := evalSplitList(*models)
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "models" })
	if !given {
		var missing []string
		names, missing = evalInstalled(names, *modelsDir)
		for _, m := range missing {
			fmt.Fprintf(env.stderr, "note: model %s is not installed in %s; the reproduction runs without it\n", m, *modelsDir)
		}
	}
	names = append(names, evalSplitList(*modelDirs)...)
	if len(names) == 0 {
		return fmt.Errorf("no model to run: none of %s is installed in %s and no -model-dirs given", evalDefaultModels, *modelsDir)
	}
	cfg := experiment.Study()
	cfg.Data = evalSplitList(*data)
	cfg.Models = names
	cfg.Registry = evalRegistry()
	eng, err := parseEngineFlag(*engine)
	if err != nil {
		return err
	}
	cfg.ModelOptions = experiment.ModelOptions{Engine: eng, ModelsDir: *modelsDir, OrtLibrary: *ortLib}
	cfg.Seeds = *seeds
	cfg.Resamples = *resamples
	cfg.Cache = experiment.DirCache{Dir: *cacheDir}
	cfg.Version = buildVersion()
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	onEvent, done := eventPrinter(env.stderr, *quiet)
	res, err := experiment.Run(context.Background(), cfg, onEvent)
	done()
	if err != nil {
		return err
	}
	if _, err := evalWriteDir(*out, res); err != nil {
		return err
	}
	m := *machine
	if m == "" {
		m = fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	}
	var b bytes.Buffer
	err = report.Reproduction(&b, res, report.ReproductionOptions{
		Command:   reproduceCommand(args),
		Machine:   m,
		DropRates: experiment.StudyDropRates(),
	})
	if err != nil {
		return err
	}
	if *doc == "-" {
		_, err = env.stdout.Write(b.Bytes())
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*doc), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(*doc, b.Bytes(), 0o644); err != nil {
		return err
	}
	for _, f := range report.Findings(res) {
		fmt.Fprintln(env.stdout, f)
	}
	if !*quiet {
		fmt.Fprintf(env.stderr, "wrote %s and the eval outputs in %s\n", *doc, *out)
	}
	return nil
}

// reproduceCommand writes the command line as a shell would read it back:
// arguments holding spaces or quotes are single-quoted.
func reproduceCommand(args []string) string {
	parts := []string{"dreval", "reproduce"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$`\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
