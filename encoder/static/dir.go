package static

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/encoder/safetensors"
	"github.com/dreval/dreval/encoder/tensor"
	"github.com/dreval/dreval/encoder/tokenizer"
	"github.com/dreval/dreval/modelfiles"
)

// The files of a static model directory.
const (
	ConfigFile    = "config.json"
	WeightsFile   = "model.safetensors"
	TokenizerFile = "tokenizer.json"
)

// ModelType is config.json's model_type for a static model.
const ModelType = "static"

// Config is a static model's config.json.
type Config struct {
	// ModelType is always "static".
	ModelType string `json:"model_type"`
	// Dims is the embedding dimension: the token table has Dims columns.
	Dims int `json:"dims"`
	// VocabSize is the number of table rows, the tokenizer's vocabulary
	// size.
	VocabSize int `json:"vocab_size"`
	// Normalize must be true: embeddings are L2-normalised.
	Normalize bool `json:"normalize"`
	// MaxLength is the truncation length in ids, special tokens included
	// (0: the tokenizer's). Distill copies the source model's, so a static
	// model sees the same ids as its teacher.
	MaxLength int `json:"max_length,omitempty"`
	// Source names the model the table was distilled from.
	Source string `json:"source,omitempty"`
	// SourceFingerprint identifies the source model's files.
	SourceFingerprint string `json:"source_fingerprint,omitempty"`
	// Engine is the engine that ran the source model ("go" or "ort"; the
	// engines differ in the last bits of their output).
	Engine string `json:"engine,omitempty"`
	// Recipe describes how the table was made.
	Recipe string `json:"recipe,omitempty"`
	// SIFCoefficient is the a of the SIF weights a/(a+p) (see Distill).
	SIFCoefficient float64 `json:"sif_coefficient,omitempty"`
	// DType is the element type of the stored table ("F32" or "F16").
	DType string `json:"dtype,omitempty"`
	// Fingerprint is the hex SHA-256 of model.safetensors; Load checks it.
	Fingerprint string `json:"fingerprint"`
}

// ReadConfig reads and checks the config.json of the static model in d.
func ReadConfig(d modelfiles.Dir) (*Config, error) {
	b, err := d.ReadFile(ConfigFile)
	if err != nil {
		return nil, err
	}
	return parseConfig(b, d.Path(ConfigFile))
}

// parseConfig parses and checks config.json's contents b; path names the
// file in errors.
func parseConfig(b []byte, path string) (*Config, error) {
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case c.ModelType != ModelType:
		return nil, fmt.Errorf("%s: model_type is %q, expected %q", path, c.ModelType, ModelType)
	case c.Dims < 1:
		return nil, fmt.Errorf("%s: dims is %d, expected a positive dimension", path, c.Dims)
	case c.VocabSize < 1:
		return nil, fmt.Errorf("%s: vocab_size is %d, expected a positive size", path, c.VocabSize)
	case !c.Normalize:
		return nil, fmt.Errorf("%s: normalize is false, but static models are always L2-normalised (expected true)", path)
	case c.MaxLength < 0:
		return nil, fmt.Errorf("%s: max_length %d is negative", path, c.MaxLength)
	}
	return &c, nil
}

