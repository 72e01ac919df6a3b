package browser

// The messages of the browser app: the page's requests to a worker and
// the worker's replies, and those between a run's first worker and its
// helpers. One Go type per request and per reply, all in this file. A
// message crosses between JavaScript and Go as an object of its fields,
// under their json names, with "type" its MessageType and "id" the
// number of the request (a reply carries its request's; the js/wasm
// adapter adds it): Encode and Decode (wire.go) convert. A []byte is a
// Uint8Array there (an ArrayBuffer is read as one too).
//
// webapp/static/messages.js gives the page's scripts every message's
// type (MSG) and the field names of every message and value (FIELDS), by
// Go type name, and the types of the messages between the page's
// scripts that Go never sees (WORKER_MSG); "go generate ./webapp" writes it from the lists below
// (MessagesJS), and TestMessagesJSUpToDate fails while it lags them.

// Message is a request or a reply.
type Message interface {
	// MessageType is the message's "type" field.
	MessageType() string
}

// requests lists every request a worker answers.
var requests = []Message{
	&RunRequest{}, &ReproduceRequest{}, &ViewRequest{}, &ExportRequest{},
	&MetricsRequest{}, &VectorsRequest{}, &ModelRequest{}, &ForgetRequest{},
	&PickRequest{}, &FilesRequest{}, &ModelsRequest{}, &WarmRequest{}, &BenchRequest{},
	&PrepareRequest{}, &EmbedRequest{}, &SearchRequest{}, &DrawsRequest{},
}

// replies lists every reply a worker posts.
var replies = []Message{
	&RunReply{}, &ReproduceReply{}, &ViewReply{}, &ExportReply{},
	&MetricsReply{}, &ModelReply{}, &ForgetReply{}, &PickReply{}, &FilesReply{},
	&ModelsReply{}, &WarmReply{}, &BenchReply{}, &EmbedReply{}, &SearchReply{},
	&DrawsReply{}, &Progress{}, &ErrorReply{},
}

// values lists the values messages hold, whose field names
// messages.js gives too.
var values = []any{
	&RunSettings{}, &ReproduceSettings{}, &Views{}, &Encoding{}, &Scoring{},
	&TextFile{}, &BinaryFile{}, &File{},
}

// workerMessages are the messages between the page's scripts and
// worker.js that Go never sees: the worker's start and settings, its
// helpers' ports, and the files and graphs the page shares between the
// workers. messages.js gives their types too (WORKER_MSG).
var workerMessages = []struct{ Name, Type string }{
	{"Wasm", "wasm"},       // page -> worker: the app, compiled once
	{"Config", "config"},   // page -> worker: drevalConfig
	{"Peers", "peers"},     // page -> first worker: its helpers' ports
	{"Helper", "helper"},   // page -> helper: the port its first worker talks through
	{"File", "file"},       // page -> worker: a file sent before it is asked for
	{"Ready", "ready"},     // worker -> page: the Go program runs
	{"Fatal", "fatal"},     // worker -> page: it cannot run
	{"Fetch", "fetch"},     // worker -> page: a shared file (drevalFetchFile)
	{"Derive", "derive"},   // worker -> page: a built file (drevalDerive)
	{"Derived", "derived"}, // worker -> page: a file built for all (drevalDerived)
	{"Answer", "answer"},   // page -> worker: the answer to Fetch or Derive
}

// ---- from the page ----

// RunRequest runs an experiment on the demo or an uploaded BEIR folder
// with one model; a RunReply answers, after Progress replies.
type RunRequest struct {
	Request RunSettings `json:"request"`
}

// RunSettings are a run's settings, from the page's form.
type RunSettings struct {
	Model     string    `json:"model"`
	Data      string    `json:"data"`
	Split     string    `json:"split"`
	Mode      string    `json:"mode"`
	Rates     []float64 `json:"rates"`
	Seeds     int       `json:"seeds"`
	FirstSeed uint64    `json:"firstSeed"`
	// Show is the rate the views show; TREC shows every convention.
	Show float64 `json:"show"`
	TREC bool    `json:"trec"`
	K    int     `json:"k"`
	// Resamples is the bootstrap's (0: the default).
	Resamples int `json:"resamples"`
	// Engine is the page's Engine setting (auto, ort-web, webgpu, go).
	Engine string `json:"engine"`
	// Lesson marks the opening lesson, which the page asks for before
	// it knows which models the site serves: a model the site does not
	// serve skips it (RunReply.Skipped says why) instead of failing.
	Lesson bool `json:"lesson"`
}

