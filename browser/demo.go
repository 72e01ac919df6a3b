package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/dreval/dreval/dataset"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/modelfiles"
	"github.com/dreval/dreval/retrieval"
)

// demoVectors puts the site's precomputed demo corpus vectors of model
// name into the corpus cache when they are the ones this run would
// compute (experiment.CorpusVectorsMeta.Fits: the same document tower
// and engine family, the same tokenizer, the same corpus). A run of the
// demo then encodes its queries only. Where they do not fit, or the site
// has none, the run encodes the corpus and the page says why.
//
// pre, when not nil, is their fetch, started with the run.
func (a *App) demoVectors(ctx context.Context, coll *dataset.Collection, name, e string, pre *demoFetch) error {
	if name == "bm25" || name == "" || isUpload(name) {
		return nil
	}
	m, _, _, err := a.resolve(ctx, name, e)
	if err != nil || m.Kind != experiment.Dense {
		return err
	}
	hash := experiment.CorpusHash(coll.Corpus)
	key := experiment.CacheKey(m.Document.Fingerprint, hash)
	if _, _, _, ok, err := a.cache.Get(key); ok || err != nil {
		return err
	}
	base := modelfiles.DemoDir + "/" + name
	if pre == nil {
		pre = a.fetchDemoFiles(name, name)
	}
	pre.wg.Wait()
	b, err := pre.js, pre.jsErr
	if err != nil {
		a.current.note(fmt.Sprintf("No precomputed demo vectors of %s here (%v): encoding the %d documents.", name, err, len(coll.Corpus)))
		return nil
	}
	var meta experiment.CorpusVectorsMeta
	if err := json.Unmarshal(b, &meta); err != nil {
		a.current.note(fmt.Sprintf("%s.json is not demo metadata (%v): encoding the %d documents.", base, err, len(coll.Corpus)))
		return nil
	}
	if why := meta.Fits(m, coll.Corpus, hash); why != "" {
		a.current.note(fmt.Sprintf("The site's precomputed demo vectors of %s are not used: %s; encoding the %d documents.", name, why, len(coll.Corpus)))
		return nil
	}
	npy, err := pre.npy, pre.npyErr
	if err != nil {
		a.current.note(fmt.Sprintf("The site's precomputed demo vectors of %s could not be read (%v): encoding the %d documents.", name, err, len(coll.Corpus)))
		return nil
	}
	mat, err := retrieval.ReadNPY(bytes.NewReader(npy), base+".npy")
	if err != nil {
		return err
	}
	if err := meta.CheckMatrix(mat, base+".npy"); err != nil {
		return err
	}
	if err := a.cache.Put(key, mat, experiment.CacheMeta{Model: name, ModelFingerprint: meta.ModelFingerprint,
		TokenizerFingerprint: meta.TokenizerFingerprint, CorpusSHA256: hash, Rows: mat.Rows, Dim: mat.Dim}); err != nil {
		return err
	}
	a.current.note(fmt.Sprintf("The %d demo documents' vectors came precomputed (%s.npy, engine %s): only the queries were encoded.", mat.Rows, base, meta.Engine))
	return nil
}

// demoFetch is the fetch of a model's precomputed demo vectors (a .json
// description and its .npy), started before the model is open.
type demoFetch struct {
	name          string
	wg            sync.WaitGroup
	js, npy       []byte
	jsErr, npyErr error
}

// fetchDemoQueries starts fetching the site's precomputed vectors of the
// demo queries' clean texts by model name (data/demo/NAME.queries.npy
// and .json, "dreval site" and "dreval serve" write them); nil for
// models that have none.
func (a *App) fetchDemoQueries(name string) *demoFetch {
	return a.fetchDemoFiles(name, name+".queries")
}

// fetchDemoCorpus starts fetching the site's precomputed demo corpus
// vectors of model name (data/demo/NAME.json and .npy) on the model's
// first run of the demo; nil after it (the corpus cache holds them) and
// for models that have none.
func (a *App) fetchDemoCorpus(name string) *demoFetch {
	a.mu.Lock()
	done := a.corpusFetched[name]
	a.corpusFetched[name] = true
	a.mu.Unlock()
	if done {
		return nil
	}
	return a.fetchDemoFiles(name, name)
}

// fetchDemoFiles starts fetching data/demo/BASE.json and BASE.npy for
// model name; nil for models that have none. Both are asked for at once
// where the site's model index lists the .npy (modelfiles.Index.Demo:
// "dreval site" writes them, and the page preloads the opening model's);
// elsewhere the .npy only once the .json came: a site without them
// answers one 404, which the page expects of optional files.
func (a *App) fetchDemoFiles(name, base string) *demoFetch {
	if name == "bm25" || name == "" || isUpload(name) {
		return nil
	}
	f := &demoFetch{name: name}
	f.wg.Add(1)
	dir := modelfiles.DemoDir + "/"
	// Asked now, not when the goroutine runs.
	meta := a.startShared(dir+base+".json", 0, "", false)
	var npy func() ([]byte, string, error)
	if x, err := a.index(); err == nil && x.HasDemo(base+".npy") {
		npy = a.startShared(dir+base+".npy", 0, "", false)
	}
	go func() {
		defer f.wg.Done()
		if f.js, _, f.jsErr = meta(); f.jsErr == nil {
			if npy == nil {
				npy = a.startShared(dir+base+".npy", 0, "", false)
			}
			f.npy, _, f.npyErr = npy()
		}
	}()
	return f
}

// demoQueryVectors gives this run the precomputed demo query vectors f
// fetched when they are the ones this run's query tower would compute
// (experiment.CheckQueryVectors: the query tower's and the tokenizer's
// fingerprints, the queries' hash, ids and the exact token ids of every
// row), so that the run encodes only the query sequences a perturbation
// changed: a vector is used only for exactly the id sequence it was made
// from. Where they do not fit, or the site has none, every query is
// encoded and the page says why.
func (a *App) demoQueryVectors(ctx context.Context, coll *dataset.Collection, f *demoFetch, e string) error {
	if f == nil {
		return nil
	}
	f.wg.Wait()
	name := f.name
	m, _, _, err := a.resolve(ctx, name, e)
	if err != nil || m.Kind != experiment.Dense {
		return err
	}
	base := "data/demo/" + name + ".queries"
	n := len(coll.Queries)
	if f.jsErr != nil || f.npyErr != nil {
		a.current.note(fmt.Sprintf("No precomputed demo query vectors of %s here (%v): encoding the %d queries.", name, errors.Join(f.jsErr, f.npyErr), n))
		return nil
	}
	var meta experiment.QueryVectorsMeta
	if err := json.Unmarshal(f.js, &meta); err != nil {
		a.current.note(fmt.Sprintf("%s.json is not query vector metadata (%v): encoding the %d queries.", base, err, n))
		return nil
	}
	mat, err := retrieval.ReadNPY(bytes.NewReader(f.npy), base+".npy")
	if err != nil {
		return err
	}
	v, why, err := experiment.CheckQueryVectors(m, coll.Queries, meta, mat, base+".npy")
	if err != nil {
		return err
	}
	if why != "" {
		a.current.note(fmt.Sprintf("The site's precomputed demo query vectors of %s are not used: %s; encoding the %d queries.", name, why, n))
		return nil
	}
	a.current.setQueryVectors(name, v)
	a.current.note(fmt.Sprintf("The %d demo queries' clean vectors came precomputed (%s.npy, engine %s): only the query sequences a perturbation changed were encoded.", n, base, meta.Engine))
	return nil
}
