// Package webapp holds the browser app's static files: the page, its
// scripts and styles (tracked in static/), and the Go/wasm build of the app
// (static/app.wasm.gz, produced by "make wasm", not tracked).
//
// The files are embedded so "dreval serve" and "dreval site" ship them with
// the binary.
package webapp

import (
	"embed"
	"io/fs"
)

//go:generate go run ./menusgen
//go:generate go run ./messagesgen

//go:embed static
var files embed.FS

// FS returns the app's files, rooted at the static directory.
func FS() fs.FS {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the embedded tree always has "static"
	}
	return sub
}

// WasmName is the path, within FS, of the gzip-compressed app.
const WasmName = "app.wasm.gz"

// Built reports whether the wasm app was built into the embedded files
// (by "make wasm") before this binary was compiled.
func Built() bool {
	_, err := fs.Stat(FS(), WasmName)
	return err == nil
}
