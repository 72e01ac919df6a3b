package serve

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// assets serves the browser app's files.
type assets struct {
	fsys           fs.FS
	wasmGz         string
	hostCompresses bool

	mu    sync.Mutex
	etags map[string]string // path -> quoted content hash
}

func newAssets(fsys fs.FS, wasmGz string, hostCompresses bool) *assets {
	return &assets{fsys: fsys, wasmGz: wasmGz, hostCompresses: hostCompresses, etags: map[string]string{}}
}

// contentTypes fixes the types of the files the app ships, whatever the
// system's MIME tables say.
var contentTypes = map[string]string{
	".html":        "text/html; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".mjs":         "text/javascript; charset=utf-8",
	".css":         "text/css; charset=utf-8",
	".json":        "application/json",
	".wasm":        "application/wasm",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".ico":         "image/x-icon",
	".txt":         "text/plain; charset=utf-8",
	".md":          "text/plain; charset=utf-8",
	".gz":          "application/gzip",
	".npy":         "application/octet-stream",
	".safetensors": "application/octet-stream",
	".onnx":        "application/octet-stream",
	".tsv":         "text/tab-separated-values; charset=utf-8",
	".jsonl":       "application/jsonl; charset=utf-8",
}

// ContentType returns the Content-Type served for a file name.
func ContentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// hashedName matches file names carrying a content hash (app.3f9a1c2e.js),
// which never change and may be cached for good.
var hashedName = regexp.MustCompile(`\.[0-9a-f]{8,64}\.[a-z0-9]+$`)

// cacheControl returns the caching policy of an asset: hashed names are
// immutable; everything else (index.html first) is revalidated with its
// ETag on every use.
func cacheControl(name string) string {
	if hashedName.MatchString(name) {
		return "public, max-age=31536000, immutable"
	}
	return "no-cache"
}

func (a *assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, errorf(http.StatusMethodNotAllowed, "%s %s: static files are read with GET", r.Method, r.URL.Path))
		return
	}
	if a.fsys == nil {
		writeError(w, errorf(http.StatusNotFound, "%s: this server has no browser app", r.URL.Path))
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" || strings.HasSuffix(name, "/") {
		name += "index.html"
	}
	if name == "app.wasm" {
		a.serveWasm(w, r)
		return
	}
	if !fs.ValidPath(name) || strings.Contains(name, "\\") {
		writeError(w, errorf(http.StatusBadRequest, "%s: not a valid file path", r.URL.Path))
		return
	}
	a.serveFile(w, r, name)
}

func (a *assets) serveFile(w http.ResponseWriter, r *http.Request, name string) {
	data, etag, err := a.read(name)
	if err != nil {
		writeError(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", ContentType(name))
	h.Set("Cache-Control", cacheControl(name))
	h.Set("X-Content-Type-Options", "nosniff")
	sendFile(w, r, name, bytes.NewReader(data), int64(len(data)), time.Time{}, etag, a.hostCompresses)
}

// read returns an asset's bytes and ETag (computed once).
func (a *assets) read(name string) ([]byte, string, error) {
	data, err := fs.ReadFile(a.fsys, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) || isDirErr(a.fsys, name) {
			return nil, "", errorf(http.StatusNotFound, "/%s: no such file", name)
		}
		return nil, "", err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	etag, ok := a.etags[name]
	if !ok {
		etag = hashETag(data)
		a.etags[name] = etag
	}
	return data, etag, nil
}

// hashETag returns a strong ETag of b: part of its SHA-256, quoted.
func hashETag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

func isDirErr(fsys fs.FS, name string) bool {
	st, err := fs.Stat(fsys, name)
	return err == nil && st.IsDir()
}

// serveWasm serves app.wasm from its gzip-compressed form: as stored, with
// Content-Encoding: gzip, to a client that accepts gzip; decompressed for
// one that does not.
func (a *assets) serveWasm(w http.ResponseWriter, r *http.Request) {
	data, etag, err := a.read(a.wasmGz)
	if err != nil {
		writeError(w, errorf(http.StatusNotFound, "/app.wasm: the browser app is not built into this server; run make wasm && make build"))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/wasm")
	h.Set("Cache-Control", cacheControl("app.wasm"))
	h.Set("Vary", "Accept-Encoding")
	h.Set("X-Content-Type-Options", "nosniff")
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
	if gz && !a.hostCompresses {
		h.Set("ETag", etag)
		h.Set("Content-Encoding", "gzip")
		http.ServeContent(w, r, "app.wasm", time.Time{}, bytes.NewReader(data))
		return
	}
	if !gz {
		etag = strings.TrimSuffix(etag, `"`) + `-identity"`
	}
	h.Set("ETag", etag)
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		writeError(w, errorf(http.StatusInternalServerError, "/app.wasm: the embedded %s is not gzip: %v", a.wasmGz, err))
		return
	}
	if gz {
		h.Set("Content-Encoding", "gzip") // the host compresses what we write
	}
	if r.Method == http.MethodHead {
		return
	}
	// The uncompressed size is not known before decompressing, so the body
	// goes out chunked.
	if _, err := io.Copy(w, zr); err != nil {
		return // the client went away, or the embedded file is corrupt; the response is cut short
	}
}

// acceptsGzip reports whether an Accept-Encoding header accepts gzip:
// named with a non-zero q, or not named and "*" accepted.
func acceptsGzip(header string) bool {
	gzipQ, starQ := -1.0, -1.0
	for _, part := range strings.Split(header, ",") {
		fields := strings.Split(part, ";")
		coding := strings.ToLower(strings.TrimSpace(fields[0]))
		q := 1.0
		for _, p := range fields[1:] {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		switch coding {
		case "gzip", "x-gzip":
			gzipQ = max(gzipQ, q)
		case "*":
			starQ = max(starQ, q)
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}

// etagMatches reports whether an If-None-Match header lists etag (or *).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
