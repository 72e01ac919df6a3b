package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dreval/dreval/answer"
	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/report"
	"github.com/dreval/dreval/report/ratechart"
	"github.com/dreval/dreval/results"
	"github.com/dreval/dreval/spec"
	"github.com/dreval/dreval/ui"
)

func init() {
	register(&command{
		name:    "eval",
		summary: "run the robustness experiment: models x datasets x perturbation rates x seeds, with tables, charts and a report",
		run:     runEval,
	})
}

const evalUsage = `[-data demo|DIR[,DIR...]] [-models minilm,static,bm25] [-task ir|dpr|dureader] [-perturb idshift] [-rates 0,0.05,0.1,0.2] [-seeds 5] [-k 100] [-out DIR] [-quiet]

Encodes each corpus once (cached by model and corpus hash; the tokenizer's
fingerprint is stored beside the vectors and checked), runs the judged
queries clean and perturbed at every rate with every seed, scores every run
under the st and trec conventions, compares each rate with the clean run
(paired randomization and t-tests, bootstrap CI), prints the main table and
writes into -out: results.json, runs/*.trec (score them with
"dreval metrics -c -qrels qrels/<dataset>.qrels -run ..."), tables
(tables.md, tables.tex, tables/*.csv), examples.md, ndcg_vs_rate.svg and
report.html.

-task dpr adds DPR's answer-span top-k accuracy (answers.jsonl; yes/no
questions count as misses and are reported), and dense models encode
"title [SEP] text"; -task dureader adds the dureader convention and the
answer accuracy of DuReader's extractive answers (string and substring).

A DPR-style folder (corpus.jsonl, queries.jsonl, answers.jsonl and no
qrels/ folder) needs no relevance judgments: with -task dpr its questions
with answers are searched and the answer accuracy is its only measure
(results.json says "qrels_absent": true); -task ir refuses it.

-corpus-embeddings DIR takes the dense models' corpus vectors from the
shards in DIR (every "dreval encode -model M -side document -in
corpus.jsonl -shard I/N" of the corpus, or the Beam pipeline's embeddings/)
instead of encoding the corpus: each model reads the shards its document
tower made (the fingerprints in their .json), whose tokenizer must be the
model's and whose ids the corpus's, in order; anything else is an error.`

// evalMachineFlags are the flags of eval that say where things are on
// this machine, not what the experiment is: the ones -spec allows.
var evalMachineFlags = map[string]bool{
	"out": true, "models-dir": true, "ort-lib": true, "cache": true, "no-cache": true,
	"corpus-embeddings": true, "quiet": true,
}

// evalRegistry returns the models eval can open; tests replace it.
var evalRegistry = experiment.DefaultRegistry

// evalDefaultModels are the models eval runs when -models is not given
// (those of them that are installed).
const evalDefaultModels = "minilm,static,bm25"

// evalInstalled splits the default models into those installed in dir and
// those missing: a dense model needs dir/<name>/config.json, bm25 the
// minilm tokenizer.
func evalInstalled(names []string, dir string) (installed, missing []string) {
	for _, n := range names {
		need := filepath.Join(dir, n, "config.json")
		if fileExists(filepath.Join(dir, n, modelfiles.ManifestFile)) {
			need = filepath.Join(dir, n, modelfiles.ManifestFile)
		}
		if n == "bm25" {
			need = filepath.Join(dir, "minilm", "tokenizer.json")
		}
		if _, err := os.Stat(need); err != nil {
			missing = append(missing, n)
			continue
		}
		installed = append(installed, n)
	}
	return installed, missing
}

