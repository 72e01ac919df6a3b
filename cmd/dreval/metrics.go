package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/dreval/dreval/metrics"
)

func init() {
	register(&command{
		name:    "metrics",
		summary: "evaluate a TREC run against qrels (trec_eval-compatible output)",
		run:     runMetrics,
	})
}

// listFlag collects a repeatable flag such as -m.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// evalFlags are the flags metrics and compare share.
type evalFlags struct {
	qrels       string
	qrelsFormat string
	measures    listFlag
	convention  string
	complete    bool
	level       int
	format      string
}

func (f *evalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.qrels, "qrels", "", "relevance judgments `FILE` (TREC \"qid iter docid rel\", or BEIR tsv with or without its header)")
	fs.StringVar(&f.qrelsFormat, "qrels-format", "auto", "qrels format: auto, trec or beir")
	fs.Var(&f.measures, "m", "measures (`NAMES`), repeatable or comma-separated: trec/beir map P.5,10 ndcg_cut.10 recall.100 recip_rank Rprec success.1 num_q ... (P alone = trec_eval's default cut-offs; official, all_trec); st accuracy@k precision@k recall@k mrr@k ndcg@k map@k; dureader MRR@10 recall@1 recall@50. Default: trec_eval's official set (implemented part), st's paper set, or dureader's trio")
	fs.StringVar(&f.convention, "convention", "trec", "metric `convention`: "+conventionHelp())
	fs.BoolVar(&f.complete, "c", false, "average over every qrels query; a query missing from the run scores 0 (trec_eval -c)")
	fs.IntVar(&f.level, "l", 1, "relevance level: a document is relevant when its relevance is >= `N`")
	fs.StringVar(&f.format, "format", "text", "output format: text, json or csv")
}

// options checks the shared flags (with metrics.Request, as /api/metrics
// and the page check theirs) and loads the qrels.
func (f *evalFlags) options(defaultMeasures func(metrics.Convention) []metrics.Measure) (metrics.Qrels, []metrics.Measure, metrics.Options, error) {
	req := metrics.Request{Measures: f.measures, Convention: f.convention, QrelsFormat: f.qrelsFormat,
		Level: f.level, Complete: f.complete, Defaults: defaultMeasures}
	c, err := req.Check()
	if err != nil {
		return nil, nil, c.Options, requestFlagError(err)
	}
	switch f.format {
	case "text", "json", "csv":
	default:
		return nil, nil, c.Options, usageErrorf("-format %q: expected text, json or csv", f.format)
	}
	if f.qrels == "" {
		return nil, nil, c.Options, usageErrorf("-qrels FILE is required")
	}
	qrels, err := readQrelsFile(f.qrels, c.QrelsFormat)
	if err != nil {
		return nil, nil, c.Options, err
	}
	return qrels, c.Measures, c.Options, nil
}

// requestFlags are the flags of metrics.Request's fields.
var requestFlags = map[string]string{
	metrics.FieldMeasures:    "-m",
	metrics.FieldConvention:  "-convention",
	metrics.FieldQrelsFormat: "-qrels-format",
	metrics.FieldLevel:       "-l",
}

// requestFlagError returns a metrics.Request's error as a usage error
// naming the flag at fault.
func requestFlagError(err error) error {
	var re *metrics.RequestError
	if errors.As(err, &re) {
		cp := *re
		if name, ok := requestFlags[cp.Field]; ok {
			cp.Field = name
		}
		return usageErrorf("%v", &cp)
	}
	return err
}

func readQrelsFile(path string, format metrics.QrelsFormat) (metrics.Qrels, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return metrics.ReadQrelsFormat(fh, path, format)
}

// evaluateRunFile streams the run at path through the evaluation; an
// ungrouped run is re-read whole (the file can seek).
func evaluateRunFile(qrels metrics.Qrels, path string, ms []metrics.Measure, opts metrics.Options) (*metrics.Result, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	res, err := metrics.EvaluateReader(qrels, fh, path, ms, opts)
	if err != nil {
		return nil, fmt.Errorf("evaluating %s: %w", path, err)
	}
	return res, nil
}

// parseInterleaved parses flags that may come before, between or after
// positional arguments, and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// noteSkipped tells the user, on stderr, about queries that did not enter
// the averages as the convention decided, so that nothing is left out
// silently.
func noteSkipped(env *cliEnv, cmd, run string, res *metrics.Result) {
	if n := len(res.Ignored); n > 0 {
		fmt.Fprintf(env.stderr, "dreval %s: note: %s: %d run queries are not in the qrels and were ignored: %s\n", cmd, run, n, someIDs(res.Ignored))
	}
	if n := len(res.Missing); n > 0 {
		if res.MissingCounted() {
			fmt.Fprintf(env.stderr, "dreval %s: note: %s: %d qrels queries are not in the run and score 0: %s\n", cmd, run, n, someIDs(res.Missing))
		} else {
			fmt.Fprintf(env.stderr, "dreval %s: note: %s: %d qrels queries are not in the run and were left out of the averages (-c counts them as 0): %s\n", cmd, run, n, someIDs(res.Missing))
		}
	}
	if n := len(res.Dropped); n > 0 {
		fmt.Fprintf(env.stderr, "dreval %s: note: %s: %d queries have no relevant document and were dropped (%s convention): %s\n", cmd, run, n, res.Options.Convention, someIDs(res.Dropped))
	}
}

func someIDs(ids []string) string {
	const max = 5
	if len(ids) <= max {
		return strings.Join(ids, " ")
	}
	return strings.Join(ids[:max], " ") + fmt.Sprintf(" ... (%d more)", len(ids)-max)
}

func runMetrics(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "metrics", "-qrels FILE -run FILE [-m MEASURES] [-convention trec|st|beir|dureader] [-q] [-c] [-l N] [-format text|json|csv]")
	var ef evalFlags
	ef.register(fs)
	runPath := fs.String("run", "", "TREC run `FILE` (\"qid Q0 docid rank score tag\"; ordered by score, the rank column is ignored). It is streamed one query at a time; a run not grouped by query is then read again, whole")
	perQuery := fs.Bool("q", false, "print every query's values before the summary (\"all\")")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("unexpected argument %q (the run is given with -run)", pos[0])
	}
	if *runPath == "" {
		return usageErrorf("-run FILE is required")
	}
	qrels, ms, opts, err := ef.options(metrics.DefaultMeasures)
	if err != nil {
		return err
	}
	res, err := evaluateRunFile(qrels, *runPath, ms, opts)
	if err != nil {
		return err
	}
	noteSkipped(env, "metrics", *runPath, res)
	switch ef.format {
	case "json":
		return metrics.WriteJSON(env.stdout, res, *perQuery)
	case "csv":
		return metrics.WriteCSV(env.stdout, res, *perQuery)
	default:
		return metrics.WriteTREC(env.stdout, res, *perQuery)
	}
}

// conventionHelp lists the conventions of metrics' table with the tool
// each reproduces: "trec (trec_eval), st (sentence-transformers), ...".
func conventionHelp() string {
	var parts []string
	for _, c := range metrics.Conventions() {
		parts = append(parts, c.Name+" ("+c.Tool+")")
	}
	return strings.Join(parts, ", ")
}
