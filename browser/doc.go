// Package browser is the browser app: its state, its messages, its runs.
//
// Every Web Worker of the page (webapp/static/worker.js) runs one App in
// its own wasm instance. The page sends the first worker its requests
// (messages.go: a RunRequest runs experiment.Run on the demo or an
// uploaded BEIR folder with one model; a ReproduceRequest runs the
// study's protocol; MetricsRequest and VectorsRequest score uploaded
// runs and embeddings as "dreval metrics" and "dreval search" do; ...);
// the first worker splits a run's batches to embed, its searches and its
// paired tests' random numbers with the others, its helpers
// (EmbedRequest, SearchRequest, DrawsRequest). App.Handle answers each,
// posting its reply.
//
// Files live in the worker's in-memory file system (files.go): the
// models the site serves, fetched when a run needs them (the site's
// models/index.json lists them), and the uploads. The models open with
// the same loaders as the command line (experiment.DefaultRegistry
// reading an fs.FS), and the rules of which files to read are Go's
// (packages modelfiles and dataset): the page's script only wires.
//
// What only a browser gives the app comes through its Ports: the site's
// files, "dreval serve"'s api/encode, the helper workers and
// onnxruntime-web. The js/wasm adapter (package main in wasm/)
// implements them with syscall/js and turns the worker's JavaScript
// messages into this package's (Encode, DecodeRequest); the package
// itself builds and tests natively, its tests running it with fakes of
// every port.
package browser
