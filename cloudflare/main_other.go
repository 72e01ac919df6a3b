//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "the dreval Worker runs under js/wasm in workerd or Cloudflare; build it with scripts/worker-build.sh (make worker)")
	os.Exit(2)
}
