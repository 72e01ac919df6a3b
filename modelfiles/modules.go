package modelfiles

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// Module is one entry of sentence-transformers' modules.json.
type Module struct {
	Idx  int    `json:"idx"`
	Name string `json:"name"`
	Path string `json:"path"`
	Type string `json:"type"`
}

// The module types of sentence-transformers that dreval runs.
const (
	ModuleTransformer = "sentence_transformers.models.Transformer"
	ModulePooling     = "sentence_transformers.models.Pooling"
	ModuleDense       = "sentence_transformers.models.Dense"
	ModuleLayerNorm   = "sentence_transformers.models.LayerNorm"
	ModuleNormalize   = "sentence_transformers.models.Normalize"
)

// ReadModules reads modules.json of d; nil (no error) when there is
// none. It checks the modules are ones this package runs, in an order it
// can run: a Transformer first, then a Pooling, then Dense and LayerNorm
// modules and at most one Normalize, last.
func ReadModules(d Dir) ([]Module, error) {
	b, err := d.ReadFile("modules.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	path := d.Path("modules.json")
	var mods []Module
	if err := json.Unmarshal(b, &mods); err != nil {
		return nil, fmt.Errorf("%s: %w (expected a list of {idx, name, path, type})", path, err)
	}
	if len(mods) < 2 {
		return nil, fmt.Errorf("%s: %d modules, expected a Transformer and a Pooling module at least", path, len(mods))
	}
	for i, m := range mods {
		switch m.Type {
		case ModuleTransformer, ModulePooling, ModuleDense, ModuleLayerNorm, ModuleNormalize:
		default:
			return nil, fmt.Errorf("%s: module %d has type %q, which dreval does not run (it runs %s, %s, %s, %s and %s)",
				path, i, m.Type, ModuleTransformer, ModulePooling, ModuleDense, ModuleLayerNorm, ModuleNormalize)
		}
		if !validModulePath(m.Path) {
			return nil, fmt.Errorf("%s: module %d's path %q is not a folder inside the model directory", path, i, m.Path)
		}
		switch {
		case i == 0 && m.Type != ModuleTransformer:
			return nil, fmt.Errorf("%s: the first module is %s, expected %s", path, m.Type, ModuleTransformer)
		case i == 1 && m.Type != ModulePooling:
			return nil, fmt.Errorf("%s: the second module is %s, expected %s", path, m.Type, ModulePooling)
		case i > 1 && (m.Type == ModuleTransformer || m.Type == ModulePooling):
			return nil, fmt.Errorf("%s: module %d is another %s; expected one Transformer and one Pooling, then Dense, LayerNorm or Normalize modules", path, i, m.Type)
		case m.Type == ModuleNormalize && i != len(mods)-1:
			return nil, fmt.Errorf("%s: module %d (Normalize) is not the last: a module after the normalisation is not supported", path, i)
		}
	}
	return mods, nil
}

// TransformerDir returns the directory of d's transformer: d, or the
// folder of its sentence-transformers Transformer module.
func TransformerDir(d Dir) (Dir, error) {
	mods, err := ReadModules(d)
	if err != nil {
		return Dir{}, err
	}
	if mods != nil && mods[0].Path != "" {
		return d.Sub(mods[0].Path), nil
	}
	return d, nil
}

// validModulePath reports whether p is "" or a relative folder path
// without "..".
func validModulePath(p string) bool {
	if p == "" {
		return true
	}
	return fs.ValidPath(p) && p != "."
}
