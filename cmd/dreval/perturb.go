package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/perturb"
	"github.com/dreval/dreval/serve"
)

func init() {
	register(&command{
		name:    "perturb",
		summary: "perturb queries as the robustness study does and show the damage",
		run:     runPerturb,
	})
}

var perturbUsage = `-tokenizer PATH|-model NAME|DIR [-mode MODE] [-rate R] [-seed S] [-oov POLICY] [-protect-special] [-pairs K] [-json] [-in FILE]

Reads queries, one per line, from -in or stdin, perturbs each and prints the
original decoded tokens (special tokens such as [CLS]/[SEP] or <s>/</s> shown)
beside the perturbed ones and the number of tokens changed: the paper's Table
1. Byte-level ids that no longer spell UTF-8 decode to U+FFFD, as the
reference decoder shows them. With -json it prints one object
per query: {"id","text","ids","perturbed_ids","decoded","perturbed_decoded",
"changed","considered","fraction"} (and "perturbed_text" for text modes).

Each query's random draws depend only on (mode, seed, query id), not on the
rate: every position draws its fate once, and the rate decides which draws
take effect, so the tokens changed at one rate are also changed, in the same
way, at every higher rate (nested perturbations). The
query id is the line number (1-based, blank lines counted) for plain text;
when the first non-blank line is a JSON object the input is read as JSON lines
with "_id" and "text" (BEIR queries.jsonl) and "_id" is the query id.

Modes (perturb.ModeTable):
` + perturb.ModeHelp() + `
vocabswap's -save-poisoned writes the poisoned tokenizer in the input's
format: a file for a tokenizer.json, vocab.txt or .model file, a directory
of the same files for a model directory.

-tokenizer takes a tokenizer.json, vocab.txt, vocab.json (with merges.txt
beside it) or SentencePiece .model file, or a model directory, and reads
each query with that bare tokenizer. -model takes an installed model's name
(minilm, static, bm25) or a model folder and reads each query as its query
encoder does (its query prompt, lower-casing and truncation): exactly the
ids "dreval eval" perturbs for that model.`