// IsModelDir reports whether d's config.json declares model_type
// "static". A missing or unreadable config.json is an error.
func IsModelDir(d modelfiles.Dir) (bool, error) {
	path := d.Path(ConfigFile)
	b, err := d.ReadFile(ConfigFile)
	if err != nil {
		return false, err
	}
	var c struct {
		ModelType string `json:"model_type"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return c.ModelType == ModelType, nil
}

// Load opens the static model in d as an Encoder truncating to maxLen ids
// (0: the config's max_length, else the tokenizer's). It checks the
// weights file against the config's fingerprint and the table's shape
// against the config and the tokenizer. Template special tokens and the
// padding token are left out of every mean (see SkipIDs).
func Load(d modelfiles.Dir, maxLen int) (*encoder.Encoder, *Config, error) {
	cfgPath := d.Path(ConfigFile)
	cfg, err := ReadConfig(d)
	if err != nil {
		return nil, nil, err
	}
	tok, err := encoder.LoadTokenizer(d)
	if err != nil {
		return nil, nil, fmt.Errorf("static: %w", err)
	}
	if tok.VocabSize() != cfg.VocabSize {
		return nil, nil, fmt.Errorf("%s: vocab_size is %d but %s has %d tokens", cfgPath, cfg.VocabSize, TokenizerFile, tok.VocabSize())
	}
	wPath := d.Path(WeightsFile)
	st, err := readWeights(d, wPath, cfgPath, cfg.Fingerprint)
	if err != nil {
		return nil, nil, err
	}
	table, err := st.Tensors.Get(TensorName, cfg.VocabSize, cfg.Dims)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w (from %s: vocab_size %d, dims %d)", wPath, err, ConfigFile, cfg.VocabSize, cfg.Dims)
	}
	emb, err := New(table, SkipIDs(tok))
	if err != nil {
		return nil, nil, err
	}
	if maxLen == 0 {
		maxLen = cfg.MaxLength
	}
	enc, err := encoder.New(tok, emb, maxLen)
	if err != nil {
		return nil, nil, err
	}
	return enc, cfg, nil
}

// readWeights reads and checks the weights file of d against the
// config's fingerprint. The browser's files know their digests
// (modelfiles.Dir.KnownSHA256; Go's SHA-256 of 31 MB takes 0.3-0.7 s under
// js/wasm, in every worker): then the tensors are read in place through
// the file's ReaderAt, without a copy of its bytes. Otherwise the file is
// read whole and hashed.
func readWeights(d modelfiles.Dir, wPath, cfgPath, want string) (*safetensors.File, error) {
	mismatch := func(sum string) error {
		return fmt.Errorf("%s: SHA-256 is %s but %s records fingerprint %q; the files do not belong together", wPath, sum, cfgPath, want)
	}
	if sum, ok := d.KnownSHA256(WeightsFile); ok {
		if sum != want {
			return nil, mismatch(sum)
		}
		r, size, release, err := d.ReaderAt(WeightsFile)
		if err != nil {
			return nil, fmt.Errorf("static: %w", err)
		}
		defer release()
		return safetensors.Read(r, size, wPath)
	}
	data, err := d.ReadFile(WeightsFile)
	if err != nil {
		return nil, fmt.Errorf("static: %w", err)
	}
	if sum := Fingerprint(data); sum != want {
		return nil, mismatch(sum)
	}
	return safetensors.Read(bytes.NewReader(data), int64(len(data)), wPath)
}

// SkipIDs returns the ids a static model leaves out of its means: those
// tok's template adds around a text ([CLS] and [SEP]) and the padding id.
func SkipIDs(tok *tokenizer.Tokenizer) []int32 {
	ids := tok.EncodeWith("", tokenizer.Options{AddSpecial: true}).IDs
	if p := tok.PadID(); p >= 0 && int(p) < tok.VocabSize() {
		ids = append(ids, p)
	}
	return sortedUnique(ids)
}

// Fingerprint returns the hex SHA-256 of a weights file's contents.
func Fingerprint(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Save writes a static model directory: table as model.safetensors with
// elements of type dt (F32 or F16), tokenizerJSON as tokenizer.json, and
// cfg as config.json with ModelType, Dims, VocabSize, Normalize, DType and
// Fingerprint filled in from the table and the written file. dir is
// created if needed; existing files are replaced. The output depends only
// on the arguments: saving the same table twice gives the same bytes.
func Save(dir string, table *tensor.Tensor, tokenizerJSON []byte, cfg Config, dt safetensors.DType) error {
	if table == nil || len(table.Shape) != 2 {
		return errors.New("static: Save needs a [vocabulary size, dims] table")
	}
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, tensor.Set{TensorName: table}, dt, nil); err != nil {
		return fmt.Errorf("static: %w", err)
	}
	cfg.ModelType = ModelType
	cfg.VocabSize, cfg.Dims = table.Shape[0], table.Shape[1]
	cfg.Normalize = true
	cfg.DType = string(dt)
	cfg.Fingerprint = Fingerprint(buf.Bytes())
	cj, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// config.json last: a directory whose config.json is written holds the
	// weights it names.
	if err := os.Remove(filepath.Join(dir, ConfigFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{WeightsFile, buf.Bytes()}, {TokenizerFile, tokenizerJSON}, {ConfigFile, append(cj, '\n')}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("static: %w", err)
		}
	}
	return nil
}
