package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/progress"
	"github.com/dreval/dreval/retrieval"
)

func init() {
	register(&command{
		name:    "encode",
		summary: "embed texts with a model and write the vectors as a float32 .npy matrix",
		run:     runEncode,
	})
}

const encodeUsage = `-model NAME|DIR -in FILE -out FILE.npy [-side query|document] [flags]

Input: a .jsonl file (one object per line with "text" and optional "title",
embedded as title + " " + text; blank lines are skipped) or, for any other
extension, plain text with one text per line (an empty line is an empty
text, embedded as [CLS] [SEP]). Output: an (n, dim) '<f4' .npy matrix, row i
the embedding of input i as the model makes it for -side: a two-tower
retriever's query or document encoder, with the side's prompt; normalised
only where the model says so (a dot-product model keeps its norms). Texts
longer than -max-len ids are truncated; their number is reported.

Engines: -engine auto runs ONNX Runtime when this build has cgo, the library
(-ort-lib) loads and the model directory holds an ONNX graph (model.onnx,
written by "dreval model export-onnx -model NAME" (auto never writes it), or
onnx/model.onnx as optimum and Transformers.js lay a folder out), else the
pure-Go forward pass, and says why on stderr. -engine ort fails with the
reason instead. ONNX Runtime runs any encoder graph, float32, float16 or
int8-quantized (-onnx-file chooses it; "dreval model quantize" writes
them); the pure-Go engine runs only the plain float32 graph and refuses the
others. A static model ("dreval model distill") always runs in Go.`

