//go:build js && wasm

package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/dreval/dreval/serve"
	"github.com/syumai/workers"
)

// bundle holds what scripts/worker-build.sh puts there: the models'
// config.json and tokenizer.json (bundle/models/NAME/) and the demo
// corpus embeddings (bundle/data/demo/NAME.npy and .json) and its queries'
// (NAME.queries.npy and .json).
//
//go:embed bundle
var bundle embed.FS

func main() {
	workers.Serve(serve.NewMux(options()))
}

func options() serve.Options {
	o := serve.Options{
		Assets: appFS(),
		// workerd gzips responses that say Content-Encoding: gzip.
		HostCompresses: true,
		Demo:           demo,
		// A Worker gets little CPU time per request: keep requests small.
		Limits: serve.Limits{MaxBodyBytes: 8 << 20, MaxTexts: 256, Timeout: 25 * time.Second},
	}
	if m, err := fs.Sub(bundle, "bundle/models"); err == nil {
		o.Models = m
	}
	return o
}

// demo serves the demo embeddings computed at build time.
func demo(ctx context.Context, model string) (*serve.DemoData, error) {
	npy, err := fs.ReadFile(bundle, "bundle/data/demo/"+model+".npy")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no demo embeddings of model %q in this Worker (scripts/worker-build.sh embeds them): %w", model, serve.ErrUnknownModel)
	}
	if err != nil {
		return nil, err
	}
	meta, err := fs.ReadFile(bundle, "bundle/data/demo/"+model+".json")
	if err != nil {
		return nil, err
	}
	d := &serve.DemoData{NPY: npy, Meta: meta}
	// The queries' clean vectors, where the bundle has them.
	if q, err := fs.ReadFile(bundle, "bundle/data/demo/"+model+".queries.npy"); err == nil {
		if d.QueryMeta, err = fs.ReadFile(bundle, "bundle/data/demo/"+model+".queries.json"); err != nil {
			return nil, err
		}
		d.QueryNPY = q
	}
	return d, nil
}
