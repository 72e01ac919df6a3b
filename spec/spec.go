// Package spec describes one experiment as plain data: the datasets, the
// models with their options, the task, the perturbation, the rates and
// seeds, the cut-off and the paired tests' settings. A Spec is what to
// run, never how (no caches, no engines' libraries, no output folder):
// the command line's flags, the browser app, "dreval reproduce" and the
// Beam pipeline each build one, results.json records the one that ran,
// and "dreval eval -spec FILE" runs it again.
//
// A Spec is JSON. Paths in Data and Models are as the user gave them,
// relative to the folder the experiment runs in.
package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
)

// Spec is one experiment: every dataset x every model x every rate x
// Seeds seeds. Zero fields take the runner's defaults (package
// experiment says which); Normalize-d specs, as results.json records
// them, have them filled in.
type Spec struct {
	// Data are the collections: "demo" or BEIR-layout folders.
	Data []string `json:"data"`
	// Split is the qrels split ("test").
	Split string `json:"split,omitempty"`
	// Models are model names (installed models, "bm25") or model folders.
	Models []string `json:"models"`
	// Task is "ir", "dpr" or "dureader".
	Task string `json:"task,omitempty"`
	// Perturbation is the mode and its options; the rates and seeds
	// below sweep it.
	Perturbation Perturbation `json:"perturbation"`
	// Rates are the perturbation rates; 0 is the clean run.
	Rates []float64 `json:"rates"`
	// Seeds is the number of seeds per rate above 0, from FirstSeed.
	Seeds     int    `json:"seeds"`
	FirstSeed uint64 `json:"first_seed,omitempty"`
	// K is the number of documents retrieved per query.
	K int `json:"k"`
	// Examples is the number of decoded perturbed queries kept per model
	// and rate (negative: none).
	Examples int `json:"examples,omitempty"`
	// Resamples and TestSeed set the paired tests (randomization test and
	// bootstrap).
	Resamples int    `json:"resamples,omitempty"`
	TestSeed  uint64 `json:"test_seed,omitempty"`
	// Engine chooses the dense encoder backend ("auto", "go", "ort").
	Engine string `json:"engine,omitempty"`
	// Analyzer chooses bm25's analyser ("wordpiece", "words", "bigram");
	// BM25Tokenizer the tokenizer file bm25 reads queries with (""
	// minilm's).
	Analyzer      string `json:"analyzer,omitempty"`
	BM25Tokenizer string `json:"bm25_tokenizer,omitempty"`
	// Score overrides how dense models score ("cos" or "dot"; "": their
	// own).
	Score string `json:"score,omitempty"`
	// QueryPrompt and DocumentPrompt override the dense models' prompts
	// ("" for none; absent: their own).
	QueryPrompt    *string `json:"query_prompt,omitempty"`
	DocumentPrompt *string `json:"document_prompt,omitempty"`
	// AnswerModes and AnswerKs set the answer accuracy of tasks dpr and
	// dureader; PassageText encodes documents as DPR does ("title [SEP]
	// text").
	AnswerModes []string `json:"answer_modes,omitempty"`
	AnswerKs    []int    `json:"answer_ks,omitempty"`
	PassageText bool     `json:"passage_text,omitempty"`
}

// Perturbation is a perturbation mode and its options.
type Perturbation struct {
	// Mode is a perturbation mode (package perturb: "idshift", ...).
	Mode string `json:"mode"`
	// OOV is idshift's policy for ids beyond the vocabulary.
	OOV string `json:"oov,omitempty"`
	// ProtectSpecial leaves special tokens alone.
	ProtectSpecial bool `json:"protect_special,omitempty"`
	// Pairs is vocabswap's number of swapped pairs (0: from the rate).
	Pairs int `json:"pairs,omitempty"`
}

// Check reports the first problem with the shape of s, naming the field:
// what the runner cannot even start with. What the names mean (a mode, a
// task, an engine) is the runner's to check.
func (s *Spec) Check() error {
	switch {
	case len(s.Data) == 0:
		return errors.New(`"data": no dataset (want "demo" or BEIR folders)`)
	case len(s.Models) == 0:
		return errors.New(`"models": no model`)
	case len(s.Rates) == 0:
		return errors.New(`"rates": no rate (0 is the clean run)`)
	case s.Seeds < 0:
		return fmt.Errorf(`"seeds": %d, want at least 1`, s.Seeds)
	case s.K < 0:
		return fmt.Errorf(`"k": %d, want at least 1`, s.K)
	case s.Resamples < 0:
		return fmt.Errorf(`"resamples": %d, want at least 1`, s.Resamples)
	case s.Perturbation.Pairs < 0:
		return fmt.Errorf(`"perturbation.pairs": %d, want 0 or more`, s.Perturbation.Pairs)
	}
	for i, d := range s.Data {
		if d == "" {
			return fmt.Errorf(`"data"[%d] is empty`, i)
		}
	}
	for i, m := range s.Models {
		if m == "" {
			return fmt.Errorf(`"models"[%d] is empty`, i)
		}
		if slices.Index(s.Models, m) != i {
			return fmt.Errorf(`"models": %q is listed twice`, m)
		}
	}
	for i, r := range s.Rates {
		if math.IsNaN(r) || r < 0 || r > 1 {
			return fmt.Errorf(`"rates"[%d]: %v is outside [0, 1]`, i, r)
		}
	}
	for i, k := range s.AnswerKs {
		if k < 1 {
			return fmt.Errorf(`"answer_ks"[%d]: %d, want at least 1`, i, k)
		}
	}
	return nil
}

// Parse reads a Spec from b: a Spec, or a results.json, whose "spec"
// field is the Spec of the experiment it holds. Unknown fields of a Spec
// are an error (a misspelt setting must not be ignored); name names the
// input in errors.
func Parse(b []byte, name string) (*Spec, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%s: %w (expected a JSON object: a spec, or a results.json)", name, err)
	}
	if raw, ok := probe["spec"]; ok {
		b = raw
		name += ": spec"
	} else if _, ok := probe["datasets"]; ok {
		return nil, fmt.Errorf("%s: a results.json without a \"spec\" (written before dreval recorded one): run the experiment again with its flags", name)
	}
	var s Spec
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s, nil
}

// ReadFile reads the Spec in file (a Spec or a results.json; see Parse).
func ReadFile(file string) (*Spec, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file (want a spec or a results.json)", file)
		}
		return nil, err
	}
	return Parse(b, file)
}

// JSON returns s as indented JSON, as results.json and "dreval eval
// -spec" files hold it.
func (s *Spec) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
