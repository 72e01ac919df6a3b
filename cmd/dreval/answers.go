package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/dreval/dreval/answer"
	"github.com/dreval/dreval/metrics"
)

func init() {
	register(&command{
		name:    "answers",
		summary: "answer-span top-k accuracy of a run (DPR's retrieval accuracy)",
		run:     runAnswers,
	})
}

func runAnswers(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "answers", "-answers FILE -passages FILE -run FILE [flags]")
	answersPath := fs.String("answers", "", "answers `FILE`: answers.jsonl ({\"query-id\", \"answers\": [...]}) or a DPR question file (tsv or JSON lines; question ids are 0-based line positions)")
	field := fs.String("field", "answers", "answers.jsonl field holding the answer list (DuReader's extractive answers: fake_answers)")
	passagesPath := fs.String("passages", "", "passages `FILE`: DPR tsv (id, text, title) or BEIR corpus.jsonl; only the text is searched, as in DPR")
	runPath := fs.String("run", "", "TREC run `FILE` (qid Q0 docid rank score tag), ordered by score with the trec tie rule")
	ksFlag := fs.String("k", "1,5,20,100", "cut-offs, comma-separated")
	match := fs.String("match", "string", "answer matching: string (DPR's token match), regex (CuratedTREC patterns) or substring (white space removed; for Chinese)")
	yesno := fs.String("yesno", "match", "questions whose answers are all yes/no: match (matched as ordinary strings, as DPR's code does; right where answers are spans, as in SQuAD) or miss (unanswerable by span, counted as misses)")
	unanswerable := fs.String("unanswerable", "", "`FILE` of question ids (one per line) to count as unanswerable by span (misses), e.g. HotpotQA's yesno_query_ids.txt")
	check := fs.Bool("check-collection", true, "also list the questions no passage of the collection answers (suffix array over all passages; turn off for corpora that do not fit in memory)")
	format := fs.String("format", "text", "output format: text or json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	case *answersPath == "":
		return usageErrorf("-answers is required")
	case *passagesPath == "":
		return usageErrorf("-passages is required")
	case *runPath == "":
		return usageErrorf("-run is required")
	case *format != "text" && *format != "json":
		return usageErrorf("-format %q: want text or json", *format)
	case *yesno != "miss" && *yesno != "match":
		return usageErrorf("-yesno %q: want miss or match", *yesno)
	}
	mode, err := answer.ParseMode(*match)
	if err != nil {
		return usageErrorf("-match: %v", err)
	}
	ks, err := parseAnswerKs(*ksFlag)
	if err != nil {
		return usageErrorf("-k: %v", err)
	}
	questions, err := readAnswerQuestions(*answersPath, *field)
	if err != nil {
		return err
	}
	docs, err := readAnswerPassages(*passagesPath)
	if err != nil {
		return err
	}
	passages, err := answer.NewPassages(docs)
	if err != nil {
		return fmt.Errorf("%s: %w", *passagesPath, err)
	}
	run, err := readAnswersRun(*runPath)
	if err != nil {
		return err
	}
	un := map[string]string{}
	if *yesno == "miss" {
		un = answer.YesNoQuestions(questions)
	}
	known := map[string]bool{}
	for _, q := range questions {
		known[q.ID] = true
	}
	if *unanswerable != "" {
		ids, err := readAnswerIDs(*unanswerable)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if !known[id] {
				return fmt.Errorf("%s: question %q is not in %s", *unanswerable, id, *answersPath)
			}
			if un[id] == "" {
				un[id] = "listed in " + *unanswerable
			}
		}
	}
	res, err := answer.TopK(run, questions, passages, answer.Options{Mode: mode, Ks: ks, Unanswerable: un, CheckCollection: *check})
	if err != nil {
		return err
	}
	if n := len(res.MissingFromRun); n > 0 {
		fmt.Fprintf(env.stderr, "dreval answers: %d of %d questions are absent from the run; they count as misses\n", n, res.Questions)
	}
	if res.IgnoredRunQueries > 0 {
		fmt.Fprintf(env.stderr, "dreval answers: %d run queries are not questions of %s; ignored\n", res.IgnoredRunQueries, *answersPath)
	}
	if *format == "json" {
		return writeAnswersJSON(env.stdout, res, un)
	}
	return writeAnswersText(env.stdout, res, un)
}

