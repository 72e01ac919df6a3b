//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"
	"syscall/js"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/internal/memfs"
	"github.com/dreval/dreval/modelfiles"
)

// The worker keeps every file it reads in its memfs.FS: the models the
// site serves, fetched when a run needs them, under models/NAME/; the
// model folders the user uploads under models/upload-N-FOLDER/; the
// collection folders under upload/FOLDER/. The loaders read them there
// as the command line reads its files on disk. Which files of a model or
// a collection are read is decided here and by packages modelfiles and
// dataset, never by the page's script, which only copies what it is told.

// modelsDir is the directory of the models in the worker's files.
const modelsDir = "models"

// uploadPrefix starts the names of the models uploaded through the page;
// the page puts their files in modelsDir/<name> of every worker, under a
// fresh name per upload.
const uploadPrefix = "upload-"

// isUpload reports whether name is an uploaded model. An uploaded model is
// never encoded by the server: its name there means another model.
func isUpload(name string) bool { return strings.HasPrefix(name, uploadPrefix) }

// served is the site's models/index.json, read once.
type served struct {
	once  sync.Once
	index *modelfiles.Index
	err   error
}

// fetchBytes fetches url (relative to the worker's script) with the
// browser's fetch and returns the body; a status other than 200 is an
// error naming it.
func fetchBytes(url string) ([]byte, error) {
	resp, err := await(js.Global().Call("fetch", url))
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %v", url, err)
	}
	if st := resp.Get("status").Int(); st != 200 {
		return nil, fmt.Errorf("fetching %s: %d %s", url, st, resp.Get("statusText").String())
	}
	ab, err := await(resp.Call("arrayBuffer"))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", url, err)
	}
	return bytesOf(js.Global().Get("Uint8Array").New(ab)), nil
}

// fetchShared returns the body of url (relative to the worker's script)
// as the page fetched it once for every worker (worker.js's
// drevalFetch: kept in Cache Storage, its download shown with size as
// the expected bytes and label naming it), or fetched here when the
// worker runs without the page.
func fetchShared(url string, size int64, label string) ([]byte, error) {
	b, _, err := startShared(url, size, label, false)()
	return b, err
}

// fetchSharedSum is fetchShared, also giving the body's hex SHA-256 as
// the page's browser computed it, once for every worker that asks for
// it (crypto.subtle, in native code: milliseconds for a model's weights,
// where Go's SHA-256 under js/wasm takes most of a second; worker.js's
// drevalFetchFile); "" where the browser has none (crypto.subtle is only
// in secure contexts) or the worker fetched the file itself.
func fetchSharedSum(url string, size int64, label string) ([]byte, string, error) {
	return startShared(url, size, label, true)()
}

// startShared asks the page for url now, as fetchShared does (and, with
// sum, for its digest, as fetchSharedSum does), and returns what waits
// for the answer. The ask is posted before it returns: one made in a
// goroutine is posted only when that goroutine runs, which in
// WebAssembly is when every other goroutine waits. The page hashes a
// file only for a worker that asks for its digest: the 87 MB of a served
// model.onnx, which no one checks (ortweb.go), took it 0.17 s.
func startShared(url string, size int64, label string, sum bool) func() ([]byte, string, error) {
	f := js.Global().Get("drevalFetchFile")
	if f.Type() != js.TypeFunction {
		return func() ([]byte, string, error) {
			b, err := fetchBytes(url)
			return b, "", err
		}
	}
	asked := f.Invoke(url, size, label, sum)
	return func() ([]byte, string, error) {
		a, err := await(asked)
		if err != nil {
			return nil, "", fmt.Errorf("fetching %s: %v", url, err)
		}
		b := bytesOf(js.Global().Get("Uint8Array").New(a.Get("data")))
		if !sum {
			return b, "", nil
		}
		// The page hashed these bytes once for every worker, which each
		// get an exact copy of them (structured clone or transfer); b is
		// this worker's copy of its copy.
		return b, a.Get("sha256").String(), nil
	}
}

