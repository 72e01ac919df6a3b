package browser

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/dreval/dreval/dataset"
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

// fetchShared returns the body of url (relative to the site's root) as
// the page fetched it once for every worker (Fetcher: kept in Cache
// Storage, its download shown with size as the expected bytes and label
// naming it).
func (a *App) fetchShared(url string, size int64, label string) ([]byte, error) {
	b, _, err := a.startShared(url, size, label, false)()
	return b, err
}

// fetchSharedSum is fetchShared, also giving the body's hex SHA-256 as
// the page's browser computed it, once for every worker that asks for
// it (crypto.subtle, in native code: milliseconds for a model's weights,
// where Go's SHA-256 under js/wasm takes most of a second); "" where the
// browser has none (crypto.subtle is only in secure contexts).
func (a *App) fetchSharedSum(url string, size int64, label string) ([]byte, string, error) {
	return a.startShared(url, size, label, true)()
}

// startShared asks the page for url now, as fetchShared does (and, with
// sum, for its digest, as fetchSharedSum does), and returns what waits
// for the answer (Fetcher.Fetch). The page hashes a file only for a
// worker that asks for its digest: the 87 MB of a served model.onnx,
// which no one checks (ortweb.go), took it 0.17 s.
func (a *App) startShared(url string, size int64, label string, sum bool) func() ([]byte, string, error) {
	if a.ports.Files == nil {
		return func() ([]byte, string, error) {
			return nil, "", fmt.Errorf("fetching %s: this worker has no site", url)
		}
	}
	return a.ports.Files.Fetch(url, size, label, sum)
}

// index returns the site's model index (models/index.json), fetched
// once; a site without one serves no models.
func (a *App) index() (*modelfiles.Index, error) {
	a.served.once.Do(func() {
		url := path.Join(modelsDir, modelfiles.IndexFile)
		// The page fetched it first and sends it to the workers unasked
		// (worker.js's pushed files).
		b, err := a.fetchShared(url, 0, "")
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
func (a *App) availability() map[string]string {
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
func (a *App) ensureModel(name, e string) error {
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
	unread := a.weightsUnread(m, e)
	for _, f := range filesOf(m, name) {
		local := path.Join(modelsDir, dir, f)
		if _, err := a.files.Stat(local); err == nil {
			continue
		}
		url, size, label := modelfiles.URL(dir, f), m.Size(f), modelfiles.FileLabel(dir, f)
		if sum := m.SHA256(f); unread && sum != "" && modelfiles.IsWeights(f) {
			err := a.files.PutLazy(local, size, sum, func() ([]byte, string, error) {
				b, got, err := a.fetchSharedSum(url, size, label)
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
			d.b, d.sum, d.err = a.fetchSharedSum(d.url, d.want, label)
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
func (a *App) weightsUnread(m *modelfiles.Model, e string) bool {
	l := localEngine(e)
	return l != engineGo && m.Has(modelfiles.ONNX) && a.ortServed(l) == ""
}

// pick answers a PickRequest: which of the offered files to send, each
// to its path in the directory.
func pick(q *PickRequest) (*PickReply, error) {
	var send map[string]string
	var err error
	switch q.Kind {
	case "model":
		send, err = modelfiles.PickGraph(q.From, q.Files, q.Graph)
	case "data":
		send, err = dataset.PickFiles(q.Files, q.Folder)
	default:
		err = fmt.Errorf("pick: unknown kind %q", q.Kind)
	}
	if err != nil {
		return nil, err
	}
	return &PickReply{Send: send}, nil
}

// storeFiles answers a FilesRequest: its files go to q.Root (emptied
// first), after q.Forget's directory is dropped.
func (a *App) storeFiles(q *FilesRequest) error {
	root := path.Clean(q.Root)
	if !strings.HasPrefix(root, modelsDir+"/"+uploadPrefix) && !strings.HasPrefix(root, "upload/") {
		return fmt.Errorf("files: root %q is neither an uploaded model's directory nor an uploaded folder's", root)
	}
	if q.Forget != "" {
		a.files.RemoveAll(path.Clean(q.Forget))
	}
	a.files.RemoveAll(root)
	for _, f := range q.Files {
		rel := path.Clean(f.Path)
		if rel == "." || strings.HasPrefix(rel, "../") || rel == ".." || path.IsAbs(rel) {
			return fmt.Errorf("files: %q is not a path inside the folder", f.Path)
		}
		if err := a.files.Put(path.Join(root, rel), f.Data); err != nil {
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
func (a *App) data(name, split string) (dataSource, error) {
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
