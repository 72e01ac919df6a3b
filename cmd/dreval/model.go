package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dreval/dreval/encoder/modelstore"
	"github.com/dreval/dreval/internal/progress"
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
	{"get", "[-models DIR] NAME...", "install models from the catalogue, checking their integrity hashes", runModelGet},
	{"list", "[-models DIR]", "list the catalogue and which models are installed", runModelList},
	modelExportONNX,
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
// or a directory holding config.json, else the installed model of that
// name under modelsDir. The directory must hold config.json; the error
// says which directory lacked it and how to install a model.
func resolveModel(name, modelsDir string) (string, error) {
	isPath := strings.ContainsAny(name, `/\`) || name == "." || name == ".."
	if !isPath && fileExists(filepath.Join(name, "config.json")) {
		return name, nil
	}
	if isPath {
		if _, err := os.Stat(filepath.Join(name, "config.json")); err != nil {
			return "", fmt.Errorf("-model %s: not a model directory (is it a model directory? it has no config.json; \"dreval model get\" installs one): %w", name, err)
		}
		return name, nil
	}
	dir := filepath.Join(modelsDir, name)
	if !fileExists(filepath.Join(dir, "config.json")) {
		return "", fmt.Errorf("model %q is not installed in %s; run \"dreval model get %s\" (or pass a model directory: is %s a model directory? it has no config.json)", name, modelsDir, name, dir)
	}
	return dir, nil
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
		models = append(models, m)
	}
	for _, m := range models {
		in := &modelstore.Installer{Dir: *dir}
		var bar *progress.Bar
		if !*quiet {
			bar = progress.New(env.stderr)
			in.Progress = func(done, total int64) { bar.Update("download "+m.Name, kib(done), kib(total), "KiB") }
		}
		downloaded, err := in.Install(context.Background(), m)
		if bar != nil {
			bar.Done()
		}
		if err != nil {
			return err
		}
		if downloaded {
			fmt.Fprintf(env.stdout, "installed %s in %s\n", m.Name, in.Path(m))
		} else {
			fmt.Fprintf(env.stdout, "%s is already installed in %s (files checked); nothing downloaded\n", m.Name, in.Path(m))
		}
	}
	return nil
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
	for _, m := range modelstore.Catalogue() {
		state := "not installed"
		if in.Check(m) == nil {
			state = "installed in " + in.Path(m)
		}
		fmt.Fprintf(env.stdout, "%-10s %s\n           %s\n", m.Name, state, m.Description)
	}
	return nil
}

func catalogueNames() string {
	var names []string
	for _, m := range modelstore.Catalogue() {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
