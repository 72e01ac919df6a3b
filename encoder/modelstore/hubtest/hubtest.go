// Package hubtest serves a fake Hugging Face Hub for tests, on loopback:
// the API's repository metadata (GET /api/models/{repo}/revision/{rev},
// with ?blobs=true the files' sizes, git blob ids and, for files stored
// with Git LFS, their sha256), and resolve URLs (GET
// /{repo}/resolve/{rev}/{file}) that answer files stored in git directly
// and redirect (302) files stored with LFS to a "CDN" path, as the Hub
// does. Both honour Range requests. Faults can be injected per file: a
// transfer cut short, a wrong published hash or size, a listed file that
// is not served, a server that ignores Range. The server counts and logs
// its requests and fails the test past a bound.
package hubtest

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// File is one file of a fake repository.
type File struct {
	Path    string
	Content []byte
	// LFS files are listed with an lfs.sha256 and redirected to the CDN.
	LFS bool
}

// Repo is a fake repository: one commit, which the branch "main" also
// names, and its files.
type Repo struct {
	Repo   string // owner/name
	Commit string // 40 hex digits
	Files  []File
}

// Request is one request the server answered.
type Request struct {
	Method, Path, Range string
}

// MaxRequests bounds the requests one Server answers; past it the test
// fails.
const MaxRequests = 500

type faults struct {
	interrupt   int   // transfers still to cut short
	cutAfter    int64 // bytes each cut transfer sends
	wrongSHA256 bool
	wrongBlobID bool
	sizeDelta   int64
	notServed   bool
	ignoreRange bool
}

// Server is a fake Hub. Its URL is the endpoint to install from.
type Server struct {
	*httptest.Server
	t      testing.TB
	mu     sync.Mutex
	repos  map[string]Repo
	faults map[string]*faults // by repo + "/" + path
	log    []Request
	// Commits maps a revision other than a commit or "main" (a branch,
	// "refs/pr/1") to the commit it names; the API answers that commit.
	Commits map[string]string
}

