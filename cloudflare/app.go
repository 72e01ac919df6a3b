//go:build js && wasm && !noapp

package main

import (
	"io/fs"

	"github.com/dreval/dreval/webapp"
)

// appFS is the browser app the Worker serves: embedded.
func appFS() fs.FS { return webapp.FS() }