func runPerturb(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "perturb", perturbUsage)
	tokPath := fs.String("tokenizer", "", "a tokenizer.json, vocab.txt, vocab.json or .model file, or a model directory, read as a bare tokenizer")
	modelName := fs.String("model", "", "an installed model's `name` or a model folder: read queries as its query encoder does (prompt, lower-casing, truncation), as dreval eval perturbs them")
	modelsDir := fs.String("models-dir", defaultModelsDir(), "`directory` of installed models, for -model")
	mode := fs.String("mode", string(perturb.IDShift), "perturbation `mode`: "+perturb.ModeNames())
	rate := fs.Float64("rate", perturb.DefaultRate, "perturbation rate in [0, 1]")
	seed := fs.Uint64("seed", 1, "random seed")
	oov := fs.String("oov", string(perturb.Redraw), "idshift ids beyond the vocabulary: redraw, clamp, wrap or error")
	protect := fs.Bool("protect-special", false, "leave special tokens ([CLS], [SEP], <s>, </s>, <|endoftext|>, control pieces) alone")
	pairs := fs.Int("pairs", 0, "vocabswap: number of vocabulary pairs to swap (0: derive from -rate)")
	asJSON := fs.Bool("json", false, "print JSON lines")
	in := fs.String("in", "", "read queries from this file instead of stdin")
	fingerprint := fs.String("fingerprint", "", "refuse a tokenizer whose fingerprint differs from this recorded one")
	savePoisoned := fs.String("save-poisoned", "", "vocabswap: write the poisoned tokenizer here, in the input's format (a directory when the input is one)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case *tokPath == "" && *modelName == "":
		return usageErrorf("-tokenizer is required, or -model (for example -tokenizer ~/.cache/dreval/models/minilm/tokenizer.json, or -model minilm)")
	case *tokPath != "" && *modelName != "":
		return usageErrorf("-tokenizer and -model exclude each other: -model reads queries as the model's encoder, -tokenizer as a bare tokenizer")
	}
	m, err := perturb.ParseMode(*mode)
	if err != nil {
		return usageErrorf("-mode: %v", err)
	}
	policy, err := perturb.ParseOOV(*oov)
	if err != nil {
		return usageErrorf("-oov: %v", err)
	}
	c := perturb.Config{Mode: m, Rate: *rate, Seed: *seed, OOV: policy, ProtectSpecial: *protect, SwapPairs: *pairs}
	if err := c.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	if *savePoisoned != "" && m != perturb.VocabSwap {
		return usageErrorf("-save-poisoned needs -mode %s", perturb.VocabSwap)
	}

	var rd *serve.QueryReading
	source := *tokPath
	if *modelName != "" {
		m, err := evalRegistry().Open(context.Background(), *modelName, experiment.ModelOptions{Engine: experiment.EngineGo, ModelsDir: *modelsDir})
		if err != nil {
			return fmt.Errorf("-model %s: %w", *modelName, err)
		}
		rd, source = queryReading(m), "model "+*modelName+"'s query encoder"
	} else {
		tok, err := tokenizer.Load(*tokPath)
		if err != nil {
			return err
		}
		rd = tokenizerReading(tok)
	}
	fp := rd.Fingerprint(rd.Reader)
	if *fingerprint != "" {
		if err := perturb.VerifyFingerprint(*fingerprint, fingerprinted(fp)); err != nil {
			return fmt.Errorf("%s: %w", source, err)
		}
	}
	swapped := rd.Swapped
	if m == perturb.VocabSwap && swapped != nil {
		swapped = func(pairs [][2]int32) (perturb.Reader, error) {
			bad, err := rd.Swapped(pairs)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(env.stderr, "dreval perturb: %d vocabulary pairs swapped; tokenizer fingerprint %s, poisoned %s\n", len(pairs), fp, rd.Fingerprint(bad))
			if *savePoisoned != "" {
				t, ok := tokenizerOf(bad)
				if !ok {
					return nil, fmt.Errorf("-save-poisoned: %s cannot be written as a tokenizer", source)
				}
				if err := saveTokenizer(t, *savePoisoned); err != nil {
					return nil, err
				}
			}
			return bad, nil
		}
	}

	r := env.stdin
	name := "stdin"
	if *in != "" {
		f, err := os.Open(*in)
		if err != nil {
			return err
		}
		defer f.Close()
		r, name = f, *in
	}
	queries, err := readQueries(r, name)
	if err != nil {
		return err
	}

	qs := make([]perturb.Query, len(queries))
	for i, q := range queries {
		qs[i] = perturb.Query{ID: q.ID, Text: q.Text}
	}
	results, err := perturb.Queries(c, rd.Reader, swapped, qs, nil)
	var qe *perturb.QueryError
	if errors.As(err, &qe) {
		return fmt.Errorf("%s:%d: %w", name, queries[qe.Index].Line, qe.Err)
	}
	if err != nil {
		return err
	}
	w := bufio.NewWriter(env.stdout)
	if !*asJSON {
		fmt.Fprintf(w, "# %s; %s %s (fingerprint %s)\n", c, readsWord(*modelName), source, fp)
	}
	changed, considered := 0, 0
	for _, res := range results {
		changed += res.Changed
		considered += res.Considered
		if *asJSON {
			if err := writePerturbJSON(w, res); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(w, "query %s: changed %d of %d tokens (%.1f%%)\n", res.QueryID, res.Changed, res.Considered, 100*res.Fraction)
		if m.IsText() {
			fmt.Fprintf(w, "  text:      %s\n  noisy:     %s\n", res.Text, res.PerturbedText)
		}
		fmt.Fprintf(w, "  original:  %s\n  perturbed: %s\n", res.Decoded, res.PerturbedDecoded)
	}
	if !*asJSON {
		frac := 0.0
		if considered > 0 {
			frac = float64(changed) / float64(considered)
		}
		fmt.Fprintf(w, "# %d queries: changed %d of %d tokens (%.2f%%)\n", len(queries), changed, considered, 100*frac)
	}
	return w.Flush()
}

// perturbJSON is one line of "dreval perturb -json".
type perturbJSON struct {
	ID               string  `json:"id"`
	Text             string  `json:"text"`
	PerturbedText    *string `json:"perturbed_text,omitempty"`
	IDs              []int32 `json:"ids"`
	PerturbedIDs     []int32 `json:"perturbed_ids"`
	Decoded          string  `json:"decoded"`
	PerturbedDecoded string  `json:"perturbed_decoded"`
	Changed          int     `json:"changed"`
	Considered       int     `json:"considered"`
	Fraction         float64 `json:"fraction"`
}

