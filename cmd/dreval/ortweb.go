package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dreval/dreval/serve"
)

// defaultORTWeb returns where scripts/setup-ort-web.sh installs
// onnxruntime-web: $DREVAL_ORT_WEB, else <user cache dir>/dreval/ort-web.
func defaultORTWeb() string {
	if p := os.Getenv("DREVAL_ORT_WEB"); p != "" {
		return p
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(c, "dreval", "ort-web")
}

// ortWebFS returns the onnxruntime-web folder dir as served under /ort/,
// or nil and why not ("" dir: none asked for).
func ortWebFS(dir string) (fs.FS, *serve.ORTIndex, error) {
	if dir == "" {
		return nil, nil, nil
	}
	fsys := os.DirFS(dir)
	x, err := serve.ReadORTIndex(fsys)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	return fsys, x, nil
}

// siteHeaders is the _headers file "dreval site" writes: the headers that
// make the page cross-origin isolated (serve.IsolationHeaders, so that
// onnxruntime-web runs on several threads), for the static hosts that
// read such a file (Cloudflare Pages and Workers static assets,
// Netlify).
func siteHeaders() []byte {
	var keys []string
	for k := range serve.IsolationHeaders {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("/*\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s: %s\n", k, serve.IsolationHeaders[k])
	}
	return []byte(b.String())
}

// writeORTWeb copies onnxruntime-web's files from dir into out/ort/ with
// their index (ort/index.json), leaving the WebGPU build out unless
// webgpu; it returns the index, or nil when dir is "".
func writeORTWeb(out, dir string, webgpu bool, st *siteStats) (*serve.ORTIndex, error) {
	fsys, x, err := ortWebFS(dir)
	if err != nil || fsys == nil {
		return nil, err
	}
	kept := &serve.ORTIndex{Version: x.Version, Files: []serve.ORTFile{}}
	for _, f := range x.Files {
		if !webgpu && (strings.Contains(f.Path, "webgpu") || strings.Contains(f.Path, "asyncify")) {
			continue
		}
		b, err := fs.ReadFile(fsys, f.Path)
		if err != nil {
			return nil, err
		}
		if err := st.write(filepath.Join(out, "ort", f.Path), b); err != nil {
			return nil, err
		}
		kept.Files = append(kept.Files, f)
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return nil, err
	}
	return kept, st.write(filepath.Join(out, "ort", serve.ORTIndexFile), b)
}
