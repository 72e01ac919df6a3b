//go:build js && wasm

// Command wasm is dreval's browser app: the Go side of every Web Worker
// the page starts (one wasm instance per worker, see
// webapp/static/worker.js). A worker answers the page's messages:
//
//   - "run": runs experiment.Run on the demo or an uploaded BEIR folder
//     with one model, and replies with the rendered views of package ui ("export" then gives the
//     results as JSON, CSV and TREC runs). The first worker runs it; the
//     others are its helpers: every batch of sequences to embed is split
//     between it and them (helperEmbedder). Served by "dreval serve" with
//     the model open under the browser's engine, it embeds through the
//     server's /api/encode instead (serverEmbedder); elsewhere it
//     encodes here.
//   - "reproduce": runs the study's protocol (experiment.Study, as "dreval
//     reproduce" does) on the demo or an uploaded BEIR folder with the
//     chosen models (the page checks static and bm25), through the same models
//     as "run" (server or helper workers), and replies with package
//     report's reproduction as HTML and as Markdown.
//   - "embed" (from the first worker, through a MessagePort): embeds a
//     chunk of token-id sequences with the named model; "prepare" opens
//     that model ahead of the first chunk and answers nothing ("warm",
//     from the page when a model is chosen, has every worker that will
//     embed with it prepare it); "search"
//     ranks a part of a search's queries (search.go); "draws" draws the
//     paired tests' random numbers for it (draws.go).
//   - "metrics": scores an uploaded TREC run against uploaded qrels, as
//     "dreval metrics" does.
//   - "vectors": searches uploaded corpus and query embeddings (.npy and
//     id files) as "dreval search" does and scores the run against
//     uploaded qrels as "dreval metrics" does (no model, no perturbation).
//   - "model": opens a model (an upload) as a run would and describes it,
//     so that a bad upload is reported before any run; "forget" drops an
//     earlier upload's opened model.
//   - "bench": times this worker alone embedding sentences of a given
//     number of tokens (the browser figure of scripts/bench.sh).
//   - "models": which of the page's models the site serves, and why not.
//   - "pick": which of the files a user chose (a model or a collection
//     folder) the page is to send, and under which paths; "files" then
//     stores them in the worker.
//
// Files live in the worker's in-memory file system (files.go): the
// served models, which it fetches itself when a run needs them (the
// site's models/index.json lists them), and the uploads. The models open
// with the same loaders as the command line (experiment.DefaultRegistry
// reading an fs.FS), and the rules of which files to read are Go's
// (packages modelfiles and dataset): the page's script only wires.
package main

import (
	"context"
	"syscall/js"

	"github.com/dreval/dreval/browser"
	"github.com/dreval/dreval/dataset"
)

func main() {
	if !dataset.DemoEmbedded() { // built as scripts/wasm-build.sh builds it
		dataset.SetDemoSource(browser.DemoSource(fetchShared))
	}
	a := newApp()
	js.Global().Set("drevalHandle", js.FuncOf(func(this js.Value, args []js.Value) any {
		if len(args) < 2 {
			return nil
		}
		msg, reply := args[0], args[1]
		go a.handle(msg, reply)
		return nil
	}))
	js.Global().Call("drevalReady")
	select {}
}

// handle answers one message; reply is where the answer is posted (the
// worker's scope or a MessagePort).
func (a *app) handle(msg, reply js.Value) {
	// The background's tests wait while a request is answered.
	a.bg.Begin()
	defer a.bg.End()
	id := msg.Get("id")
	post := func(v map[string]any) {
		v["id"] = id
		reply.Call("postMessage", js.ValueOf(v))
	}
	fail := func(err error) {
		post(map[string]any{"type": "error", "message": err.Error()})
	}
	switch t := msg.Get("type").String(); t {
	case "run":
		// The page cancels a run by terminating the workers: a running
		// wasm instance does not read its messages.
		out, err := a.run(context.Background(), msg, func(p map[string]any) { post(p) })
		if err != nil {
			fail(err)
			return
		}
		out["type"] = "result"
		post(out)
	case "reproduce":
		// Cancelled as a run is, by terminating the workers.
		out, err := a.reproduce(context.Background(), msg, func(p map[string]any) { post(p) })
		if err != nil {
			fail(err)
			return
		}
		out["type"] = "reproduction"
		post(out)
	case "view":
		out, err := a.view(msg, func(p map[string]any) { post(p) })
		if err != nil {
			fail(err)
			return
		}
		out["type"] = "view"
		post(out)
	case "warm":
		// From the page, when a model is chosen: open it in every worker
		// that will embed with it (as a run does first), answering once
		// that is started.
		if e, err := checkEngine(stringOf(msg.Get("engine"))); err == nil {
			a.prepareHelpers(msg.Get("model").String(), e)
		}
		post(map[string]any{"type": "warming"})
	case "prepare":
		// From the first worker: open a model now, answering nothing (an
		// error comes again with the first "embed"). A dense model's
		// document tower embeds no sequences, which on onnxruntime-web
		// loads the runtime, the graph and the session too.
		if e, err := checkEngine(stringOf(msg.Get("engine"))); err == nil {
			a.prepare(msg.Get("model").String(), e)
		}
	case "draws":
		// From the first worker: the paired tests' random numbers
		// (draws.go).
		out, err := drawTables(msg)
		if err != nil {
			fail(err)
			return
		}
		post(out)
	case "embed":
		vecs, dim, err := a.embed(msg)
		if err != nil {
			fail(err)
			return
		}
		buf := js.Global().Get("Uint8Array").New(len(vecs))
		js.CopyBytesToJS(buf, vecs)
		post(map[string]any{"type": "vectors", "dim": dim, "data": buf})
	case "search":
		// From the first worker: rank a part of a search's queries.
		hits, err := a.searchPart(msg)
		if err != nil {
			fail(err)
			return
		}
		post(map[string]any{"type": "hits", "data": jsBytes(hits)})
	case "export":
		out, err := a.export()
		if err != nil {
			fail(err)
			return
		}
		out["type"] = "export"
		post(out)
	case "bench":
		out, err := a.bench(msg)
		if err != nil {
			fail(err)
			return
		}
		out["type"] = "bench"
		post(out)
	case "vectors":
		out, err := a.vectors(msg)
		if err != nil {
			fail(err)
			return
		}
		out["type"] = "metrics"
		post(out)
	case "model":
		out, err := a.checkModel(msg)
		if err != nil {
			fail(err)
			return
		}
		out["type"] = "model"
		post(out)
	case "forget":
		a.forget(msg)
		post(map[string]any{"type": "forgotten"})
	case "files":
		if err := a.storeFiles(msg); err != nil {
			fail(err)
			return
		}
		post(map[string]any{"type": "stored"})
	case "pick":
		out, err := a.pick(msg)
		if err != nil {
			fail(err)
			return
		}
		out["type"] = "picked"
		post(out)
	case "models":
		av := map[string]any{}
		for name, why := range a.availability() {
			av[name] = why
		}
		post(map[string]any{"type": "models", "unavailable": av})
	case "metrics":
		out, err := a.metrics(msg)
		if err != nil {
			fail(err)
			return
		}
		out["type"] = "metrics"
		post(out)
	default:
		post(map[string]any{"type": "error", "message": "unknown message type " + t})
	}
}