func runEval(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "eval", evalUsage)
	data := fs.String("data", "demo", "datasets: \"demo\" or BEIR-layout `DIRS`, comma-separated")
	split := fs.String("split", "test", "qrels `split`")
	models := fs.String("models", evalDefaultModels, "models, comma-separated: "+strings.Join(evalRegistry().Names(), ", ")+", or model directories (by default, those of the defaults that are installed)")
	modelsDir := fs.String("models-dir", defaultModelsDir(), "`directory` of installed models (default from $DREVAL_MODELS, else the user cache directory)")
	mode := fs.String("perturb", "idshift", "perturbation `mode`: "+perturb.ModeNames()+" (dreval perturb -h says what each does)")
	oov := fs.String("oov", "redraw", "idshift: what to do with ids shifted past the vocabulary: redraw, clamp, wrap or error")
	protect := fs.Bool("protect-special", false, "leave special tokens ([CLS], [SEP]) unperturbed (the paper perturbs them)")
	rates := fs.String("rates", "0,0.05,0.1,0.2", "perturbation `rates` in [0,1], comma-separated; the clean run (0) is always made, since every comparison needs it")
	seeds := fs.Int("seeds", experiment.DefaultSeeds, "`number` of seeds per rate > 0")
	k := fs.Int("k", experiment.DefaultK, "documents retrieved per query")
	out := fs.String("out", "out/eval", "output `directory`, checked (created if missing) before anything is computed; an earlier eval's files in it that this one does not write are removed")
	engine := fs.String("engine", "auto", "encoder `engine`: "+engine.Help())
	ortLib := fs.String("ort-lib", defaultORTLib(), "ONNX Runtime shared `library` for -engine ort/auto (default from $DREVAL_ORT_LIB, else where make setup installs it)")
	bm25Tok := fs.String("bm25-tokenizer", "", "tokenizer.json `FILE` bm25 perturbs and decodes queries with (default: minilm's); for Chinese use bert-base-chinese's")
	analyzer := fs.String("analyzer", "wordpiece", "BM25 analyser: wordpiece (the minilm tokenizer's tokens), words, or bigram (CJK character bigrams, for Chinese)")
	score := fs.String("score", "model", "how dense models score: model (each model's own: its similarity_fn_name, dreval.json or family), cos or dot")
	queryPrompt := fs.String("query-prompt", "", "`text` put before every query instead of the models' query prompts (-no-prompts for none)")
	docPrompt := fs.String("doc-prompt", "", "`text` put before every document instead of the models' document prompts")
	noPrompts := fs.Bool("no-prompts", false, "put no prompt before queries or documents, whatever the models say")
	cacheDir := fs.String("cache", evalDefaultCacheDir(), "corpus embedding cache `directory`")
	noCache := fs.Bool("no-cache", false, "neither read nor write the corpus embedding cache")
	corpusEmb := fs.String("corpus-embeddings", "", "`DIR` of precomputed corpus embedding shards (\"dreval encode -shard I/N\", or the Beam pipeline's embeddings/): dense models read their document tower's shards from it, fingerprints and ids checked, instead of encoding the corpus")
	examples := fs.Int("examples", experiment.DefaultExamples, "decoded perturbed queries kept per model and rate")
	resamples := fs.Int("resamples", experiment.DefaultResamples, "randomization-test and bootstrap resamples")
	quiet := fs.Bool("quiet", false, "no progress output on stderr (warnings are still shown)")
	task := fs.String("task", "ir", "what to score beside st and trec: ir (qrels only), dpr (also DPR's answer-span top-k accuracy with answers.jsonl) or dureader (also the dureader convention, MRR@10 recall@1 recall@50, and the answer accuracy of the extractive answers)")
	match := fs.String("match", "", "answer matching `modes`, comma-separated: string (DPR's token match), substring, regex (default: string for -task dpr; string,substring for -task dureader)")
	answerKs := fs.String("answer-k", "1,5,20,100", "answer accuracy cut-offs, comma-separated")
	passageText := fs.String("passage-text", "auto", "dense models encode documents as DPR passages, \"title [SEP] text\": on, off or auto (on for -task dpr)")
	specFile := fs.String("spec", "", "run the experiment a spec `FILE` describes: a JSON spec, or a results.json (its \"spec\"); flags that describe the experiment are then refused, those of this machine (-out, -models-dir, -ort-lib, -cache, -no-cache, -corpus-embeddings, -quiet) apply")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	var sp *spec.Spec
	if *specFile != "" {
		var conflict []string
		fs.Visit(func(f *flag.Flag) {
			if !evalMachineFlags[f.Name] && f.Name != "spec" {
				conflict = append(conflict, "-"+f.Name)
			}
		})
		if len(conflict) > 0 {
			return usageErrorf("-spec %s describes the whole experiment: %s would change it (edit the spec instead)", *specFile, strings.Join(conflict, ", "))
		}
		var err error
		if sp, err = spec.ReadFile(*specFile); err != nil {
			return err
		}
	}
	modelNames := evalSplitList(*models)
	modelsGiven := sp != nil
	fs.Visit(func(f *flag.Flag) { modelsGiven = modelsGiven || f.Name == "models" })
	if !modelsGiven {
		var missing []string
		modelNames, missing = evalInstalled(modelNames, *modelsDir)
		for _, m := range missing {
			fmt.Fprintf(env.stderr, "note: default model %s is not installed in %s (\"make setup\" installs it); running without it\n", m, *modelsDir)
		}
		if len(modelNames) == 0 {
			return fmt.Errorf("none of the default models (%s) is installed in %s: run \"make setup\", or name models with -models", evalDefaultModels, *modelsDir)
		}
	}
	eng, err := parseEngineFlag(*engine)
	if err != nil {
		return err
	}
	an, err := experiment.ParseAnalyzer(*analyzer)
	if err != nil {
		return usageErrorf("-analyzer: %v", err)
	}
	cfg := experiment.Config{
		Data:     evalSplitList(*data),
		Split:    *split,
		Models:   modelNames,
		Registry: evalRegistry(),
		ModelOptions: experiment.ModelOptions{
			Engine: eng, ModelsDir: *modelsDir, Analyzer: an,
			OrtLibrary: *ortLib, BM25Tokenizer: *bm25Tok,
		},
		Seeds:     *seeds,
		K:         *k,
		Examples:  *examples,
		Resamples: *resamples,
		Version:   buildVersion(),
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
	if err := evalTaskFlags(&cfg, *task, *match, *answerKs, *passageText); err != nil {
		return err
	}
	if err := evalScoreFlags(&cfg.ModelOptions, *score, *queryPrompt, *docPrompt, *noPrompts); err != nil {
		return err
	}
	// The flags describe a Spec (what results.json records); the run is
	// the Spec's, with this machine's ports.
	if sp == nil {
		s := cfg.Spec()
		sp = &s
	}
	if cfg, err = experiment.FromSpec(*sp); err != nil {
		if *specFile != "" {
			return fmt.Errorf("%s: %w", *specFile, err)
		}
		return usageErrorf("%v", err)
	}
	cfg.Registry, cfg.Version = evalRegistry(), buildVersion()
	cfg.ModelOptions.ModelsDir, cfg.ModelOptions.OrtLibrary = *modelsDir, *ortLib
	if !*noCache {
		cfg.Cache = experiment.DirCache{Dir: *cacheDir}
	}
	if *corpusEmb != "" {
		if st, err := os.Stat(*corpusEmb); err != nil || !st.IsDir() {
			return usageErrorf("-corpus-embeddings %s: not a folder", *corpusEmb)
		}
		cfg.Embeddings = experiment.ShardDir{Dir: *corpusEmb}
	}
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	earlier, err := evalPrepareOut(*out)
	if err != nil {
		return err
	}

	// Warnings always reach stderr; -quiet silences the progress.
	onEvent, done := eventPrinter(env.stderr, *quiet)
	res, err := experiment.Run(context.Background(), cfg, onEvent)
	done()
	if errors.Is(err, experiment.ErrNoQrels) {
		return usageErrorf("%v", err)
	}
	if err != nil {
		return err
	}
	written, err := evalWriteDir(*out, res)
	if err != nil {
		return err
	}
	if earlier {
		removed, err := evalRemoveStale(*out, written)
		if len(removed) > 0 {
			fmt.Fprintln(env.stderr, evalStaleNote(*out, removed))
		}
		if err != nil {
			return err
		}
	}
	if err := report.Summary(env.stdout, res); err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(env.stderr, "wrote %d files to %s (report.html, results.json, tables.md, runs/)\n", len(written), *out)
	}
	return nil
}

