//go:build js && wasm

package main

import (
	"context"
	"path"
	"syscall/js"

	"github.com/dreval/dreval/encoder"
)

// checkModel opens the model msg.model as a run would (the same loaders
// as the command line), so that a bad upload is reported, naming the
// file, before any run; it describes the model.
func (a *app) checkModel(msg js.Value) (map[string]any, error) {
	name := msg.Get("model").String()
	m, err := a.openLocal(context.Background(), name)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"model": name, "kind": string(m.Kind), "engine": m.Engine, "fingerprint": m.Fingerprint}
	if m.Document.Embedder != nil {
		out["dim"] = m.Document.Embedder.Dim()
		out["score"] = string(m.Score)
		out["towers"] = m.Towers
	}
	if w, err := encoder.WeightFile(encoder.FSDir(a.files, path.Join(modelsDir, name))); err == nil && isUpload(name) {
		out["weights"] = w
	}
	return out, nil
}

// forget closes and drops the opened model msg.model (an earlier upload),
// so that its weights can be collected.
func (a *app) forget(msg js.Value) {
	name := msg.Get("model").String()
	a.mu.Lock()
	m := a.models[name]
	delete(a.models, name)
	delete(a.servers, name)
	a.mu.Unlock()
	if m != nil && m.Close != nil {
		m.Close()
	}
}
