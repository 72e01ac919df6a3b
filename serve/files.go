package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/dreval/dreval/modelfiles"
)

// models serves GET /models/NAME/FILE from Options.Models, the files of
// a model that its loaders read (modelfiles.Is), and GET
// /models/index.json, the list of the models and their files
// (modelfiles.Index).
func (s *server) models(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, errorf(http.StatusMethodNotAllowed, "%s %s: model files are read with GET", r.Method, r.URL.Path))
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, "/models/")
	if rest == modelfiles.IndexFile {
		s.modelIndex(w, r)
		return
	}
	model, file, ok := strings.Cut(rest, "/")
	if !ok || !validName(model) || !modelfiles.Is(file) {
		writeError(w, errorf(http.StatusNotFound, "%s: not a model file; /models/NAME/FILE serves a model's configuration, tokenizer, sentence-transformers settings and weights, and /models/index.json lists them", r.URL.Path))
		return
	}
	if s.opts.Models == nil {
		writeError(w, errorf(http.StatusNotFound, "%s: this server has no model files", r.URL.Path))
		return
	}
	name := model + "/" + file
	f, err := s.opts.Models.Open(name)
	if err != nil {
		if errors.Is(err, errOutside) {
			writeError(w, errorf(http.StatusNotFound, "%s: not served: the file is %v", r.URL.Path, errOutside))
			return
		}
		if errors.Is(err, fs.ErrNotExist) {
			writeError(w, errorf(http.StatusNotFound, "%s: model %q has no %s here (%v)", r.URL.Path, model, file, ErrUnknownModel))
			return
		}
		writeError(w, fmt.Errorf("%s: %w", r.URL.Path, err))
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		writeError(w, errorf(http.StatusNotFound, "%s: not a regular file", r.URL.Path))
		return
	}
	h := w.Header()
	h.Set("Content-Type", ContentType(file))
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	// The weights are large: the ETag comes from size and time, not
	// content, so serving them never reads them twice.
	etag := fmt.Sprintf(`"%x-%x"`, st.Size(), st.ModTime().UnixNano())
	if rs, ok := f.(io.ReadSeeker); ok {
		sendFile(w, r, file, rs, st.Size(), st.ModTime(), etag, s.opts.HostCompresses)
		return
	}
	data, err := io.ReadAll(f)
	if err != nil {
		writeError(w, fmt.Errorf("%s: %w", r.URL.Path, err))
		return
	}
	sendFile(w, r, file, bytes.NewReader(data), int64(len(data)), st.ModTime(), etag, s.opts.HostCompresses)
}