// index returns the site's model index (models/index.json), fetched
// once; a site without one serves no models.
func (a *app) index() (*modelfiles.Index, error) {
	a.served.once.Do(func() {
		url := path.Join(modelsDir, modelfiles.IndexFile)
		// The page fetched it first and sends it to the workers unasked
		// (worker.js's pushed files).
		b, err := fetchShared(url, 0, "")
		if err != nil {
			a.served.err = fmt.Errorf("%w: this site lists no models", err)
			return
		}
		var x modelfiles.Index
		if err := json.Unmarshal(b, &x); err != nil {
			a.served.err = fmt.Errorf("%s: %v", url, err)
			return
		}
		a.served.index = &x
	})
	return a.served.index, a.served.err
}

// builtinModels are the models the page offers besides an upload.
var builtinModels = []string{"static", "minilm", "bm25"}

// servedName returns the served model whose files model name needs: bm25
// perturbs and decodes query ids with minilm's tokenizer.
func servedName(name string) string {
	if name == "bm25" {
		return "minilm"
	}
	return name
}

// filesOf returns the files of served model name a run reads.
func filesOf(m *modelfiles.Model, name string) []string {
	if name == "bm25" {
		return []string{"tokenizer.json"}
	}
	return modelfiles.ToLoad(m.Paths())
}

// availability says which of builtinModels the site serves: "" when it
// does, else why not.
func (a *app) availability() map[string]string {
	out := map[string]string{}
	x, err := a.index()
	for _, name := range builtinModels {
		m := (*modelfiles.Model)(nil)
		if x != nil {
			m = x.Model(servedName(name))
		}
		switch {
		case err != nil:
			out[name] = err.Error()
		case m == nil:
			out[name] = "not available on this server"
		case name == "bm25" && !m.Has("tokenizer.json"):
			out[name] = "needs minilm's tokenizer.json, which this server does not serve"
		case name != "bm25" && (!m.Has("config.json") || !m.Has("tokenizer.json")):
			out[name] = "this server serves its files partly"
		default:
			out[name] = ""
		}
	}
	return out
}

// ensureModel fetches the files served model name needs for engine
// setting e into the worker's files, once; uploads and models already
// there need nothing. Weights that e's engine does not read
// (weightsUnread) and whose SHA-256 the site's index lists are put
// without their bytes (memfs.FS.PutLazy): their digest makes the model's
// fingerprint, and they are fetched, and checked against it, only if
// something reads them.
func (a *app) ensureModel(name, e string) error {
	if isUpload(name) || name == "" {
		return nil
	}
	dir := servedName(name)
	a.mu.Lock()
	done := a.fetched[name]
	a.mu.Unlock()
	if done {
		return nil
	}
	x, err := a.index()
	if err != nil {
		return fmt.Errorf("model %s: %w", name, err)
	}
	m := x.Model(dir)
	if m == nil {
		return fmt.Errorf("model %s is not served here (models/%s is not in %s/%s)", name, dir, modelsDir, modelfiles.IndexFile)
	}
	// The files download at once, each checked and stored in order.
	type download struct {
		file, local, url string
		want             int64
		b                []byte
		sum              string
		err              error
	}
	var downloads []*download
	var wg sync.WaitGroup
	unread := weightsUnread(m, e)
	for _, f := range filesOf(m, name) {
		local := path.Join(modelsDir, dir, f)
		if _, err := a.files.Stat(local); err == nil {
			continue
		}
		url, size, label := modelfiles.URL(dir, f), m.Size(f), modelfiles.FileLabel(dir, f)
		if sum := m.SHA256(f); unread && sum != "" && modelfiles.IsWeights(f) {
			err := a.files.PutLazy(local, size, sum, func() ([]byte, string, error) {
				b, got, err := fetchSharedSum(url, size, label)
				if err != nil {
					return nil, "", fmt.Errorf("model %s: %w", name, err)
				}
				return b, got, nil
			})
			if err != nil {
				return err
			}
			continue
		}
		d := &download{file: f, local: local, url: url, want: size}
		downloads = append(downloads, d)
		wg.Go(func() {
			// The loaders check the weights against their recorded
			// digest with the browser's SHA-256 (memfs.FS.SHA256).
			d.b, d.sum, d.err = fetchSharedSum(d.url, d.want, label)
		})
	}
	wg.Wait()
	for _, d := range downloads {
		if d.err != nil {
			return fmt.Errorf("model %s: %w", name, d.err)
		}
		if d.want >= 0 && int64(len(d.b)) != d.want {
			return fmt.Errorf("model %s: %s has %d bytes, but the index lists %d: the download was cut short", name, d.url, len(d.b), d.want)
		}
		if listed := m.SHA256(d.file); listed != "" && d.sum != "" && d.sum != listed {
			return fmt.Errorf("model %s: %s has SHA-256 %s, but the site's %s/%s lists %s: the file changed after the index was written, or on its way", name, d.url, d.sum, modelsDir, modelfiles.IndexFile, listed)
		}
		var err error
		if d.sum != "" {
			err = a.files.PutWithSHA256(d.local, d.b, d.sum)
		} else {
			err = a.files.Put(d.local, d.b)
		}
		if err != nil {
			return err
		}
	}
	a.mu.Lock()
	a.fetched[name] = true
	a.mu.Unlock()
	return nil
}

