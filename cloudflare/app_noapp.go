//go:build js && wasm && noapp

package main

import "io/fs"

// appFS is nil with the noapp tag: the app is deployed as Workers static
// assets (wrangler.toml's [env.assets]), which Cloudflare serves before
// the Worker runs, so the Worker only answers the API.
func appFS() fs.FS { return nil }