// ReproduceRequest runs the study's protocol (experiment.Study, as
// "dreval reproduce" does); a ReproduceReply answers, after Progress
// replies.
type ReproduceRequest struct {
	Request ReproduceSettings `json:"request"`
}

// ReproduceSettings are a reproduction's settings: one dataset ("demo"
// or an uploaded BEIR folder) and the models (the page checks static and
// bm25 by default: minilm encodes a few sentences a second per worker in
// wasm); Seeds 0 means the protocol's 5.
type ReproduceSettings struct {
	Data   string   `json:"data"`
	Models []string `json:"models"`
	Seeds  int      `json:"seeds"`
	// Engine is the page's Engine setting (auto, ort-web, webgpu, go).
	Engine string `json:"engine"`
}

// ViewRequest renders the last results for another rate or convention
// set; a ViewReply answers, after a Progress with the table and chart.
type ViewRequest struct {
	Show float64 `json:"show"`
	TREC bool    `json:"trec"`
}

// ExportRequest asks for the last results as files; an ExportReply
// answers.
type ExportRequest struct{}

// MetricsRequest scores an uploaded TREC run against uploaded qrels, as
// "dreval metrics" does; a MetricsReply answers.
type MetricsRequest struct {
	Qrels   TextFile `json:"qrels"`
	Run     TextFile `json:"run"`
	Scoring *Scoring `json:"scoring"`
}

// VectorsRequest searches uploaded corpus and query embeddings (.npy,
// with optional id files: nil for row numbers) as "dreval search" does
// and scores the run against uploaded qrels as "dreval metrics" does; a
// MetricsReply answers.
type VectorsRequest struct {
	Corpus    *BinaryFile `json:"corpus"`
	Queries   *BinaryFile `json:"queries"`
	CorpusIDs *TextFile   `json:"corpusIDs"`
	QueryIDs  *TextFile   `json:"queryIDs"`
	Qrels     TextFile    `json:"qrels"`
	Scoring   *Scoring    `json:"scoring"`
}

// Scoring is what the metrics and vectors modes score with: -m,
// -convention and -c of "dreval metrics" (nil: its defaults).
type Scoring struct {
	Measures   []string `json:"measures"`
	Convention string   `json:"convention"`
	Complete   bool     `json:"complete"`
}

// TextFile is an uploaded text file.
type TextFile struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// BinaryFile is an uploaded binary file.
type BinaryFile struct {
	Name string `json:"name"`
	Data []byte `json:"data"`
}

// ModelRequest opens a model (an upload) as a run would and describes it,
// so that a bad upload is reported before any run; a ModelReply answers.
type ModelRequest struct {
	Model  string `json:"model"`
	Engine string `json:"engine"`
}

// ForgetRequest drops an earlier upload's opened model; a ForgetReply
// answers.
type ForgetRequest struct {
	Model string `json:"model"`
}

// PickRequest asks which of the files a user chose the page is to send,
// and under which paths: Kind "model" or "data", Files the offered
// files' paths, From what they are (for messages), Folder whether they
// came as a folder, Graph a model's ONNX graph chosen ("" the default;
// modelfiles.PickGraph). A PickReply answers.
type PickRequest struct {
	Kind   string   `json:"kind"`
	From   string   `json:"from"`
	Folder bool     `json:"folder"`
	Files  []string `json:"files"`
	Graph  string   `json:"graph"`
}

// FilesRequest stores files in the worker: Root is the directory they go
// to (models/upload-N-FOLDER or upload/FOLDER), emptied first, each
// File's path relative to it; Forget names an earlier upload's directory
// to drop. A FilesReply answers.
type FilesRequest struct {
	Root   string `json:"root"`
	Files  []File `json:"files"`
	Forget string `json:"forget"`
}

// File is a file sent to the worker.
type File struct {
	Path string `json:"path"`
	Data []byte `json:"data"`
}

// ModelsRequest asks which of the page's models the site serves; a
// ModelsReply answers.
type ModelsRequest struct{}

// WarmRequest, from the page when a model is chosen, opens it in every
// worker that will embed with it (as a run does first); a WarmReply
// answers once that is started.
type WarmRequest struct {
	Model  string `json:"model"`
	Engine string `json:"engine"`
}

// BenchRequest times embedding N sequences of Tokens ids (special tokens
// included) with Model under Engine (default auto) in batches of Batch
// (default 32); All splits each batch between the workers as a run does.
// A BenchReply answers.
type BenchRequest struct {
	Model  string `json:"model"`
	N      int    `json:"n"`
	Tokens int    `json:"tokens"`
	Engine string `json:"engine"`
	Batch  int    `json:"batch"`
	All    bool   `json:"all"`
}

// ---- from a run's first worker to its helpers ----