func runEncode(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "encode", encodeUsage)
	modelFlag := fs.String("model", "minilm", "installed model `name` or model directory")
	models := modelsDirFlag(fs)
	in := fs.String("in", "", "input `file` (.jsonl or plain lines; - for stdin as plain lines)")
	out := fs.String("out", "", "output .npy `file`")
	engineFlag := fs.String("engine", "auto", "encoder `engine`: auto (ort when it can run the model, else go), go (pure Go) or ort (ONNX Runtime; needs a cgo build, the library and model.onnx)")
	onnxFile := fs.String("onnx-file", "", "the model folder's ONNX `graph` for -engine ort/auto: a file (onnx/model_quantized.onnx) or a variant (quantized, fp16, ... for onnx/model_VARIANT.onnx; default model.onnx, else onnx/model.onnx); -engine go reads its weights from it")
	ortLib := fs.String("ort-lib", defaultORTLib(), "ONNX Runtime shared `library` for -engine ort/auto (default from $DREVAL_ORT_LIB, else where make setup installs it)")
	pool := fs.String("pool", "", "pooling: cls, mean, max, mean_sqrt_len_tokens, weightedmean, lasttoken, several joined by +, or pooler (default: the model's)")
	side := fs.String("side", engine.Document, "the side of retrieval the texts are: query or document (a retriever's encoder and prompt of that side)")
	prompt := fs.String("prompt", "", "`text` put before every input instead of the model's prompt of -side")
	noPrompt := fs.Bool("no-prompt", false, "put no prompt before the inputs, whatever the model says")
	batch := fs.Int("batch", 32, "sequences per forward pass")
	maxLen := fs.Int("max-len", 0, "truncate texts to this many ids, [CLS] and [SEP] included (default: the tokenizer's)")
	threads := fs.Int("threads", 0, "goroutines per forward pass for go, intra-op threads for ort (default: one per core)")
	quiet := fs.Bool("q", false, "no progress output")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	case *in == "":
		return usageErrorf("-in is required")
	case *out == "":
		return usageErrorf("-out is required")
	case *batch < 1:
		return usageErrorf("-batch must be at least 1, got %d", *batch)
	case *maxLen < 0:
		return usageErrorf("-max-len must not be negative, got %d", *maxLen)
	case *threads < 0:
		return usageErrorf("-threads must not be negative, got %d", *threads)
	}
	eng, err := parseEngineFlag(*engineFlag)
	if err != nil {
		return err
	}
	var pooling encoder.Pooling
	if *pool != "" && *pool != encoder.Pooler {
		p, err := encoder.ParsePooling(*pool)
		if err != nil {
			return usageErrorf("-pool: %v", err)
		}
		pooling = p
	} else if *pool == encoder.Pooler {
		pooling = encoder.Pooler
	}
	if *side != engine.Query && *side != engine.Document {
		return usageErrorf("-side %q: want query or document", *side)
	}
	var promptOverride *string
	switch {
	case *noPrompt && *prompt != "":
		return usageErrorf("-prompt and -no-prompt exclude each other")
	case *noPrompt:
		promptOverride = new(string)
	case *prompt != "":
		promptOverride = prompt
	}
	dir, err := resolveModel(*modelFlag, *models)
	if err != nil {
		return err
	}
	texts, err := readTexts(env, *in)
	if err != nil {
		return err
	}

	var bar *progress.Bar
	opts := encoder.Options{Pooling: pooling, MaxLength: *maxLen, Threads: *threads, BatchSize: *batch, ONNXFile: *onnxFile}
	if !*quiet {
		bar = progress.New(env.stderr)
		opts.Progress = func(done, total int) { bar.Update("encoding", done, total, "texts") }
	}
	ro := engine.RetrieverOptions{Options: engine.Options{Engine: string(eng), ORTLibrary: *ortLib, Encoder: opts}}
	if *side == engine.Query {
		ro.QueryPrompt = promptOverride
	} else {
		ro.DocumentPrompt = promptOverride
	}
	r, err := engine.OpenRetriever(encoder.OSDir(dir), ro)
	if err != nil {
		return err
	}
	defer r.Close()
	enc, err := r.Side(*side)
	if err != nil {
		return err
	}
	info := r.DocumentInfo
	if *side == engine.Query {
		info = r.QueryInfo
	}
	fmt.Fprintf(env.stderr, "engine: %s; model %s, %s side (%d tower(s), score %s from %s): %s; %d texts\n",
		info, dir, *side, r.Towers, r.Score, r.ScoreFrom, enc.Describe(), len(texts))
	start := time.Now()
	vecs, truncated, err := enc.Encode(texts)
	if bar != nil {
		bar.Done()
	}
	if err != nil {
		return err
	}
	m := retrieval.NewMatrix(len(vecs), enc.Dim())
	for i, v := range vecs {
		copy(m.Row(i), v)
	}
	if err := retrieval.WriteNPYFile(*out, m, retrieval.Float32); err != nil {
		return err
	}
	el := time.Since(start).Seconds()
	fmt.Fprintf(env.stderr, "encoded %d texts in %.1fs (%.1f texts/s); %d truncated to %d ids; wrote %s (%d x %d float32)\n",
		len(texts), el, float64(len(texts))/max(el, 1e-9), truncated, enc.MaxLength(), *out, m.Rows, m.Dim)
	return nil
}

// defaultORTLib returns $DREVAL_ORT_LIB, else where scripts/setup-ort.sh
// installs the ONNX Runtime library.
func defaultORTLib() string {
	if p := os.Getenv("DREVAL_ORT_LIB"); p != "" {
		return p
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return ort.DefaultLibPath(c)
}

// readTexts reads the -in file: JSON lines with title/text, or plain lines.
func readTexts(env *cliEnv, path string) ([]string, error) {
	var r io.Reader
	if path == "-" {
		r = env.stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	if strings.HasSuffix(path, ".jsonl") {
		return readJSONLTexts(r, path)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	var texts []string
	for sc.Scan() {
		texts = append(texts, strings.TrimSuffix(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", path, len(texts)+1, err)
	}
	return texts, nil
}

// readJSONLTexts reads the texts of a JSON lines file of documents with
// dataset's reader (dataset.NewTextReader), each embedded as "dreval
// eval" embeds a document (experiment.DocText: title and text).
func readJSONLTexts(r io.Reader, path string) ([]string, error) {
	cr := dataset.NewTextReader(r, path)
	var texts []string
	for {
		d, err := cr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		texts = append(texts, experiment.DocText(d))
	}
	if len(texts) == 0 {
		return nil, errors.New(path + ": no records")
	}
	return texts, nil
}