// evalWriteDir writes eval's output directory: report's files with the
// rate charts of package ratechart and report.html of package ui.
func evalWriteDir(dir string, res *results.Results) ([]string, error) {
	charts, err := ratechart.Files(res)
	if err != nil {
		return nil, err
	}
	return report.WriteDir(dir, res, report.Extras{Charts: charts, Page: ui.ReportHTML})
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

// evalDefaultOrtLib is defaultORTLib; serve.go uses this name.
func evalDefaultOrtLib() string { return defaultORTLib() }

// parseEngineFlag reads an -engine flag (experiment.ParseEngine).
func parseEngineFlag(s string) (experiment.Engine, error) {
	e, err := experiment.ParseEngine(s)
	if err != nil {
		names := make([]string, 0, 3)
		for _, e := range experiment.Engines() {
			names = append(names, string(e))
		}
		return "", usageErrorf("-engine %q is not known (known: %s)", s, strings.Join(names, ", "))
	}
	return e, nil
}

// evalScoreFlags sets the score and prompt overrides of o from the
// -score, -query-prompt, -doc-prompt and -no-prompts flags.
func evalScoreFlags(o *experiment.ModelOptions, score, queryPrompt, docPrompt string, noPrompts bool) error {
	if score != "model" {
		s, err := encoder.ParseSimilarity(score)
		if err != nil {
			return usageErrorf("-score: %v (or model)", err)
		}
		o.Score = s
	}
	if noPrompts && (queryPrompt != "" || docPrompt != "") {
		return usageErrorf("-no-prompts excludes -query-prompt and -doc-prompt")
	}
	switch {
	case noPrompts:
		o.QueryPrompt, o.DocumentPrompt = new(string), new(string)
	default:
		if queryPrompt != "" {
			o.QueryPrompt = &queryPrompt
		}
		if docPrompt != "" {
			o.DocumentPrompt = &docPrompt
		}
	}
	return nil
}

// evalTaskFlags sets the task fields of cfg from the -task, -match,
// -answer-k and -passage-text flags.
func evalTaskFlags(cfg *experiment.Config, task, match, ks, passageText string) error {
	t, err := experiment.ParseTask(task)
	if err != nil {
		return usageErrorf("-task: %v", err)
	}
	cfg.Task = t
	if match != "" {
		if t == experiment.TaskIR {
			return usageErrorf("-match is for -task dpr or dureader")
		}
		for _, m := range evalSplitList(match) {
			mode, err := answer.ParseMode(m)
			if err != nil {
				return usageErrorf("-match: %v", err)
			}
			if slices.Contains(cfg.AnswerModes, mode) {
				return usageErrorf("-match: %s is listed twice", mode)
			}
			cfg.AnswerModes = append(cfg.AnswerModes, mode)
		}
	}
	if t != experiment.TaskIR {
		k, err := parseAnswerKs(ks)
		if err != nil {
			return usageErrorf("-answer-k: %v", err)
		}
		cfg.AnswerKs = k
	}
	switch passageText {
	case "auto":
		cfg.PassageText = t == experiment.TaskDPR
	case "on":
		cfg.PassageText = true
	case "off":
	default:
		return usageErrorf("-passage-text %q: want on, off or auto", passageText)
	}
	return nil
}
