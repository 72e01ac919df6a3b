package serve

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/dreval/dreval/perturb"
)

// Encoder is what /api/encode needs of a model: *encoder.Encoder wrapped
// with its tokenizer's vocabulary size satisfies it. EmbedIDs must be safe
// for concurrent use.
type Encoder interface {
	// Tokenize returns the ids of each text, special tokens included and
	// truncated to the model's maximum length, and how many were
	// truncated.
	Tokenize(texts []string) (ids [][]int32, truncated int)
	// EmbedIDs returns one L2-normalised vector of Dim values per sequence.
	// /api/encode calls it a batch at a time (at most 32 sequences and
	// 2048 ids), checking between calls that the request is still wanted.
	EmbedIDs(ids [][]int32) ([][]float32, error)
	// Dim is the embedding dimension.
	Dim() int
	// VocabSize is the number of token ids the model accepts.
	VocabSize() int
	// MaxLength is the most ids a sequence may have (0: no limit).
	MaxLength() int
}

// The sides of retrieval /api/encode encodes for.
const (
	SideQuery    = "query"
	SideDocument = "document"
)

// EngineNamer is implemented by an Encoder that names the engine computing
// its vectors ("go", "ort", "static", as experiment.Model.Engine does).
// An /api/encode request that asks for an engine is refused (409) unless
// its Encoder implements EngineNamer and names that engine; replies name
// it ("engine").
type EngineNamer interface {
	Engine() string
}

// Fingerprinter is implemented by an Encoder that identifies the model
// side it encodes (experiment.Tower's fingerprint: the model's files and
// settings and the engine); replies give it ("fingerprint"), so that the
// browser app encodes with the server only what it would encode itself.
type Fingerprinter interface {
	Fingerprint() string
}

// DemoData is a model's embeddings of the demo corpus, as served under
// /data/demo/: NPY is a float32 .npy matrix (one row per document, in
// corpus order) and Meta a JSON object describing it; QueryNPY and
// QueryMeta, served as /data/demo/MODEL.queries.npy and .json, are the
// demo queries' clean vectors and their description (nil: none).
type DemoData struct {
	NPY  []byte
	Meta []byte

	QueryNPY, QueryMeta []byte
}

// QueryReading is how a model reads queries: Reader gives the ids its
// query encoder feeds (perturb.Reader), Swapped the same reading with
// pairs of the tokenizer's vocabulary swapped (vocabswap; nil: not
// possible), Fingerprint the tokenizer's fingerprint, and Describe says
// in a few words what reads them.
type QueryReading struct {
	Reader      perturb.Reader
	Swapped     func(pairs [][2]int32) (perturb.Reader, error)
	Fingerprint func(perturb.Reader) string
	Describe    string
}

// ErrUnknownModel is wrapped by errors of Options' functions for a model
// that does not exist; the handlers answer 404.
var ErrUnknownModel = errors.New("unknown model")

