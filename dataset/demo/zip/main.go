// Command zip writes the demo collection as the archive the browser app
// fetches (dataset.DemoZip): go run ./dataset/demo/zip -out FILE
// (scripts/wasm-build.sh runs it).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/dreval/dreval/dataset"
)

func main() {
	out := flag.String("out", "", "the archive to write")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./dataset/demo/zip -out FILE")
		os.Exit(2)
	}
	var b bytes.Buffer
	if err := dataset.WriteDemoZip(&b); err != nil {
		fmt.Fprintln(os.Stderr, "zip:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "zip:", err)
		os.Exit(1)
	}
}
