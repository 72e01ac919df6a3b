package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"time"
)

// ORTWebFiles are the files of onnxruntime-web the browser app loads
// (scripts/setup-ort-web.sh installs them with its package.json): the
// WebAssembly build and the WebGPU build, each a script, its Emscripten
// module and its binary. /ort/ serves these and nothing else of the
// folder; "dreval site" copies them.
var ORTWebFiles = []string{
	"ort.wasm.min.js",
	"ort-wasm-simd-threaded.mjs",
	"ort-wasm-simd-threaded.wasm",
	"ort.webgpu.min.js",
	"ort-wasm-simd-threaded.asyncify.mjs",
	"ort-wasm-simd-threaded.asyncify.wasm",
}

// ORTIndexFile is where the app reads which onnxruntime-web a site
// serves: ort/index.json, an ORTIndex.
const ORTIndexFile = "index.json"

// ORTIndex lists the onnxruntime-web a site serves under ort/: its
// version and its files (of ORTWebFiles) with their sizes.
type ORTIndex struct {
	Version string    `json:"version"`
	Files   []ORTFile `json:"files"`
}

// ORTFile is one file of an ORTIndex.
type ORTFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// ReadORTIndex lists the onnxruntime-web folder fsys: the version its
// package.json states and which of ORTWebFiles it holds. A folder
// without package.json or without the WebAssembly build is an error
// saying what is missing.
func ReadORTIndex(fsys fs.FS) (*ORTIndex, error) {
	b, err := fs.ReadFile(fsys, "package.json")
	if err != nil {
		return nil, fmt.Errorf("onnxruntime-web: %w (scripts/setup-ort-web.sh installs it)", err)
	}
	var pkg struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Name != "onnxruntime-web" || pkg.Version == "" {
		return nil, fmt.Errorf("onnxruntime-web: package.json does not name onnxruntime-web and its version (%v)", err)
	}
	x := &ORTIndex{Version: pkg.Version, Files: []ORTFile{}}
	for _, name := range ORTWebFiles {
		st, err := fs.Stat(fsys, name)
		if err != nil {
			continue
		}
		x.Files = append(x.Files, ORTFile{Path: name, Size: st.Size()})
	}
	for _, need := range ORTWebFiles[:3] {
		if !slices.ContainsFunc(x.Files, func(f ORTFile) bool { return f.Path == need }) {
			return nil, fmt.Errorf("onnxruntime-web %s: %s is missing (scripts/setup-ort-web.sh installs it)", pkg.Version, need)
		}
	}
	return x, nil
}

// ortWeb serves GET /ort/FILE from Options.ORTWeb, the files of
// ORTWebFiles, and GET /ort/index.json (ReadORTIndex).
func (s *server) ortWeb(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, errorf(http.StatusMethodNotAllowed, "%s %s: onnxruntime-web's files are read with GET", r.Method, r.URL.Path))
		return
	}
	if s.opts.ORTWeb == nil {
		writeError(w, errorf(http.StatusNotFound, "%s: this server does not serve onnxruntime-web (run scripts/setup-ort-web.sh; the page then encodes with the pure-Go engine)", r.URL.Path))
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/ort/")
	if name == ORTIndexFile {
		x, err := ReadORTIndex(s.opts.ORTWeb)
		if err != nil {
			writeError(w, errorf(http.StatusNotFound, "%s: %v", r.URL.Path, err))
			return
		}
		b, _ := json.Marshal(x)
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		sendFile(w, r, name, bytes.NewReader(b), int64(len(b)), time.Time{}, hashETag(b), s.opts.HostCompresses)
		return
	}
	if !slices.Contains(ORTWebFiles, name) {
		writeError(w, errorf(http.StatusNotFound, "%s: not a file of onnxruntime-web the app loads (%s)", r.URL.Path, strings.Join(ORTWebFiles, ", ")))
		return
	}
	f, err := s.opts.ORTWeb.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			writeError(w, errorf(http.StatusNotFound, "%s: this server's onnxruntime-web has no %s", r.URL.Path, name))
			return
		}
		writeError(w, fmt.Errorf("%s: %w", r.URL.Path, err))
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		writeError(w, errorf(http.StatusNotFound, "%s: not a regular file", r.URL.Path))
		return
	}
	h := w.Header()
	h.Set("Content-Type", ContentType(name))
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	etag := fmt.Sprintf(`"%x-%x"`, st.Size(), st.ModTime().UnixNano())
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		data, err := io.ReadAll(f)
		if err != nil {
			writeError(w, fmt.Errorf("%s: %w", r.URL.Path, err))
			return
		}
		rs = bytes.NewReader(data)
	}
	sendFile(w, r, name, rs, st.Size(), st.ModTime(), etag, s.opts.HostCompresses)
}
