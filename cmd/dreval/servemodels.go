package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/retrieval"
	"github.com/dreval/dreval/serve"
)

// serveModels opens installed models once for "dreval serve" and "dreval
// site" (with experiment.OpenDense: ONNX Runtime when it can run here,
// else pure Go) and computes their demo corpus embeddings.
type serveModels struct {
	dir      string // the models directory
	opts     experiment.ModelOptions
	cacheDir string // corpus embedding cache shared with "dreval eval" ("": none)
	// note, when not nil, is told where demo embeddings came from.
	note func(string)

	mu sync.Mutex
	m  map[string]*serveModelEntry
}

type serveModelEntry struct {
	once sync.Once
	m    *experiment.Model
	err  error
}

func newServeModels(dir string, engine experiment.Engine, ortLib, cacheDir string) *serveModels {
	return &serveModels{
		dir:      dir,
		opts:     experiment.ModelOptions{Engine: engine, ModelsDir: dir, OrtLibrary: ortLib},
		cacheDir: cacheDir,
		m:        map[string]*serveModelEntry{},
	}
}

// open returns the dense model called name from the models directory.
func (s *serveModels) open(name string) (*experiment.Model, error) {
	s.mu.Lock()
	e := s.m[name]
	if e == nil {
		e = &serveModelEntry{}
		s.m[name] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		dir := filepath.Join(s.dir, name)
		if !installed(dir) {
			e.err = fmt.Errorf("model %q is not installed in %s; run \"dreval model get %s\": %w", name, s.dir, name, serve.ErrUnknownModel)
			return
		}
		e.m, e.err = experiment.OpenDense(name, modelfiles.OSDir(dir), s.opts)
		if e.err == nil {
			s.notef("model %s opened (%s)", name, strings.Join(e.m.Notes, "; "))
			_, e.err = experiment.NewTextEncoder(e.m, serve.SideDocument)
		}
	})
	if e.err != nil {
		s.mu.Lock()
		if s.m[name] == e {
			delete(s.m, name) // try again next time: it may be installed by then
		}
		s.mu.Unlock()
	}
	return e.m, e.err
}

// encoder implements serve.Options.Encoder.
func (s *serveModels) encoder(ctx context.Context, name, side string) (serve.Encoder, error) {
	m, err := s.open(name)
	if err != nil {
		return nil, err
	}
	return experiment.NewTextEncoder(m, side)
}

// demo implements serve.Options.Demo: model name's embeddings of the demo
// corpus, from the experiment's corpus cache when it holds them (checked
// as "dreval eval" checks them: experiment.CorpusVectors), else encoded
// here and stored there.
func (s *serveModels) demo(ctx context.Context, name string) (*serve.DemoData, error) {
	m, err := s.open(name)
	if err != nil {
		return nil, err
	}
	coll, err := dataset.Load("demo", "test")
	if err != nil {
		return nil, err
	}
	corpusHash := experiment.CorpusHash(coll.Corpus)
	var cache experiment.Cache
	if s.cacheDir != "" {
		cache = experiment.DirCache{Dir: s.cacheDir}
	}
	start := time.Now()
	mat, src, err := experiment.CorpusVectors(ctx, m, coll.Corpus, experiment.CorpusOptions{Cache: cache, CorpusHash: corpusHash})
	if err != nil {
		return nil, fmt.Errorf("the demo embeddings of %s: %w", name, err)
	}
	if src.Warning != "" {
		s.notef("warning: the demo embeddings of %s: %s", name, src.Warning)
	}
	if src.State == experiment.CorpusHit {
		s.notef("demo embeddings of %s read from %s", name, src.Where)
	} else {
		s.notef("demo embeddings of %s: %d documents encoded with engine %s in %.1fs", name, mat.Rows, m.Engine, time.Since(start).Seconds())
	}
	var npy bytes.Buffer
	if err := retrieval.WriteNPY(&npy, mat, retrieval.Float32); err != nil {
		return nil, err
	}
	meta, err := json.MarshalIndent(experiment.NewCorpusVectorsMeta(m, "demo", coll.Corpus, corpusHash, mat), "", "  ")
	if err != nil {
		return nil, err
	}
	d := &serve.DemoData{NPY: npy.Bytes(), Meta: append(meta, '\n')}
	if d.QueryNPY, d.QueryMeta, err = s.demoQueries(ctx, m, coll); err != nil {
		return nil, err
	}
	return d, nil
}

// demoQueries returns model m's vectors of the demo queries' clean texts
// (experiment.EncodeQueryVectors: the query tower, and the id sequence
// each vector was made from) as .npy and JSON, for the page to encode only
// the sequences a perturbation changed.
func (s *serveModels) demoQueries(ctx context.Context, m *experiment.Model, coll *dataset.Collection) (npy, meta []byte, err error) {
	start := time.Now()
	mat, qm, err := experiment.EncodeQueryVectors(ctx, m, "demo", coll.Queries)
	if err != nil {
		return nil, nil, fmt.Errorf("the demo query vectors of %s: %w", m.Name, err)
	}
	s.notef("demo query vectors of %s: %d queries encoded with engine %s in %.1fs", m.Name, mat.Rows, m.Query.Engine, time.Since(start).Seconds())
	var b bytes.Buffer
	if err := retrieval.WriteNPY(&b, mat, retrieval.Float32); err != nil {
		return nil, nil, err
	}
	j, err := json.Marshal(qm)
	if err != nil {
		return nil, nil, err
	}
	return b.Bytes(), append(j, '\n'), nil
}

func (s *serveModels) notef(format string, args ...any) {
	if s.note != nil {
		s.note(fmt.Sprintf(format, args...))
	}
}

// modelsFS is the models directory as served under /models/: nothing
// outside it, links included (serve.DirFS).
func modelsFS(dir string) fs.FS {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil
	}
	fsys, err := serve.DirFS(dir)
	if err != nil {
		return nil
	}
	return fsys
}

var errNoApp = errors.New("the browser app is not built into this binary; run make wasm && make build")
