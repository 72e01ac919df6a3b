package serve

import (
	"compress/gzip"
	"io"
	"net/http"
	"path"
	"strings"
	"time"
)

// minCompress is the smallest file worth compressing.
const minCompress = 1024

// incompressible are the extensions of files stored compressed already.
var incompressible = map[string]bool{".gz": true, ".zip": true, ".png": true, ".jpg": true, ".ico": true, ".br": true, ".zst": true}

// compressible reports whether a file called name is sent gzip-compressed
// to a client that accepts it: every file the app loads (scripts, JSON,
// tokenizers, weights, onnxruntime-web's WebAssembly, demo vectors) but
// those stored compressed.
func compressible(name string) bool {
	return !incompressible[strings.ToLower(path.Ext(name))]
}

// sendFile writes content, the size bytes of the file called name, with
// the headers the caller set (Content-Type, Cache-Control) and the ETag
// etag: gzip-compressed on the fly (at gzip's best speed) to a client
// that accepts gzip, under an ETag of its own, or as it is, through
// http.ServeContent (ranges, conditional requests). A host that
// compresses what it sends (hostCompresses: workerd, Cloudflare) gets
// the identity bytes with Content-Encoding: gzip, which it compresses.
func sendFile(w http.ResponseWriter, r *http.Request, name string, content io.ReadSeeker, size int64, modtime time.Time, etag string, hostCompresses bool) {
	h := w.Header()
	zip := compressible(name) && size >= minCompress
	if zip {
		h.Add("Vary", "Accept-Encoding")
	}
	if !zip || !acceptsGzip(r.Header.Get("Accept-Encoding")) || r.Header.Get("Range") != "" {
		h.Set("ETag", etag)
		http.ServeContent(w, r, name, modtime, content)
		return
	}
	etag = strings.TrimSuffix(etag, `"`) + `-gzip"`
	h.Set("ETag", etag)
	if !modtime.IsZero() {
		h.Set("Last-Modified", modtime.UTC().Format(http.TimeFormat))
	}
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Encoding", "gzip")
	h.Del("Content-Length")
	if r.Method == http.MethodHead {
		return
	}
	if hostCompresses {
		io.Copy(w, content)
		return
	}
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if _, err := io.Copy(zw, content); err != nil {
		return // the client went away; the response is cut short
	}
	zw.Close()
}