// PrepareRequest opens a model now; nothing answers (an error comes
// again with the first EmbedRequest).
type PrepareRequest struct {
	Model  string `json:"model"`
	Engine string `json:"engine"`
}

// EmbedRequest embeds a chunk of token-id sequences with a model's Side
// ("query" or "document"): Data holds the ids back to back and Lens
// their lengths, as little-endian int32. An EmbedReply answers.
type EmbedRequest struct {
	Model  string `json:"model"`
	Engine string `json:"engine"`
	Side   string `json:"side"`
	Data   []byte `json:"data"`
	Lens   []byte `json:"lens"`
}

// SearchRequest ranks a part of a search's queries (little-endian
// float32 rows of Dim values) against corpus CorpusID, which it carries
// (with its document ids) the first time a helper gets it; a SearchReply
// answers.
type SearchRequest struct {
	Dim      int      `json:"dim"`
	K        int      `json:"k"`
	Scoring  int      `json:"scoring"`
	CorpusID int      `json:"corpusID"`
	Queries  []byte   `json:"queries"`
	Corpus   []byte   `json:"corpus,omitempty"`
	DocIDs   []string `json:"docIDs,omitempty"`
}

// DrawsRequest draws the paired tests' random numbers for N pairs
// (metrics.DrawTables; Seed in decimal); a DrawsReply answers.
type DrawsRequest struct {
	N            int    `json:"n"`
	Permutations int    `json:"permutations"`
	Resamples    int    `json:"resamples"`
	Seed         string `json:"seed"`
}

// ---- replies ----

// RunReply answers a RunRequest: the rendered views of package ui and
// how the run went; only Skipped when the opening lesson was skipped.
type RunReply struct {
	Skipped string `json:"skipped,omitempty"`
	Views
	// TestSeconds is the time of the paired tests of the rate shown.
	TestSeconds float64    `json:"testSeconds"`
	Warnings    []string   `json:"warnings"`
	Encoding    []Encoding `json:"encoding"`
	Notes       []string   `json:"notes"`
	// RunSeconds is experiment.Run's time, Seconds the whole answer's.
	RunSeconds float64 `json:"runSeconds"`
	Seconds    float64 `json:"seconds"`
}

// Views are the results' views (package ui), as HTML, and the rates run.
type Views struct {
	Table     string    `json:"table"`
	Chart     string    `json:"chart"`
	Inspector string    `json:"inspector"`
	Rates     []float64 `json:"rates"`
}

// Encoding is what one model of a run encoded.
type Encoding struct {
	Model     string  `json:"model"`
	Texts     int     `json:"texts"`
	Seconds   float64 `json:"seconds"`
	Engine    string  `json:"engine"`
	Note      string  `json:"note"`
	PerSecond float64 `json:"perSecond,omitempty"`
}

// ReproduceReply answers a ReproduceRequest: package report's
// reproduction as HTML and Markdown, and its findings.
type ReproduceReply struct {
	HTML       string     `json:"html"`
	Markdown   string     `json:"markdown"`
	Findings   []string   `json:"findings"`
	Warnings   []string   `json:"warnings"`
	Version    string     `json:"version"`
	Encoding   []Encoding `json:"encoding"`
	Notes      []string   `json:"notes"`
	RunSeconds float64    `json:"runSeconds"`
	Seconds    float64    `json:"seconds"`
}

// ViewReply answers a ViewRequest.
type ViewReply struct {
	Views
}

// ExportReply answers an ExportRequest: the files "dreval eval" writes
// for the last results (results.json, comparisons.csv, the runs and
// qrels as a zip, every file as a zip).
type ExportReply struct {
	JSON    string `json:"json"`
	CSV     string `json:"csv"`
	RunsZip []byte `json:"runsZip"`
	AllZip  []byte `json:"allZip"`
}

// MetricsReply answers a MetricsRequest or a VectorsRequest: the
// measures as HTML, as "dreval metrics" prints them, and as CSV; for a
// VectorsRequest also the run searched and its sizes.
type MetricsReply struct {
	HTML    string `json:"html"`
	Text    string `json:"text"`
	CSV     string `json:"csv"`
	Run     string `json:"run,omitempty"`
	Docs    int    `json:"docs,omitempty"`
	Queries int    `json:"queries,omitempty"`
	Dim     int    `json:"dim,omitempty"`
}

// ModelReply answers a ModelRequest: the model as opened; Weights names
// the weights an upload's towers load.
type ModelReply struct {
	Model       string `json:"model"`
	Kind        string `json:"kind"`
	Engine      string `json:"engine"`
	Fingerprint string `json:"fingerprint"`
	Dim         int    `json:"dim,omitempty"`
	Score       string `json:"score,omitempty"`
	Towers      int    `json:"towers,omitempty"`
	Query       string `json:"query,omitempty"`
	Document    string `json:"document,omitempty"`
	Weights     string `json:"weights,omitempty"`
}