// weightsUnread reports whether opening served model m for engine
// setting e leaves its weights unread: its transformer runs on
// onnxruntime-web, from the model.onnx the site serves beside the
// weights (servedGraph), where the site serves onnxruntime-web's build.
// Where onnxruntime-web then fails to load and the pure-Go engine takes
// over, that engine reads the weights, which come then.
func weightsUnread(m *modelfiles.Model, e string) bool {
	l := localEngine(e)
	return l != engineGo && m.Has(modelfiles.ONNX) && ortServed(l) == ""
}

// pick answers the page's "pick": msg.kind is "model" or "data",
// msg.files the offered files' paths, msg.from what they are (for
// messages), msg.folder whether they came as a folder, and for a model
// msg.graph the ONNX graph chosen ("" the default; modelfiles.PickGraph). The answer maps
// each file to send to its path in the directory.
func (a *app) pick(msg js.Value) (map[string]any, error) {
	var files []string
	for i := 0; i < msg.Get("files").Length(); i++ {
		files = append(files, msg.Get("files").Index(i).String())
	}
	var send map[string]string
	var err error
	switch k := msg.Get("kind").String(); k {
	case "model":
		send, err = modelfiles.PickGraph(msg.Get("from").String(), files, stringOf(msg.Get("graph")))
	case "data":
		send, err = dataset.PickFiles(files, msg.Get("folder").Truthy())
	default:
		err = fmt.Errorf("pick: unknown kind %q", k)
	}
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for k, v := range send {
		out[k] = v
	}
	return map[string]any{"send": out}, nil
}

// storeFiles answers the page's "files": msg.root is the directory the
// files go to (models/upload-N-FOLDER or upload/FOLDER), emptied first;
// msg.files holds {path, data: ArrayBuffer}, path relative to the root;
// msg.forget names an earlier upload's directory to drop.
func (a *app) storeFiles(msg js.Value) error {
	root := path.Clean(msg.Get("root").String())
	if !strings.HasPrefix(root, modelsDir+"/"+uploadPrefix) && !strings.HasPrefix(root, "upload/") {
		return fmt.Errorf("files: root %q is neither an uploaded model's directory nor an uploaded folder's", root)
	}
	if f := msg.Get("forget"); f.Truthy() {
		a.files.RemoveAll(path.Clean(f.String()))
	}
	a.files.RemoveAll(root)
	fs := msg.Get("files")
	for i := 0; i < fs.Length(); i++ {
		f := fs.Index(i)
		rel := path.Clean(f.Get("path").String())
		if rel == "." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
			return fmt.Errorf("files: %q is not a path inside the folder", f.Get("path").String())
		}
		if err := a.files.Put(path.Join(root, rel), bytesOf(js.Global().Get("Uint8Array").New(f.Get("data")))); err != nil {
			return err
		}
	}
	return nil
}

// dataSource is what a request's data names: the built-in demo, by name,
// or a collection loaded from the worker's files.
type dataSource struct {
	names       []string
	collections []*dataset.Collection
}

// data returns the collection a request names: "demo", or an uploaded
// folder (upload/FOLDER) loaded from the worker's files.
func (a *app) data(name, split string) (dataSource, error) {
	if !strings.HasPrefix(name, "upload/") {
		return dataSource{names: []string{name}}, nil
	}
	if split == "" {
		split = "test"
	}
	c, err := dataset.LoadFS(a.files, name, split)
	if err != nil {
		return dataSource{}, err
	}
	return dataSource{collections: []*dataset.Collection{c}}, nil
}

// newFiles returns the worker's empty file system.
func newFiles() *memfs.FS { return &memfs.FS{} }
