package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/dataset/download"
	"github.com/dreval/dreval/internal/progress"
)

func init() {
	register(&command{
		name:    "dataset",
		summary: "download a BEIR dataset (get) or show what a collection holds (info)",
		run:     runDataset,
	})
}

const datasetUsage = `get NAME [-data-dir DIR] [-base-url URL] [-md5 SUM]
       dreval dataset info demo|DIR [-split SPLIT]

get downloads BEIR's archive NAME.zip, checks the md5 BEIR publishes for
it, unpacks it into DIR/NAME and prints the counts of documents, queries
and judgments per split. info loads the built-in demo collection or a
BEIR-layout folder and prints its counts and warnings.`

func runDataset(env *cliEnv, args []string) error {
	if len(args) == 0 {
		return usageErrorf("missing subcommand: get or info")
	}
	switch args[0] {
	case "get":
		return runDatasetGet(env, args[1:])
	case "info":
		return runDatasetInfo(env, args[1:])
	case "-h", "-help", "--help", "help":
		newFlagSet(env, "dataset", datasetUsage).Usage()
		return flag.ErrHelp
	}
	return usageErrorf("unknown subcommand %q: want get or info", args[0])
}

// parseDatasetArgs parses flags that may come before or after the
// positional arguments ("get NAME -data-dir DIR") and returns the latter.
func parseDatasetArgs(flags *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := flags.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageErrorf("%v", err)
		}
		args = flags.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// defaultDataDir is $DREVAL_DATA, else <user cache dir>/dreval/datasets.
func defaultDataDir() string {
	if d := os.Getenv("DREVAL_DATA"); d != "" {
		return d
	}
	c, err := os.UserCacheDir()
	if err != nil {
		c = os.TempDir()
	}
	return filepath.Join(c, "dreval", "datasets")
}

func runDatasetGet(env *cliEnv, args []string) error {
	flags := newFlagSet(env, "dataset get", "NAME [-data-dir DIR] [-base-url URL] [-md5 SUM]")
	dataDir := flags.String("data-dir", defaultDataDir(), "folder that receives NAME/; $DREVAL_DATA sets the default")
	baseURL := flags.String("base-url", download.DefaultBaseURL, "where NAME.zip is downloaded from")
	sum := flags.String("md5", "", "expected md5 of NAME.zip, for a mirror or a dataset BEIR publishes no sum for")
	pos, err := parseDatasetArgs(flags, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("want one dataset NAME, got %d arguments; known: %s", len(pos), strings.Join(sortedKeys(download.BEIRMD5()), ", "))
	}
	name := pos[0]
	bar := progress.New(env.stderr)
	opt := download.Options{BaseURL: *baseURL, Progress: downloadProgress(bar, name)}
	if *sum != "" {
		if b, err := hex.DecodeString(*sum); err != nil || len(b) != 16 {
			return usageErrorf("-md5 %q is not 32 hexadecimal digits", *sum)
		}
		opt.MD5 = map[string]string{name: *sum}
	}
	dir, err := download.Get(context.Background(), name, *dataDir, opt)
	bar.Done()
	switch {
	case errors.Is(err, fs.ErrExist):
		fmt.Fprintf(env.stderr, "%s exists already; not downloading it again (remove it to start over)\n", dir)
	case err != nil:
		return err
	default:
		fmt.Fprintf(env.stderr, "unpacked into %s; counting\n", dir)
	}
	s, err := dataset.Summarize(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "dataset\t%s\ndir\t%s\ndocs\t%d\nqueries\t%d\n", name, dir, s.Docs, s.Queries)
	for _, sp := range s.Splits {
		fmt.Fprintf(env.stdout, "qrels\t%s\t%d queries\t%d judgments\n", sp.Name, sp.Queries, sp.Judgments)
	}
	return nil
}

// downloadProgress draws download.Get's progress for dataset name on bar.
func downloadProgress(bar *progress.Bar, name string) func(stage string, done, total int64) {
	return func(stage string, done, total int64) {
		bar.Update(stage+" "+name, kib(done), kib(total), "KiB")
	}
}

// kib returns n bytes in whole KiB for a progress.Bar, and -1 (no total
// known) for a negative n.
func kib(n int64) int {
	if n < 0 {
		return -1
	}
	return int(n >> 10)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func runDatasetInfo(env *cliEnv, args []string) error {
	flags := newFlagSet(env, "dataset info", "demo|DIR [-split SPLIT]")
	split := flags.String("split", "test", "qrels split (qrels/SPLIT.tsv)")
	pos, err := parseDatasetArgs(flags, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("want one collection (demo or a folder), got %d arguments", len(pos))
	}
	c, err := dataset.Load(pos[0], *split)
	if err != nil {
		return err
	}
	s := c.Stats()
	fmt.Fprintf(env.stdout, "collection\t%s\nsplit\t%s\ndocs\t%d\nqueries\t%d\n", c.Name, *split, s.Docs, s.Queries)
	if c.NoQrels {
		// No judgments at all: counting every query "unjudged" would read
		// as a defect of qrels that do not exist.
		fmt.Fprintf(env.stdout, "qrels\tnone (answers only)\n")
	} else {
		fmt.Fprintf(env.stdout, "judged queries\t%d\nunjudged queries\t%d\njudgments\t%d\n", s.JudgedQueries, s.UnjudgedQueries, s.Judgments)
	}
	grades := make([]int, 0, len(s.Grades))
	for g := range s.Grades {
		grades = append(grades, g)
	}
	sort.Ints(grades)
	for _, g := range grades {
		fmt.Fprintf(env.stdout, "grade %d\t%d\n", g, s.Grades[g])
	}
	if c.Answers != nil {
		fmt.Fprintf(env.stdout, "answers\t%d queries\n", len(c.Answers))
		if c.NoQrels {
			fmt.Fprintf(env.stdout, "queries with answers\t%d\n", s.AnsweredQueries)
		}
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(env.stderr, "warning: %s\n", w)
	}
	return nil
}
