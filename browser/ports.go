package browser

import (
	"github.com/dreval/dreval/encoder/ortweb"
)

// Ports are what only a browser gives the app: the js/wasm adapter
// (wasm/) implements them with syscall/js, the tests with fakes. A nil
// port is one the worker lacks.
type Ports struct {
	// Files gives the site's files.
	Files Fetcher
	// Server reaches "dreval serve"'s api/encode beside the page.
	Server Server
	// Peers returns the helper workers of a run's first worker (none in
	// a helper); the list may grow, never shrink.
	Peers func() []Peer
	// ORT is onnxruntime-web.
	ORT ORT
}

// Fetcher gives the site's files: the page fetches each once for every
// worker (worker.js's drevalFetchFile, Cache Storage).
type Fetcher interface {
	// Fetch asks for url (relative to the site's root) now, size bytes
	// expected (0: unknown) and label naming the download on the page,
	// and returns what waits for the body and, when sum is set, its hex
	// SHA-256 as the browser computed it ("" where it has none). Asked
	// before it returns: an ask made in a goroutine is posted only when
	// that goroutine runs, which in WebAssembly is when every other one
	// waits.
	Fetch(url string, size int64, label string, sum bool) func() ([]byte, string, error)
}

// Server reaches "dreval serve"'s api/encode, beside the page, with the
// browser's fetch (Go's HTTP client would add a megabyte to the app).
type Server interface {
	// Post posts body (JSON) to api/encode, accepting accept, and reads
	// the whole reply; an error where the page is not served over HTTP
	// or the server cannot be reached.
	Post(body []byte, accept string) (*HTTPReply, error)
}

// HTTPReply is a reply of the server.
type HTTPReply struct {
	Status     int
	StatusText string
	// Header returns the reply's header called name ("" when absent).
	Header func(name string) string
	Body   []byte
}

// Peer is a helper worker, reached through a MessagePort.
type Peer interface {
	// Call posts request req and returns where its reply will come (an
	// *ErrorReply when it failed). Calls to one helper may be in flight
	// together (a search and the tests' draws): each reply finds its
	// call.
	Call(req Message) <-chan Message
	// Post posts request req, which nothing answers.
	Post(req Message)
}

// ORT is onnxruntime-web as the page gives it to a worker (worker.js's
// drevalConfig, drevalORT, drevalFetch, drevalDerive and
// drevalDerived): the worker's settings, the runtime, and the ONNX
// graphs its sessions open, which stay in the runtime's memory.
type ORT interface {
	// Config returns what the page told the worker.
	Config() WorkerConfig
	// Load loads onnxruntime-web for execution provider ep ("wasm" or
	// "webgpu"), and says why it runs on another where it does.
	Load(ep string) (Runtime, string, error)
	// FetchGraph returns the graph the site serves at url (size bytes,
	// label naming it), fetched once for every worker.
	FetchGraph(url string, size int64, label string) (Graph, error)
	// Derive returns the graph keyed key that a worker built for all, or
	// nil when this worker is to build it and hand it over (Derived).
	Derive(key, label string) (Graph, error)
	// Derived hands over the graph keyed key this worker built (or that
	// it failed to).
	Derived(key string, g Graph, err error)
	// Graph returns a graph built in Go, in the runtime's memory.
	Graph(g *ortweb.Graph) Graph
}

// Runtime is onnxruntime-web loaded into a worker.
type Runtime interface {
	// EP is the execution provider its sessions run on: "wasm" or
	// "webgpu".
	EP() string
	// Threads is the threads each session runs on.
	Threads() int
	// Open opens a session of graph g (optimized: ONNX Runtime optimized
	// it offline).
	Open(g Graph, optimized bool) (ortweb.Forwarder, error)
}

// Graph is an ONNX graph as the runtime holds it (a Uint8Array in
// JavaScript's memory, so that a 90 MB graph is not copied into Go's).
type Graph any

// WorkerConfig is what the page told a worker (worker.js's
// drevalConfig): the threads each onnxruntime-web session may use,
// whether the page is cross-origin isolated, and the site's
// onnxruntime-web (ort/index.json; Version empty when the site serves
// none, Why then says why).
type WorkerConfig struct {
	Threads  int  `json:"threads"`
	Isolated bool `json:"isolated"`
	ORT      struct {
		Version string           `json:"version"`
		Files   map[string]int64 `json:"files"`
		Why     string           `json:"why"`
	} `json:"ort"`
}
