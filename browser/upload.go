package browser

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/dreval/dreval/encoder/bert"
	"github.com/dreval/dreval/experiment"
	"github.com/dreval/dreval/modelfiles"
)

// checkModel opens the model q.Model as a run would (the same loaders
// as the command line), so that a bad upload is reported, naming the
// file, before any run; it describes the model.
func (a *App) checkModel(q *ModelRequest) (*ModelReply, error) {
	name := q.Model
	e, err := checkEngine(q.Engine)
	if err != nil {
		return nil, err
	}
	m, err := a.openLocal(context.Background(), name, e)
	if np := (*bert.NotPureGoError)(nil); errors.As(err, &np) {
		return nil, fmt.Errorf("%w (in this page: Engine auto or onnxruntime-web (WebAssembly) runs it, where the site serves onnxruntime-web)", err)
	}
	if err != nil {
		return nil, err
	}
	out := &ModelReply{Model: name, Kind: string(m.Kind), Engine: m.Engine, Fingerprint: m.Fingerprint}
	if m.Document.Embedder != nil {
		out.Dim = m.Document.Embedder.Dim()
		out.Score = string(m.Score)
		out.Towers = m.Towers
		out.Query = m.Query.Description
		out.Document = m.Document.Description
	}
	if isUpload(name) {
		// The weights each tower loads, named within the upload.
		root := path.Join(modelsDir, name)
		var weights []string
		for _, dir := range []string{m.Query.Dir, m.Document.Dir} {
			d := modelfiles.FSDir(a.files, dir)
			if t, err := modelfiles.TransformerDir(d); err == nil {
				d = t
			}
			if w, err := d.WeightFile(); err == nil {
				rel := strings.TrimPrefix(strings.TrimPrefix(path.Join(d.Name(), w), root), "/")
				if !slices.Contains(weights, rel) {
					weights = append(weights, rel)
				}
			}
		}
		out.Weights = strings.Join(weights, ", ")
	}
	return out, nil
}

// forget closes and drops the opened model name (an earlier upload), so
// that its weights can be collected.
func (a *App) forget(name string) {
	var closing []*experiment.Model
	a.mu.Lock()
	for key, m := range a.models {
		if strings.HasPrefix(key, name+"\x00") {
			closing = append(closing, m)
			delete(a.models, key)
		}
	}
	for key := range a.servers {
		if strings.HasPrefix(key, name+"\x00") {
			delete(a.servers, key)
		}
	}
	// The session's indexes of the upload would stay in memory.
	a.session = a.newSession()
	a.mu.Unlock()
	for _, m := range closing {
		if m.Close != nil {
			m.Close()
		}
	}
}
