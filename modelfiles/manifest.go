package modelfiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
)

// ManifestFile is the manifest of a retriever's folder: which folders
// hold its query and document encoders and how it scores, with the
// settings its authors' code uses that its files do not say.
const ManifestFile = "dreval.json"

// Manifest is a dreval.json: a retriever as its authors run it. Query
// and Document name the towers' folders relative to the manifest's (""
// or "." for the manifest's own folder: a single tower); a single-tower
// folder needs no manifest unless it says more than its files. Score is
// the similarity ("dot" or "cos"); the other fields, when set, override
// what the towers' files say, for both towers (Pooling, Normalize) or for
// one side (the prompts and maximum lengths).
type Manifest struct {
	Query    string `json:"query,omitempty"`
	Document string `json:"document,omitempty"`
	Score    string `json:"score,omitempty"`
	// Pooling is a pooling (see encoder.ParsePooling), or "pooler": the
	// first token through BERT's pooler (pooler.dense, tanh), as
	// supervised SimCSE's "cls" pooling is.
	Pooling   string `json:"pooling,omitempty"`
	Normalize *bool  `json:"normalize,omitempty"`
	// QueryPrompt and DocumentPrompt are put before every query and
	// document ("" explicitly: none, whatever the model's files say).
	QueryPrompt    *string `json:"query_prompt,omitempty"`
	DocumentPrompt *string `json:"document_prompt,omitempty"`
	// QueryMaxLength and DocumentMaxLength truncate each side (ids,
	// special tokens included).
	QueryMaxLength    int `json:"query_max_length,omitempty"`
	DocumentMaxLength int `json:"document_max_length,omitempty"`
}

// ReadManifest reads the dreval.json of d; nil (no error) when d has
// none. Errors name the file and the field.
func ReadManifest(d Dir) (*Manifest, error) {
	b, err := d.ReadFile(ManifestFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := ParseManifest(b, d.Path(ManifestFile))
	if err != nil {
		return nil, err
	}
	for _, tower := range []struct{ field, dir string }{{"query", m.Query}, {"document", m.Document}} {
		if tower.dir == "" || tower.dir == "." {
			continue
		}
		sub := d.Sub(tower.dir)
		if ok, _ := sub.Exists("."); !ok {
			return nil, fmt.Errorf("%s: %s is %q, but %s is not a folder there", d.Path(ManifestFile), tower.field, tower.dir, sub.Name())
		}
	}
	return m, nil
}

// Towers returns the folders of a retriever in d whose dreval.json is m:
// the query and the document tower's; d itself for both when m is nil or
// leaves a field empty.
func (m *Manifest) Towers(d Dir) (query, document Dir) {
	if m == nil {
		return d, d
	}
	return towerDir(d, m.Query), towerDir(d, m.Document)
}

// towerDir is the folder rel names relative to d ("" and "." are d).
func towerDir(d Dir, rel string) Dir {
	if rel == "" || rel == "." {
		return d
	}
	return d.Sub(rel)
}

// ParseManifest parses a dreval.json's contents b; name names the file
// in errors. Unknown fields are an error (a misspelt setting must not be
// ignored). It checks the manifest's shape (folders inside the
// manifest's, lengths positive); what its score and pooling mean is
// checked by package encoder (encoder.CheckManifest), which runs them.
func ParseManifest(b []byte, name string) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w (expected {\"query\": DIR, \"document\": DIR, \"score\": \"dot\"|\"cos\"} and optional pooling, normalize, query_prompt, document_prompt, query_max_length, document_max_length)", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: more than one JSON value", name)
	}
	for _, f := range []struct{ field, dir string }{{"query", m.Query}, {"document", m.Document}} {
		if f.dir != "" && (!fs.ValidPath(f.dir) || path.IsAbs(f.dir)) {
			return nil, fmt.Errorf("%s: %s %q is not a folder inside the manifest's (a relative path without ..)", name, f.field, f.dir)
		}
	}
	for _, f := range []struct {
		field string
		v     int
	}{{"query_max_length", m.QueryMaxLength}, {"document_max_length", m.DocumentMaxLength}} {
		if f.v < 0 {
			return nil, fmt.Errorf("%s: %s is %d, expected a positive length (or none)", name, f.field, f.v)
		}
	}
	return &m, nil
}