func writePerturbJSON(w io.Writer, res perturb.Result) error {
	o := perturbJSON{
		ID: res.QueryID, Text: res.Text, IDs: res.IDs, PerturbedIDs: res.PerturbedIDs,
		Decoded: res.Decoded, PerturbedDecoded: res.PerturbedDecoded,
		Changed: res.Changed, Considered: res.Considered, Fraction: res.Fraction,
	}
	if o.IDs == nil {
		o.IDs = []int32{}
	}
	if o.PerturbedIDs == nil {
		o.PerturbedIDs = []int32{}
	}
	if res.Mode.IsText() {
		o.PerturbedText = &res.PerturbedText
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(o)
}

// saveTokenizer writes t in the format it was read from: one file at path,
// or, when that format has several files (vocab.json and merges.txt, a
// model directory's configuration), a directory at path holding them.
func saveTokenizer(t *tokenizer.Tokenizer, path string) error {
	files, err := t.Files()
	if err != nil {
		return fmt.Errorf("writing the poisoned tokenizer: %w", err)
	}
	if len(files) == 1 {
		return os.WriteFile(path, files[0].Data, 0o644)
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(path, f.Name), f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// inputQuery is one query read by readQueries.
type inputQuery struct {
	ID   string
	Text string
	Line int
}

// readQueries reads plain-text queries (one per line, id = line number,
// blank lines included) or, when the first non-blank line starts with "{",
// a BEIR queries.jsonl, read by dataset.QueryReader as "dreval eval" reads
// it ("_id" a string or an integer; blank lines skipped), with duplicate
// ids refused. A byte order mark at the start is dropped. name names the
// input in errors.
func readQueries(r io.Reader, name string) ([]inputQuery, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	isJSON := false
	for rest := data; len(rest) > 0; {
		line, after, _ := bytes.Cut(rest, []byte{'\n'})
		if t := bytes.TrimSpace(line); len(t) > 0 {
			isJSON = t[0] == '{'
			break
		}
		rest = after
	}
	if !isJSON {
		var qs []inputQuery
		if len(data) > 0 {
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			qs = make([]inputQuery, len(lines))
			for i, l := range lines {
				qs[i] = inputQuery{ID: strconv.Itoa(i + 1), Text: strings.TrimSuffix(l, "\r"), Line: i + 1}
			}
		}
		return qs, nil
	}
	qr := dataset.NewQueryReader(bytes.NewReader(data), name)
	seen := map[string]int{}
	var qs []inputQuery
	for {
		q, err := qr.Next()
		if err == io.EOF {
			return qs, nil
		}
		if err != nil {
			return nil, err
		}
		if first, dup := seen[q.ID]; dup {
			return nil, fmt.Errorf("%s:%d: duplicate _id %q (first on line %d)", name, qr.Line(), q.ID, first)
		}
		seen[q.ID] = qr.Line()
		qs = append(qs, inputQuery{ID: q.ID, Text: q.Text, Line: qr.Line()})
	}
}

// readsWord names what reads the queries in perturb's header.
func readsWord(model string) string {
	if model != "" {
		return "read by"
	}
	return "tokenizer"
}

// tokenizerReading reads queries with the bare tokenizer tok (its ids of
// the text with special tokens, untruncated), as "dreval perturb
// -tokenizer" does.
func tokenizerReading(tok *tokenizer.Tokenizer) *serve.QueryReading {
	return &serve.QueryReading{
		Reader: experiment.HFTokenizer{Tokenizer: tok},
		Swapped: func(pairs [][2]int32) (perturb.Reader, error) {
			bad, err := tok.WithSwappedTokens(pairs)
			if err != nil {
				return nil, err
			}
			return experiment.HFTokenizer{Tokenizer: bad}, nil
		},
		Fingerprint: func(r perturb.Reader) string { return r.(experiment.Tokenizer).Fingerprint() },
		Describe:    "the bare tokenizer",
	}
}

// fingerprinted is a tokenizer known by its fingerprint only, for
// perturb.VerifyFingerprint's message.
type fingerprinted string

func (f fingerprinted) Fingerprint() string { return string(f) }

// tokenizerOf returns the tokenizer behind a reading of queries.
func tokenizerOf(r perturb.Reader) (*tokenizer.Tokenizer, bool) {
	switch t := r.(type) {
	case experiment.HFTokenizer:
		return t.Tokenizer, true
	case experiment.EncoderTokenizer:
		return t.Tokenizer(), true
	}
	return nil, false
}
