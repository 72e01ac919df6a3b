//go:build js && wasm

package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"sync"

	"github.com/dreval/dreval/dataset"
)

// demoFetched is the demo collection as fetched: the app is built without
// it (tag nodemo, scripts/wasm-build.sh) and reads dataset.DemoZip from
// its site, once for all workers (the page starts that download with the
// app's: loader.js's keep). It is kept once read, fetched again after a
// failure.
var demoFetched struct {
	sync.Mutex
	fsys fs.FS
}

// fetchDemo is the app's dataset.SetDemoSource: the demo collection's
// folder, from the site's archive.
func fetchDemo() (fs.FS, error) {
	demoFetched.Lock()
	defer demoFetched.Unlock()
	if demoFetched.fsys != nil {
		return demoFetched.fsys, nil
	}
	b, err := fetchShared(dataset.DemoZip, 0, "the demo collection")
	if err != nil {
		return nil, err
	}
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", dataset.DemoZip, err)
	}
	demoFetched.fsys = z
	return z, nil
}