// New starts a fake Hub serving repos; it is closed when the test ends.
func New(t testing.TB, repos ...Repo) *Server {
	s := &Server{t: t, repos: map[string]Repo{}, faults: map[string]*faults{}, Commits: map[string]string{}}
	for _, r := range repos {
		s.repos[r.Repo] = r
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) fault(repo, path string) *faults {
	k := repo + "/" + path
	if s.faults[k] == nil {
		s.faults[k] = &faults{}
	}
	return s.faults[k]
}

// Interrupt cuts the next times transfers of the file short after bytes
// bytes (the connection is dropped).
func (s *Server) Interrupt(repo, path string, times int, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.fault(repo, path)
	f.interrupt, f.cutAfter = times, bytes
}

// WrongSHA256 makes the metadata publish a wrong sha256 for an LFS file.
func (s *Server) WrongSHA256(repo, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault(repo, path).wrongSHA256 = true
}

// WrongBlobID makes the metadata publish a wrong git blob id.
func (s *Server) WrongBlobID(repo, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault(repo, path).wrongBlobID = true
}

// WrongSize makes the metadata publish the size plus delta.
func (s *Server) WrongSize(repo, path string, delta int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault(repo, path).sizeDelta = delta
}

// NotServed lists the file in the metadata but answers 404 for it.
func (s *Server) NotServed(repo, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault(repo, path).notServed = true
}

// IgnoreRange answers the whole file (200) to a Range request for it.
func (s *Server) IgnoreRange(repo, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault(repo, path).ignoreRange = true
}

// Log returns the requests answered so far.
func (s *Server) Log() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// Count returns how many requests so far had a path containing sub.
func (s *Server) Count(sub string) int {
	n := 0
	for _, r := range s.Log() {
		if strings.Contains(r.Path, sub) {
			n++
		}
	}
	return n
}

// GitBlobID is git's id of a blob: the SHA-1 of "blob <size>\x00" and b.
func GitBlobID(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// SHA256 returns the hex SHA-256 of b.
func SHA256(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.log = append(s.log, Request{Method: r.Method, Path: r.URL.EscapedPath(), Range: r.Header.Get("Range")})
	n := len(s.log)
	s.mu.Unlock()
	if n > MaxRequests {
		s.t.Errorf("hubtest: more than %d requests", MaxRequests)
		http.Error(w, "too many requests", http.StatusTooManyRequests)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.EscapedPath()
	switch {
	case strings.HasPrefix(p, "/api/models/"):
		s.serveInfo(w, r, strings.TrimPrefix(p, "/api/models/"))
	case strings.HasPrefix(p, "/cdn/"):
		s.serveCDN(w, r, strings.TrimPrefix(p, "/cdn/"))
	default:
		s.serveResolve(w, r, strings.TrimPrefix(p, "/"))
	}
}

// commit returns the commit rev names in repo, or "".
func (s *Server) commit(repo Repo, rev string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rev == repo.Commit || rev == "main" {
		return repo.Commit
	}
	return s.Commits[rev]
}

func (s *Server) serveInfo(w http.ResponseWriter, r *http.Request, rest string) {
	// {owner}/{name}/revision/{rev}
	parts := strings.SplitN(rest, "/", 4)
	if len(parts) != 4 || parts[2] != "revision" {
		http.NotFound(w, r)
		return
	}
	repo, ok := s.repos[parts[0]+"/"+parts[1]]
	rev, err := url.PathUnescape(parts[3])
	if !ok || err != nil {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		http.Error(w, `{"error":"Repository not found"}`, http.StatusNotFound)
		return
	}
	commit := s.commit(repo, rev)
	if commit == "" {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		http.Error(w, `{"error":"Invalid rev id"}`, http.StatusNotFound)
		return
	}
	blobs := r.URL.Query().Get("blobs") == "true"
	type lfs struct {
		SHA256      string `json:"sha256"`
		Size        int64  `json:"size"`
		PointerSize int    `json:"pointerSize"`
	}
	type sibling struct {
		RFilename string `json:"rfilename"`
		BlobID    string `json:"blobId,omitempty"`
		Size      *int64 `json:"size,omitempty"`
		LFS       *lfs   `json:"lfs,omitempty"`
	}
	var sibs []sibling
	s.mu.Lock()
	for _, f := range repo.Files {
		sib := sibling{RFilename: f.Path}
		if blobs {
			ft := s.fault(repo.Repo, f.Path)
			size := int64(len(f.Content)) + ft.sizeDelta
			sib.Size = &size
			if f.LFS {
				sum := SHA256(f.Content)
				if ft.wrongSHA256 {
					sum = SHA256(append([]byte("not "), f.Content...))
				}
				pointer := fmt.Sprintf("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n", sum, len(f.Content))
				sib.BlobID = GitBlobID([]byte(pointer))
				sib.LFS = &lfs{SHA256: sum, Size: size, PointerSize: len(pointer)}
			} else {
				sib.BlobID = GitBlobID(f.Content)
				if ft.wrongBlobID {
					sib.BlobID = GitBlobID(append([]byte("not "), f.Content...))
				}
			}
		}
		sibs = append(sibs, sib)
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"_id": "0123456789abcdef01234567", "id": repo.Repo, "modelId": repo.Repo,
		"sha": commit, "private": false, "gated": false, "disabled": false,
		"tags": []string{"transformers"}, "siblings": sibs,
	})
}

func (s *Server) file(repo Repo, path string) (File, bool) {
	for _, f := range repo.Files {
		if f.Path == path {
			return f, true
		}
	}
	return File{}, false
}

func (s *Server) serveResolve(w http.ResponseWriter, r *http.Request, rest string) {
	// {owner}/{name}/resolve/{rev}/{file...}
	parts := strings.SplitN(rest, "/", 5)
	if len(parts) != 5 || parts[2] != "resolve" {
		http.NotFound(w, r)
		return
	}
	repo, ok := s.repos[parts[0]+"/"+parts[1]]
	rev, err1 := url.PathUnescape(parts[3])
	path, err2 := url.PathUnescape(parts[4])
	if !ok || err1 != nil || err2 != nil {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		http.NotFound(w, r)
		return
	}
	commit := s.commit(repo, rev)
	if commit == "" {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		http.NotFound(w, r)
		return
	}
	f, ok := s.file(repo, path)
	s.mu.Lock()
	notServed := s.fault(repo.Repo, path).notServed
	s.mu.Unlock()
	if !ok || notServed {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		http.Error(w, "Entry not found", http.StatusNotFound)
		return
	}
	w.Header().Set("X-Repo-Commit", commit)
	if f.LFS {
		sum := SHA256(f.Content)
		w.Header().Set("X-Linked-Etag", `"`+sum+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(f.Content)))
		w.Header().Set("Location", s.URL+"/cdn/"+url.PathEscape(repo.Repo)+"/"+sum)
		w.WriteHeader(http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+GitBlobID(f.Content)+`"`)
	s.send(w, r, repo.Repo, f)
}

func (s *Server) serveCDN(w http.ResponseWriter, r *http.Request, rest string) {
	// {escaped repo}/{sha256}
	esc, sum, ok := strings.Cut(rest, "/")
	name, err := url.PathUnescape(esc)
	repo, found := s.repos[name]
	if !ok || err != nil || !found {
		http.NotFound(w, r)
		return
	}
	for _, f := range repo.Files {
		if f.LFS && SHA256(f.Content) == sum {
			w.Header().Set("ETag", `"`+sum+`"`)
			s.send(w, r, repo.Repo, f)
			return
		}
	}
	http.NotFound(w, r)
}

// send writes f, or the range of it r asks for, applying f's faults.
func (s *Server) send(w http.ResponseWriter, r *http.Request, repo string, f File) {
	s.mu.Lock()
	ft := s.fault(repo, f.Path)
	cut := int64(-1)
	if ft.interrupt > 0 {
		ft.interrupt--
		cut = ft.cutAfter
	}
	ignoreRange := ft.ignoreRange
	s.mu.Unlock()

	body := f.Content
	size := int64(len(body))
	status := http.StatusOK
	w.Header().Set("Accept-Ranges", "bytes")
	if rg := r.Header.Get("Range"); rg != "" && !ignoreRange {
		start, end, ok := parseRange(rg, size)
		if !ok {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", size))
			http.Error(w, "range not satisfiable", http.StatusRequestedRangeNotSatisfiable)
			return
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end, size))
		body = body[start : end+1]
		status = http.StatusPartialContent
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	if cut >= 0 && cut < int64(len(body)) {
		w.Write(body[:cut])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		panic(http.ErrAbortHandler) // drop the connection mid-body
	}
	w.Write(body)
}

// parseRange reads "bytes=START-" or "bytes=START-END" against a file of
// size bytes; the end is clamped to the file.
func parseRange(h string, size int64) (start, end int64, ok bool) {
	spec, found := strings.CutPrefix(h, "bytes=")
	if !found || strings.Contains(spec, ",") {
		return 0, 0, false
	}
	a, b, found := strings.Cut(spec, "-")
	if !found || a == "" {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(a, 10, 64)
	if err != nil || start < 0 || start >= size {
		return 0, 0, false
	}
	end = size - 1
	if b != "" {
		e, err := strconv.ParseInt(b, 10, 64)
		if err != nil || e < start {
			return 0, 0, false
		}
		end = min(e, size-1)
	}
	return start, end, true
}
