package browser

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"sync"

	"github.com/dreval/dreval/dataset"
)

// DemoSource returns the app's dataset.SetDemoSource: the demo
// collection's folder, from the site's archive dataset.DemoZip, which
// files gives. The app is built without the collection (tag nodemo,
// scripts/wasm-build.sh) and reads it from its site, once for all
// workers (the page starts that download with the app's: loader.js's
// keep). It is kept once read, fetched again after a failure.
func DemoSource(files Fetcher) func() (fs.FS, error) {
	var mu sync.Mutex
	var fsys fs.FS
	return func() (fs.FS, error) {
		mu.Lock()
		defer mu.Unlock()
		if fsys != nil {
			return fsys, nil
		}
		b, _, err := files.Fetch(dataset.DemoZip, 0, "the demo collection", false)()
		if err != nil {
			return nil, err
		}
		z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", dataset.DemoZip, err)
		}
		fsys = z
		return z, nil
	}
}