// modelIndex serves /models/index.json: Options.Models's models and
// their files, listed when asked (an installed model appears without a
// restart), and the files the page preloads (modelfiles.Index.Preload).
func (s *server) modelIndex(w http.ResponseWriter, r *http.Request) {
	x := &modelfiles.Index{Models: []modelfiles.Model{}}
	if s.opts.Models != nil {
		var err error
		if x, err = modelfiles.IndexFS(s.opts.Models); err != nil {
			writeError(w, fmt.Errorf("%s: %w", r.URL.Path, err))
			return
		}
	}
	if s.opts.Models != nil {
		// The weights' digests let the page leave unfetched the weights
		// an engine does not read (modelfiles.File.SHA256).
		if err := x.SetDigests(s.opts.Models, s.digests.sum); err != nil {
			writeError(w, fmt.Errorf("%s: %w", r.URL.Path, err))
			return
		}
	}
	x.SetPreload(modelfiles.LessonModel) // fetched by the page with the app
	b, err := json.Marshal(x)
	if err != nil {
		writeError(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, modelfiles.IndexFile, time.Time{}, bytes.NewReader(b))
}

// digestCache keeps the hex SHA-256 of the models' files by path, each
// valid while the file keeps its size and modification time (as the
// ETags the server sends for them): a model's weights are hashed once,
// not on every request for the index (about 25 ms for 45 MB).
type digestCache struct {
	mu   sync.Mutex
	sums map[string]fileDigest
}

type fileDigest struct {
	size int64
	mod  time.Time
	sum  string
}

// sum returns the hex SHA-256 of file name in fsys, from the cache when
// the file has not changed since it was hashed.
func (c *digestCache) sum(fsys fs.FS, name string) (string, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	d, ok := c.sums[name]
	c.mu.Unlock()
	if ok && d.size == st.Size() && d.mod.Equal(st.ModTime()) {
		return d.sum, nil
	}
	sum, err := modelfiles.FileSHA256(fsys, name)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if c.sums == nil {
		c.sums = map[string]fileDigest{}
	}
	c.sums[name] = fileDigest{size: st.Size(), mod: st.ModTime(), sum: sum}
	c.mu.Unlock()
	return sum, nil
}

// demoEntry is one model's demo data, computed once.
type demoEntry struct {
	done chan struct{}
	data *DemoData
	err  error
}

// demoFile serves GET /data/demo/MODEL.npy and /data/demo/MODEL.json,
// and the queries' /data/demo/MODEL.queries.npy and .json.
func (s *server) demoFile(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, errorf(http.StatusMethodNotAllowed, "%s %s: demo data is read with GET", r.Method, r.URL.Path))
		return
	}
	file, ok := strings.CutPrefix(r.URL.Path, "/data/demo/")
	ext := path.Ext(file)
	model := strings.TrimSuffix(file, ext)
	model, queries := strings.CutSuffix(model, ".queries")
	if !ok || (ext != ".npy" && ext != ".json") || !validName(model) || strings.Contains(model, ".") {
		writeError(w, errorf(http.StatusNotFound, "%s: no such file; the demo data is /data/demo/MODEL.npy and /data/demo/MODEL.json (the queries': MODEL.queries.npy and .json)", r.URL.Path))
		return
	}
	if s.opts.Demo == nil {
		writeError(w, errorf(http.StatusNotFound, "%s: this server has no demo embeddings", r.URL.Path))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.limits.Timeout)
	defer cancel()
	d, err := s.demoData(ctx, model)
	if err != nil {
		if errors.Is(err, ErrUnknownModel) {
			err = errorf(http.StatusNotFound, "%s: %s", r.URL.Path, scrubPaths(err.Error()))
		} else if ctx.Err() != nil {
			err = errorf(http.StatusServiceUnavailable, "%s: the demo embeddings are still being computed; retry shortly", r.URL.Path)
		}
		writeError(w, err)
		return
	}
	body := d.NPY
	switch {
	case queries && ext == ".json":
		body = d.QueryMeta
	case queries:
		body = d.QueryNPY
	case ext == ".json":
		body = d.Meta
	}
	if body == nil {
		writeError(w, errorf(http.StatusNotFound, "%s: this server has no precomputed demo query vectors of %s", r.URL.Path, model))
		return
	}
	h := w.Header()
	h.Set("Content-Type", ContentType(file))
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	sendFile(w, r, file, bytes.NewReader(body), int64(len(body)), time.Time{}, hashETag(body), s.opts.HostCompresses)
}

// demoData returns model's demo data, computing it once; callers asking
// while it is computed wait for it (until ctx ends). Failures are not
// kept, so a model installed later is found.
func (s *server) demoData(ctx context.Context, model string) (*DemoData, error) {
	s.demoMu.Lock()
	e := s.demo[model]
	first := e == nil
	if first {
		e = &demoEntry{done: make(chan struct{})}
		s.demo[model] = e
	}
	s.demoMu.Unlock()
	if first {
		go func() {
			defer close(e.done)
			defer func() {
				if p := recover(); p != nil {
					e.err = fmt.Errorf("computing the demo embeddings of %s: internal error: %v", model, p)
				}
				if e.err == nil && e.data == nil {
					e.err = fmt.Errorf("computing the demo embeddings of %s: no data", model)
				}
				if e.err != nil {
					s.demoMu.Lock()
					delete(s.demo, model)
					s.demoMu.Unlock()
				}
			}()
			// Not the request's context: the result serves every later
			// request too.
			e.data, e.err = s.opts.Demo(context.Background(), model)
		}()
	}
	select {
	case <-e.done:
		return e.data, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
