package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/dreval/dreval/dataset/download"
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/progress"
	"github.com/dreval/dreval/report"
)

func init() {
	register(&command{
		name:    "reproduce",
		summary: "run the perturbation study's protocol (idshift at 0, 5, 10, 20%, 5 seeds, every model) and write its tables and docs/reproduction.md",
		run:     runReproduce,
	})
}

// reproduceDefaultData are the collections reproduce runs by default: the
// study's own BEIR collections, fetched into -data-dir on first use.
const reproduceDefaultData = "fiqa,hotpotqa,quora"

// reproduceBEIR is where reproduce fetches the BEIR collections -data
// names: the zero value means BEIR's host and the md5 sums BEIR
// publishes. Tests point it at a local stand-in.
var reproduceBEIR download.Options

const reproduceUsage = `[-data NAME|DIR|demo[,...]] [-data-dir DIR] [-models minilm,static,bm25] [-model-dirs DIR[,DIR...]] [-seeds 5] [-out DIR] [-doc FILE]

Runs the study's protocol with dreval eval's pipeline: the faithful idshift
perturbation (special tokens perturbed, out-of-vocabulary ids redrawn) at
rates 0, 5%, 10% and 20%, -seeds seeds (the protocol's 5 by default), every
installed model of minilm, static and bm25 plus any -model-dirs, on every
collection. Writes eval's outputs into -out and the study's table shapes
(Table 1 examples, Tables 5-7 per dataset, Table 2 average, Table 3 average
drop at 5% and 20%) with the findings paragraph, generated from the
numbers, into -doc.

By default the collections are the study's: BEIR's fiqa, hotpotqa and
quora. A BEIR dataset name in -data means -data-dir/NAME; one not there
yet is downloaded first, as "dreval dataset get NAME" does (md5-checked,
progress on stderr), after saying how large it is. -data demo runs
offline on the built-in demo collection; write ./NAME for a folder of
that name in the working directory.`

func runReproduce(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "reproduce", reproduceUsage)
	data := fs.String("data", reproduceDefaultData, "collections, comma-separated: BEIR dataset `NAMES` (fetched into -data-dir on first use), BEIR-layout folders, or demo")
	dataDir := fs.String("data-dir", defaultDataDir(), "`folder` that holds the BEIR datasets -data names, and receives those not there yet; $DREVAL_DATA sets the default")
	models := fs.String("models", evalDefaultModels, "models, comma-separated (by default, those of the defaults that are installed)")
	modelDirs := fs.String("model-dirs", "", "more model `DIRS` to run, comma-separated")
	modelsDir := fs.String("models-dir", defaultModelsDir(), "`directory` of installed models")
	seeds := fs.Int("seeds", experiment.StudySeeds, "`number` of seeds per rate > 0 (the protocol: 5)")
	out := fs.String("out", "out/reproduce", "output `directory` of the eval outputs")
	doc := fs.String("doc", "docs/reproduction.md", "the reproduction document to write (- for standard output)")
	machine := fs.String("machine", "", "machine description for the document (default: GOOS/GOARCH and CPU count)")
	engine := fs.String("engine", "auto", "encoder `engine`: "+engine.Help())
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
	// The study scored every model by cosine ("we used cosine
	// similarity"): the protocol overrides each model's own score.
	cfg.ModelOptions = experiment.ModelOptions{Engine: eng, ModelsDir: *modelsDir, OrtLibrary: *ortLib, Score: experiment.StudyScore}
	cfg.Seeds = *seeds
	cfg.Resamples = *resamples
	cfg.Cache = experiment.DirCache{Dir: *cacheDir}
	cfg.Version = buildVersion()
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	if cfg.Data, err = reproduceData(env, cfg.Data, *dataDir, *quiet); err != nil {
		return err
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

// reproduceData maps -data's entries to the collections the experiment
// loads: demo and folders as they are, a BEIR dataset name to dataDir/NAME.
// A named collection already in dataDir is used as it is, with no network
// access; the others are fetched first by dataset get's code: reproduce
// says on stderr how large they are (the archive's size as the server
// announces it, and the corpus and queries BEIR's README states), then
// downloads and unpacks each, md5-checked, with progress on stderr unless
// quiet.
func reproduceData(env *cliEnv, entries []string, dataDir string, quiet bool) ([]string, error) {
	sums := reproduceBEIR.MD5
	if sums == nil {
		sums = download.BEIRMD5()
	}
	out := make([]string, len(entries))
	var missing []string
	for i, e := range entries {
		if _, beir := sums[e]; !beir {
			out[i] = e
			continue
		}
		out[i] = filepath.Join(dataDir, e)
		if _, err := os.Stat(out[i]); errors.Is(err, fs.ErrNotExist) && !slices.Contains(missing, e) {
			missing = append(missing, e)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	ctx := context.Background()
	base := reproduceBEIR.BaseURL
	if base == "" {
		base = download.DefaultBaseURL
	}
	fmt.Fprintf(env.stderr, "reproduce: downloading into %s what it does not hold yet, from %s (md5-checked):\n", dataDir, base)
	published := download.BEIRPublished()
	var total int64
	var headErr error // once asking fails, the host is not asked again
	unknown := false
	for _, name := range missing {
		n := int64(-1)
		if headErr == nil {
			hctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			n, headErr = download.ArchiveSize(hctx, name, reproduceBEIR)
			cancel()
		}
		size := reproduceBytes(n)
		switch {
		case headErr != nil:
			size, unknown = "size unknown", true
		case n < 0:
			size, unknown = "size unknown (the server announces none)", true
		default:
			total += n
		}
		line := fmt.Sprintf("  %-14s %s", name+".zip", size)
		if p, ok := published[name]; ok {
			line += fmt.Sprintf("; BEIR's README: %s documents, %s queries", p.Corpus, reproduceThousands(p.Queries))
		}
		fmt.Fprintln(env.stderr, line)
	}
	if headErr != nil {
		fmt.Fprintf(env.stderr, "  (asking the size failed: %v)\n", headErr)
	}
	if len(missing) > 1 && total > 0 {
		at := ""
		if unknown {
			at = "at least "
		}
		fmt.Fprintf(env.stderr, "  total          %s%s to download\n", at, reproduceBytes(total))
	}
	fmt.Fprintln(env.stderr, "  (-data demo runs offline on the built-in demo collection instead)")
	for _, name := range missing {
		opt := reproduceBEIR
		var bar *progress.Bar
		if !quiet {
			bar = progress.New(env.stderr)
			opt.Progress = downloadProgress(bar, name)
		}
		_, err := download.Get(ctx, name, dataDir, opt)
		if bar != nil {
			bar.Done()
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("fetching BEIR dataset %s into %s failed: %w; "+
				"to run without network, use -data demo (the built-in demo collection) "+
				"or -data DIR[,DIR...] (BEIR-layout folders you have)", name, dataDir, err)
		}
	}
	return out, nil
}

// reproduceBytes writes n bytes in the largest binary unit that keeps a
// whole part, such as "17.1 MiB".
func reproduceBytes(n int64) string {
	const units = "KMGT"
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, units[i])
}

// reproduceThousands writes n with a comma between groups of three
// digits, as BEIR's README does (7,405).
func reproduceThousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