// Options configure NewMux. The zero value serves nothing but the API
// routes that need no files (/api/metrics, /healthz).
type Options struct {
	// Assets are the browser app's files (webapp.FS()); nil serves none.
	Assets fs.FS
	// WasmGz is the path within Assets of the gzip-compressed app served
	// as /app.wasm ("" means "app.wasm.gz").
	WasmGz string
	// HostCompresses says the host gzips every response that declares
	// Content-Encoding: gzip (Cloudflare Workers and workerd do): app.wasm
	// is then written decompressed, with that header when the client
	// accepts gzip, instead of as stored, which the host would compress
	// twice.
	HostCompresses bool
	// Models holds one directory per model (os.DirFS of the models
	// directory natively; embedded files in the Worker); nil serves none.
	// /models/ serves its allowed files, and /api/perturb loads
	// NAME/tokenizer.json from it.
	Models fs.FS
	// ORTWeb holds onnxruntime-web's files (the folder
	// scripts/setup-ort-web.sh installs), served under /ort/ for the
	// browser app's transformer engine; nil serves none (the app then
	// encodes with the pure-Go engine).
	ORTWeb fs.FS
	// Encoder opens side (SideQuery or SideDocument) of a model for
	// /api/encode; nil answers 501. It is called for each request: cache
	// the models it opens.
	Encoder func(ctx context.Context, model, side string) (Encoder, error)
	// QueryReader returns how a model reads queries, for /api/perturb:
	// its query encoder's ids (prompt, lower-casing, truncation), as
	// "dreval eval" perturbs them. Nil, or an error wrapping
	// ErrUnknownModel, reads them with the model's bare tokenizer from
	// Models (the Worker, which has no encoders); the reply says which
	// ("reads").
	QueryReader func(ctx context.Context, model string) (*QueryReading, error)
	// Demo returns a model's demo corpus embeddings for /data/demo/; nil
	// serves none. A successful result is computed once per model and
	// kept in memory.
	Demo func(ctx context.Context, model string) (*DemoData, error)
	// Limits bound the requests; zero fields take DefaultLimits' values.
	Limits Limits
}

// Limits bound what one request may ask.
type Limits struct {
	// MaxBodyBytes is the largest request body accepted (413 beyond).
	MaxBodyBytes int64
	// MaxTexts is the most texts (or id sequences) per encode or perturb
	// request (400 beyond).
	MaxTexts int
	// Timeout is the most time an API request may take (503 beyond).
	Timeout time.Duration
	// MaxConcurrentEncodes is the number of encode requests that run at
	// once; others wait up to QueueWait for a slot, then get 503 with a
	// Retry-After header.
	MaxConcurrentEncodes int
	QueueWait            time.Duration
	// BodyTimeout is the most time a client may take to send a request
	// body, counted from the end of its headers: a slower body is cut
	// (408 on the API routes) and its connection closed, as slow headers
	// are by the http.Server's ReadHeaderTimeout.
	BodyTimeout time.Duration
	// MaxConcurrentMetrics is the number of /api/metrics evaluations that
	// run at once, which bounds their memory (a few times the bodies they
	// parse); others wait up to QueueWait, then get 503 with Retry-After.
	MaxConcurrentMetrics int
	// MaxBodyBytesInFlight bounds the bytes of request bodies the API
	// holds at once, from before each is read until its request is done
	// (at least MaxBodyBytes): a request that cannot get its body's bytes
	// (its Content-Length, else MaxBodyBytes) within QueueWait gets 503
	// with Retry-After, so that a burst of large requests waits in the
	// clients, not in the server's memory.
	MaxBodyBytesInFlight int64
}

// DefaultLimits are the limits "dreval serve" starts with.
var DefaultLimits = Limits{
	MaxBodyBytes:         8 << 20,
	MaxTexts:             1024,
	Timeout:              60 * time.Second,
	MaxConcurrentEncodes: 2,
	QueueWait:            10 * time.Second,
	BodyTimeout:          30 * time.Second,
	MaxConcurrentMetrics: 4,
	MaxBodyBytesInFlight: 32 << 20,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = d.MaxBodyBytes
	}
	if l.MaxTexts <= 0 {
		l.MaxTexts = d.MaxTexts
	}
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxConcurrentEncodes <= 0 {
		l.MaxConcurrentEncodes = d.MaxConcurrentEncodes
	}
	if l.QueueWait <= 0 {
		l.QueueWait = d.QueueWait
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = d.BodyTimeout
	}
	if l.MaxConcurrentMetrics <= 0 {
		l.MaxConcurrentMetrics = d.MaxConcurrentMetrics
	}
	if l.MaxBodyBytesInFlight <= 0 {
		l.MaxBodyBytesInFlight = d.MaxBodyBytesInFlight
	}
	l.MaxBodyBytesInFlight = max(l.MaxBodyBytesInFlight, l.MaxBodyBytes)
	return l
}
