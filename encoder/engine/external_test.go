package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/transformer"
	"github.com/dreval/dreval/modelfiles"
)

// goTransformer is an External engine whose transformer is the pure-Go
// one (loaded again with transformer.Load), standing in for onnxruntime-web:
// it records the settings it was given and fails when told to.
type goTransformer struct {
	dir    modelfiles.Dir
	fail   error
	got    *transformer.Settings
	closed bool
}

func (g *goTransformer) external() *External {
	return &External{Name: ORT, New: func(s *transformer.Settings) (encoder.Embedder, Info, func() error, error) {
		g.got = s
		if g.fail != nil {
			return nil, Info{}, nil, g.fail
		}
		e, err := transformer.Load(g.dir, transformer.Options{})
		if err != nil {
			return nil, Info{}, nil, err
		}
		return e.Embedder(), Info{Threads: 3, ORTVersion: "test web"}, func() error { g.closed = true; return nil }, nil
	}}
}

func TestOpenExternal(t *testing.T) {
	dir := tinyBERTDir(t, false)
	d := modelfiles.OSDir(dir)
	ref, err := Open(d, Options{Engine: Go})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{Auto, ORT} {
		g := &goTransformer{dir: d}
		m, err := Open(d, Options{Engine: e, ORTLibrary: "/nonexistent", External: g.external()})
		if err != nil {
			t.Fatalf("engine %s: %v", e, err)
		}
		if m.Info.Engine != ORT || m.Info.Threads != 3 || m.Info.Dims != 8 || m.Info.Fallback != "" {
			t.Errorf("engine %s: info %+v, want the external engine's", e, m.Info)
		}
		if g.got == nil || g.got.Head == nil || g.got.Config.HiddenSize != 8 || g.got.Weights != "model.safetensors" {
			t.Errorf("engine %s: the external engine got settings %+v", e, g.got)
		}
		a, _, err := m.Encode([]string{"the cat sat"})
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := ref.Encode([]string{"the cat sat"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range a[0] {
			if a[0][i] != b[0][i] {
				t.Fatalf("engine %s: the encoder does not embed through the external transformer and the model's head", e)
			}
		}
		m.Close()
		if !g.closed {
			t.Errorf("engine %s: Close did not release the external engine", e)
		}
	}

	// Auto falls back to Go with the reason; asked for by name, the
	// failure is an error; engine go never calls it.
	g := &goTransformer{dir: d, fail: errors.New("onnxruntime-web is not on this site")}
	m, err := Open(d, Options{Engine: Auto, External: g.external()})
	if err != nil {
		t.Fatal(err)
	}
	if m.Info.Engine != Go || !strings.Contains(m.Info.Fallback, "engine ort: onnxruntime-web is not on this site") {
		t.Errorf("auto with a failing external engine: info %+v", m.Info)
	}
	if _, err := Open(d, Options{Engine: ORT, External: g.external()}); err == nil || err.Error() != "engine ort: onnxruntime-web is not on this site" {
		t.Errorf("engine ort with a failing external engine: %v", err)
	}
	g.got = nil
	if m, err := Open(d, Options{Engine: Go, External: g.external()}); err != nil || m.Info.Engine != Go || g.got != nil {
		t.Errorf("engine go with an external engine: %v, info %+v, called %v", err, m.Info, g.got != nil)
	}
}
