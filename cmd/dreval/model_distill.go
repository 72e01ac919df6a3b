package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/static"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/internal/progress"
	"github.com/dreval/dreval/modelfiles"
)

// modelDistill is the "dreval model distill" subcommand; model.go lists it
// in modelSubs.
var modelDistill = modelSub{
	name:    "distill",
	usage:   "[-models DIR] [-model NAME|DIR] [-dims N] [-out DIR] [-engine auto|go|ort] [-dtype f32|f16] [flags]",
	summary: "distil a static token-table model (Model2Vec recipe) from an installed BERT model",
	run:     runModelDistill,
}

const distillHelp = `
Every vocabulary id t runs through the model as "[CLS] t [SEP]"; its vector
is the mean of the three output rows. The vectors are reduced by PCA to
-dims components and weighted by a/(a+p(t)) (SIF, a = -sif, p a Zipf
estimate of frequency from the id order). The result is a model directory
(config.json with model_type "static", tokenizer.json, model.safetensors
with one "embeddings" tensor) that "dreval encode -model DIR" and
encoder/engine open: a text's vector is the L2-normalised mean of its
tokens' rows, [CLS], [SEP] and [PAD] left out. The output depends only on
the model, the flags and the engine (the engines differ in the last bits).`

func runModelDistill(env *cliEnv, fs *flag.FlagSet, args []string) error {
	models := modelsDirFlag(fs)
	model := fs.String("model", "minilm", "installed model `name` (under -models) or model directory to distil")
	dims := fs.Int("dims", 256, "embedding `dimensions` kept by PCA (at most the model's hidden size)")
	out := fs.String("out", "", "output model `directory` (default: \"static\" under -models)")
	engineFlag := fs.String("engine", "auto", "encoder `engine`: "+engine.Help())
	ortLib := fs.String("ort-lib", defaultORTLib(), "ONNX Runtime shared `library` (default from $DREVAL_ORT_LIB, else where make setup installs it)")
	dtype := fs.String("dtype", "f32", "stored element `type`: f32 or f16 (half the size)")
	sif := fs.Float64("sif", static.DefaultSIFCoefficient, "SIF `coefficient` a (0: no weighting)")
	limit := fs.Int("limit", 0, "distil only the first `N` ids (for tests: the result does not load with the model's full tokenizer)")
	batch := fs.Int("batch", 256, "ids per forward pass")
	threads := fs.Int("threads", 0, "goroutines (go) or intra-op threads (ort) (default: one per core)")
	quiet := fs.Bool("q", false, "no progress output")
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprintln(env.stderr, distillHelp)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	var dt safetensors.DType
	switch strings.ToLower(*dtype) {
	case "f32":
		dt = safetensors.F32
	case "f16":
		dt = safetensors.F16
	default:
		return usageErrorf("-dtype %q is not supported (use f32 or f16)", *dtype)
	}
	switch {
	case fs.NArg() > 0:
		return usageErrorf("unexpected arguments %q", fs.Args())
	case *model == "":
		return usageErrorf("-model is required")
	case *dims < 1:
		return usageErrorf("-dims must be at least 1, got %d", *dims)
	case *limit < 0:
		return usageErrorf("-limit must not be negative, got %d", *limit)
	case *batch < 1:
		return usageErrorf("-batch must be at least 1, got %d", *batch)
	case *threads < 0:
		return usageErrorf("-threads must not be negative, got %d", *threads)
	case *sif < 0:
		return usageErrorf("-sif must not be negative, got %v", *sif)
	}
	eng, err := parseEngineFlag(*engineFlag)
	if err != nil {
		return err
	}
	src, err := resolveModel(*model, *models)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(*models, "static")
	}
	if absPath(*out) == absPath(src) {
		return fmt.Errorf("-out %s is the source model's directory; choose another", *out)
	}

	m, err := engine.Open(modelfiles.OSDir(src), engine.Options{Engine: string(eng), ORTLibrary: *ortLib, Encoder: transformer.Options{Threads: *threads}})
	if err != nil {
		return err
	}
	defer m.Close()
	var fwd static.Forwarder
	switch e := m.Embedder().(type) {
	case *bert.Embedder:
		fwd = e.Model
	case *ort.Embedder:
		fwd = e
	default:
		return fmt.Errorf("%s: cannot distil a %s model; distil a BERT-family model", src, m.Info.Engine)
	}
	tok := m.Tokenizer()
	specials := tok.EncodeWith("", tokenizer.Options{AddSpecial: true}).IDs
	if len(specials) != 2 {
		return fmt.Errorf("%s: the tokenizer puts %d special tokens around a text; distillation needs the BERT template [CLS] text [SEP]", src, len(specials))
	}
	n := tok.VocabSize()
	if *limit > 0 {
		n = min(n, *limit)
	}
	fmt.Fprintf(env.stderr, "distilling %s: %d ids, engine %s\n", src, n, m.Info)

	a := *sif
	if a == 0 {
		a = -1 // no weighting
	}
	o := static.DistillOptions{Vocab: tok.VocabSize(), Limit: *limit, Dims: *dims, Prefix: specials[:1], Suffix: specials[1:],
		SIFCoefficient: a, BatchSize: *batch}
	var bar *progress.Bar
	if !*quiet {
		bar = progress.New(env.stderr)
		o.Progress = func(done, total int) { bar.Update("distilling", done, total, "ids") }
	}
	start := time.Now()
	table, err := static.Distill(fwd, o)
	if bar != nil {
		bar.Done()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	el := time.Since(start)

	tokJSON, err := os.ReadFile(filepath.Join(src, static.TokenizerFile))
	if err != nil {
		return err
	}
	srcFP, err := sourceFingerprint(src)
	if err != nil {
		return err
	}
	cfg := static.Config{
		MaxLength:         m.MaxLength(),
		Source:            filepath.Base(filepath.Clean(src)),
		SourceFingerprint: srcFP,
		Engine:            m.Info.Engine,
		Recipe:            static.Recipe,
		SIFCoefficient:    *sif,
	}
	if err := static.Save(*out, table, tokJSON, cfg, dt); err != nil {
		return err
	}
	fi, err := os.Stat(filepath.Join(*out, static.WeightsFile))
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "wrote %s: %d x %d %s table (%.1f MiB), distilled in %.1fs with engine %s\n",
		*out, table.Shape[0], table.Shape[1], dt, float64(fi.Size())/(1<<20), el.Seconds(), m.Info.Engine)
	return nil
}

// sourceFingerprint returns the hex SHA-256 over the source model's
// config.json and weight files (each preceded by its name): what the
// distilled table depends on besides the flags and the engine.
func sourceFingerprint(dir string) (string, error) {
	h := sha256.New()
	names := []string{"config.json"}
	for _, w := range modelfiles.Weights() {
		if fileExists(filepath.Join(dir, w)) {
			names = append(names, w)
			break
		}
	}
	for _, name := range names {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00", name)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return a
}