// ForgetReply answers a ForgetRequest.
type ForgetReply struct{}

// PickReply answers a PickRequest: each file to send, to its path.
type PickReply struct {
	Send map[string]string `json:"send"`
}

// FilesReply answers a FilesRequest.
type FilesReply struct{}

// ModelsReply answers a ModelsRequest: for each of the page's models, ""
// when the site serves it, else why not.
type ModelsReply struct {
	Unavailable map[string]string `json:"unavailable"`
}

// WarmReply answers a WarmRequest.
type WarmReply struct{}

// BenchReply answers a BenchRequest: sentences per second;
// SessionSeconds is the time in the worker's onnxruntime-web session,
// where it has one.
type BenchReply struct {
	Sentences      int     `json:"sentences"`
	Tokens         int     `json:"tokens"`
	Workers        int     `json:"workers"`
	Seconds        float64 `json:"seconds"`
	PerSecond      float64 `json:"perSecond"`
	Engine         string  `json:"engine"`
	SessionSeconds float64 `json:"sessionSeconds,omitempty"`
}

// EmbedReply answers an EmbedRequest: the vectors of Dim values as
// little-endian float32.
type EmbedReply struct {
	Dim  int    `json:"dim"`
	Data []byte `json:"data"`
}

// SearchReply answers a SearchRequest: each query's hits (packHits).
type SearchReply struct {
	Data []byte `json:"data"`
}

// DrawsReply answers a DrawsRequest: the tables' bytes, in memory order
// (little-endian uint64 signs, int32 picks).
type DrawsReply struct {
	Signs []byte `json:"signs"`
	Picks []byte `json:"picks"`
}

// Progress reports how a run goes (experiment.Event), or, with View set,
// the table and chart of a run or view ahead of its inspector.
type Progress struct {
	Step    string `json:"step"`
	Label   string `json:"label"`
	Done    int    `json:"done"`
	Total   int    `json:"total"`
	Unit    string `json:"unit"`
	Message string `json:"message"`
	View    bool   `json:"view,omitempty"`
	Table   string `json:"table,omitempty"`
	Chart   string `json:"chart,omitempty"`
}

// ErrorReply answers a request that failed.
type ErrorReply struct {
	Message string `json:"message"`
}

func (*RunRequest) MessageType() string       { return "run" }
func (*ReproduceRequest) MessageType() string { return "reproduce" }
func (*ViewRequest) MessageType() string      { return "view" }
func (*ExportRequest) MessageType() string    { return "export" }
func (*MetricsRequest) MessageType() string   { return "metrics" }
func (*VectorsRequest) MessageType() string   { return "vectors" }
func (*ModelRequest) MessageType() string     { return "model" }
func (*ForgetRequest) MessageType() string    { return "forget" }
func (*PickRequest) MessageType() string      { return "pick" }
func (*FilesRequest) MessageType() string     { return "files" }
func (*ModelsRequest) MessageType() string    { return "models" }
func (*WarmRequest) MessageType() string      { return "warm" }
func (*BenchRequest) MessageType() string     { return "bench" }
func (*PrepareRequest) MessageType() string   { return "prepare" }
func (*EmbedRequest) MessageType() string     { return "embed" }
func (*SearchRequest) MessageType() string    { return "search" }
func (*DrawsRequest) MessageType() string     { return "draws" }

func (*RunReply) MessageType() string       { return "result" }
func (*ReproduceReply) MessageType() string { return "reproduction" }
func (*ViewReply) MessageType() string      { return "view" }
func (*ExportReply) MessageType() string    { return "export" }
func (*MetricsReply) MessageType() string   { return "metrics" }
func (*ModelReply) MessageType() string     { return "model" }
func (*ForgetReply) MessageType() string    { return "forgotten" }
func (*PickReply) MessageType() string      { return "picked" }
func (*FilesReply) MessageType() string     { return "stored" }
func (*ModelsReply) MessageType() string    { return "models" }
func (*WarmReply) MessageType() string      { return "warming" }
func (*BenchReply) MessageType() string     { return "bench" }
func (*EmbedReply) MessageType() string     { return "vectors" }
func (*SearchReply) MessageType() string    { return "hits" }
func (*DrawsReply) MessageType() string     { return "draws" }
func (*Progress) MessageType() string       { return "progress" }
func (*ErrorReply) MessageType() string     { return "error" }
