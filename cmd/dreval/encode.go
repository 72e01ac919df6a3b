package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/engine"
	"github.com/dreval/dreval/encoder/ort"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/internal/progress"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/retrieval"
)

func init() {
	register(&command{
		name:    "encode",
		summary: "embed texts with a model and write the vectors as a float32 .npy matrix",
		run:     runEncode,
	})
}

const encodeUsage = `-model NAME|DIR -in FILE -out FILE.npy [-side query|document] [-shard I/N -ids FILE] [flags]

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
others. A static model ("dreval model distill") always runs in Go.

Shards: -shard I/N encodes only the I-th of N contiguous slices of the input
(rows I*n/N to (I+1)*n/N - 1 of its n records), what each task of a Slurm or
Kubernetes job array runs. -ids FILE (default with -shard: -out with .ids for
.npy) writes one id per row: the "_id"s of a .jsonl input, else the input's
row numbers. With -shard or -ids, -out's .json is written beside it: the
shard's metadata (the model's tower and tokenizer fingerprints, the rows it
holds), which "dreval eval -corpus-embeddings DIR" checks before it uses the
shards in DIR instead of encoding the corpus. "dreval search -corpus
a.npy,b.npy -corpus-ids a.ids,b.ids" searches the shards one at a time.`

func runEncode(env *cliEnv, args []string) error {
	fs := newFlagSet(env, "encode", encodeUsage)
	modelFlag := fs.String("model", "minilm", "installed model `name` or model directory")
	models := modelsDirFlag(fs)
	in := fs.String("in", "", "input `file` (.jsonl or plain lines; - for stdin as plain lines)")
	out := fs.String("out", "", "output .npy `file`")
	engineFlag := fs.String("engine", "auto", "encoder `engine`: "+engine.Help())
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
	shardFlag := fs.String("shard", "", "encode only slice `I/N` of the input (0 <= I < N), and write the shard's ids and metadata")
	idsOut := fs.String("ids", "", "write the `file` of ids of the encoded rows (the .jsonl _ids, else row numbers), and the metadata beside -out")
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
	shard, shards := 0, 1
	if *shardFlag != "" {
		var err error
		if shard, shards, err = experiment.ParseShard(*shardFlag); err != nil {
			return usageErrorf("-shard: %v", err)
		}
		if *idsOut == "" {
			*idsOut = strings.TrimSuffix(*out, ".npy") + ".ids"
		}
	}
	metaOut := ""
	if *idsOut != "" {
		if !strings.HasSuffix(*out, ".npy") {
			return usageErrorf("-out %q: with -shard or -ids, want a .npy file (its metadata is written as .json beside it)", *out)
		}
		if filepath.Dir(*idsOut) != filepath.Dir(*out) {
			return usageErrorf("-ids %s: write it in -out's folder %s (the shard's metadata names both files)", *idsOut, filepath.Dir(*out))
		}
		if *in == "-" && *shardFlag != "" {
			return usageErrorf("-shard reads the input twice (to count its records, then its slice): give a file, not -")
		}
		metaOut = strings.TrimSuffix(*out, ".npy") + ".json"
	}
	dir, err := resolveModel(*modelFlag, *models)
	if err != nil {
		return err
	}
	total := -1
	if *shardFlag != "" {
		if total, err = countRecords(*in); err != nil {
			return err
		}
	}
	lo, hi := experiment.ShardRange(shard, shards, max(total, 0))
	if total < 0 {
		lo, hi = 0, -1
	}
	recs, err := readRecords(env, *in, lo, hi)
	if err != nil {
		return err
	}
	if total < 0 {
		total = recs.total
		hi = total
	}
	texts := recs.texts
	if metaOut != "" {
		if recs.missingID > 0 {
			return fmt.Errorf("%s:%d: the record has no \"_id\": -shard and -ids name every row by its _id", *in, recs.missingID)
		}
		if _, err := retrieval.ParseIDs(string(experiment.FormatIDs(recs.ids)), *in+" (its ids)", len(recs.ids), *in); err != nil {
			return err
		}
	}

	var bar *progress.Bar
	opts := transformer.Options{Pooling: pooling, MaxLength: *maxLen, Threads: *threads, BatchSize: *batch, ONNXFile: *onnxFile}
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
	r, err := engine.OpenRetriever(modelfiles.OSDir(dir), ro)
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
	if *shardFlag != "" {
		fmt.Fprintf(env.stderr, "shard %d of %d: rows %d to %d of %d\n", shard, shards, lo, hi-1, total)
	}
	var meta experiment.ShardMeta
	if metaOut != "" {
		m, err := experiment.DenseFromRetriever(encodeModelName(*modelFlag, dir), r)
		if err != nil {
			return err
		}
		meta = experiment.NewShardMeta(m, *side, false, shard, shards, total, strings.TrimSuffix(filepath.Base(*out), ".npy"))
		meta.IDs = filepath.Base(*idsOut)
		// Overrides the tower's fingerprint does not cover make other
		// vectors than "dreval eval" would: fold them in, so that eval
		// refuses such shards.
		if *pool != "" || *maxLen != 0 {
			meta.ModelFingerprint += fmt.Sprintf("+pool=%s+max-len=%d", *pool, *maxLen)
		}
		if recs.docs != nil {
			meta.TextsSHA256 = experiment.CorpusHash(recs.docs)
		}
	}
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
	if metaOut != "" {
		if meta.Rows != m.Rows || meta.Dim != m.Dim {
			return fmt.Errorf("encoded %d x %d vectors, the shard should hold %d x %d", m.Rows, m.Dim, meta.Rows, meta.Dim)
		}
		b, err := meta.Marshal()
		if err != nil {
			return err
		}
		if err := os.WriteFile(*idsOut, experiment.FormatIDs(recs.ids), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(metaOut, b, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(env.stderr, "wrote %s (%d ids) and %s\n", *idsOut, len(recs.ids), metaOut)
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

// encodeModelName is the name "dreval eval" gives the model of -model
// flag (resolved to dir): an installed model's name, else the directory's
// base name; tower fingerprints start with it.
func encodeModelName(flag, dir string) string {
	if !strings.ContainsAny(flag, `/\`) && flag != "." && flag != ".." {
		return flag
	}
	return filepath.Base(filepath.Clean(dir))
}

// records are the texts of the -in file's rows [lo, hi) and their ids.
type records struct {
	texts, ids []string
	// docs are the documents of a .jsonl input; nil for plain lines.
	docs []dataset.Doc
	// total is the number of records in the whole input.
	total int
	// missingID is the line of the first kept .jsonl record without an
	// "_id" (0: none).
	missingID int
}

// openInput opens the -in file (- is env.stdin).
func openInput(env *cliEnv, path string) (io.Reader, func(), error) {
	if path == "-" {
		return env.stdin, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// countRecords returns the number of records of the -in file, as
// readRecords counts them.
func countRecords(path string) (int, error) {
	recs, err := readRecords(nil, path, 0, 0)
	if err != nil {
		return 0, err
	}
	return recs.total, nil
}

// readRecords reads the -in file: JSON lines of documents with title and
// text, or plain lines; it keeps rows [lo, hi) (hi < 0: to the end).
func readRecords(env *cliEnv, path string, lo, hi int) (*records, error) {
	r, closeIn, err := openInput(env, path)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	keep := func(i int) bool { return i >= lo && (hi < 0 || i < hi) }
	recs := &records{}
	if strings.HasSuffix(path, ".jsonl") {
		if err := readJSONLRecords(r, path, keep, recs); err != nil {
			return nil, err
		}
		return recs, nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	for sc.Scan() {
		if keep(recs.total) {
			recs.texts = append(recs.texts, strings.TrimSuffix(sc.Text(), "\r"))
			recs.ids = append(recs.ids, strconv.Itoa(recs.total))
		}
		recs.total++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", path, recs.total+1, err)
	}
	return recs, nil
}

// readJSONLRecords reads the documents of a JSON lines file with
// dataset's reader (dataset.NewTextReader), each embedded as "dreval
// eval" embeds a document (experiment.DocText: title and text).
func readJSONLRecords(r io.Reader, path string, keep func(int) bool, recs *records) error {
	cr := dataset.NewTextReader(r, path)
	recs.docs = []dataset.Doc{}
	for {
		d, err := cr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if keep(recs.total) {
			if d.ID == "" && recs.missingID == 0 {
				recs.missingID = cr.Line()
			}
			recs.docs = append(recs.docs, d)
			recs.texts = append(recs.texts, experiment.DocText(d))
			recs.ids = append(recs.ids, d.ID)
		}
		recs.total++
	}
	if recs.total == 0 {
		return errors.New(path + ": no records")
	}
	return nil
}