// parseAnswerKs parses "1,5,20,100".
func parseAnswerKs(s string) ([]int, error) {
	var ks []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("%q: want positive integers separated by commas", s)
		}
		ks = append(ks, k)
	}
	return ks, nil
}

func readAnswerQuestions(path, field string) ([]answer.Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return answer.ReadQuestions(f, path, field)
}

func readAnswersRun(path string) (metrics.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return metrics.ReadRun(bufio.NewReader(f), path)
}

// readAnswerIDs reads one id per line; blank lines are skipped.
func readAnswerIDs(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ids = append(ids, l)
		}
	}
	return ids, nil
}

// unanswerableReasons summarises the reasons of the unanswerable questions.
func unanswerableReasons(ids []string, un map[string]string) string {
	count := map[string]int{}
	for _, id := range ids {
		count[un[id]]++
	}
	reasons := make([]string, 0, len(count))
	for r, n := range count {
		reasons = append(reasons, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(reasons)
	return strings.Join(reasons, ", ")
}

func writeAnswersText(w io.Writer, res *answer.Result, un map[string]string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "answer accuracy (dpr convention, match %s)\n", res.Mode)
	fmt.Fprintf(&b, "questions: %d, all in the denominator\n", res.Questions)
	fmt.Fprintf(&b, "  absent from the run:           %d (count as misses)\n", len(res.MissingFromRun))
	fmt.Fprintf(&b, "  unanswerable by span:          %d (count as misses)", len(res.Unanswerable))
	if len(res.Unanswerable) > 0 {
		fmt.Fprintf(&b, ": %s", unanswerableReasons(res.Unanswerable, un))
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "  without a non-empty answer:    %d (count as misses)\n", len(res.EmptyAnswers))
	if res.NoPassage != nil {
		fmt.Fprintf(&b, "  answered by no passage at all: %d (count as misses)\n", len(res.NoPassage))
	}
	fmt.Fprintf(&b, "run depth: %d passages\n", res.Depth)
	for i, k := range res.Ks {
		fmt.Fprintf(&b, "top-%-5d %.4f  (%d/%d)\n", k, res.Accuracy[i], res.Hits[i], res.Questions)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// answerKValues marshals as a JSON object keyed by k in the given order.
type answerKValues struct {
	ks   []int
	vals []float64
}

func (o answerKValues) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.ks {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", strconv.Itoa(k), strconv.FormatFloat(o.vals[i], 'g', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeAnswersJSON(w io.Writer, res *answer.Result, un map[string]string) error {
	hits := make([]float64, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = float64(h)
	}
	reasons := map[string]string{}
	for _, id := range res.Unanswerable {
		reasons[id] = un[id]
	}
	out := struct {
		Convention   string         `json:"convention"`
		Match        string         `json:"match"`
		Questions    int            `json:"questions"`
		TopK         answerKValues  `json:"top_k"`
		Hits         answerKValues  `json:"hits"`
		PerQuery     map[string]int `json:"per_query"`
		Missing      []string       `json:"missing_from_run"`
		Unanswerable struct {
			Count         int               `json:"count"`
			InDenominator bool              `json:"in_denominator"`
			Reasons       map[string]string `json:"reasons"`
		} `json:"unanswerable_by_span"`
		EmptyAnswers []string `json:"empty_answers"`
		NoPassage    []string `json:"answered_by_no_passage"`
		Ignored      int      `json:"ignored_run_queries"`
		Depth        int      `json:"run_depth"`
	}{
		Convention: "dpr", Match: res.Mode.String(), Questions: res.Questions,
		TopK: answerKValues{res.Ks, res.Accuracy}, Hits: answerKValues{res.Ks, hits},
		PerQuery: res.FirstHit, Missing: answerList(res.MissingFromRun),
		EmptyAnswers: answerList(res.EmptyAnswers), NoPassage: res.NoPassage,
		Ignored: res.IgnoredRunQueries, Depth: res.Depth,
	}
	out.Unanswerable.Count = len(res.Unanswerable)
	out.Unanswerable.InDenominator = res.InDenominator()
	out.Unanswerable.Reasons = reasons
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func answerList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
