// Package serve is dreval's HTTP API and static file server: the handlers
// behind "dreval serve" and the Cloudflare Worker (cloudflare), built by
// one constructor, NewMux, from an Options value.
//
// Routes:
//
//	GET  /                      the browser app (index.html and the files of Options.Assets)
//	GET  /app.wasm              the app's wasm, stored gzip-compressed (Options.Assets' app.wasm.gz):
//	                            sent as is with Content-Encoding: gzip to clients that accept it,
//	                            decompressed on the fly for the others
//	GET  /models/NAME/FILE      model files from Options.Models (config.json, tokenizer.json,
//	                            *.safetensors, model.onnx; nothing else)
//	GET  /data/demo/MODEL.npy   the demo corpus embedded by MODEL (float32 .npy, rows in corpus order)
//	GET  /data/demo/MODEL.json  what made them: model and tokenizer fingerprints, corpus hash, document ids
//	GET  /data/demo/MODEL.queries.npy, .json  the demo queries' clean vectors (MODEL's query tower) and
//	                            what made them, with the token ids each row was made from
//	GET  /ort/FILE              onnxruntime-web's files the app loads (ORTWebFiles, from Options.ORTWeb)
//	GET  /ort/index.json        its version and files (ORTIndex)
//	POST /api/encode            texts or token ids -> embeddings (needs Options.Encoder; 501 without), with
//	                            the engine and fingerprint of what encodes them (EngineNamer, Fingerprinter);
//	                            with "engine": E, 409 unless the Encoder is an EngineNamer naming E
//	POST /api/metrics           qrels + run text -> the numbers of "dreval metrics -format json"
//	POST /api/perturb           texts -> perturbed ids and decoded text (a tokenizer of Options.Models)
//	GET  /healthz               "ok"
//
// Model files, onnxruntime-web's files, the demo vectors and the app's
// files go out gzip-compressed to clients that accept it (sendFile), with
// ETags for revalidation; every response carries IsolationHeaders, so
// the page is cross-origin isolated and onnxruntime-web can use threads.
//
// Every API error is a JSON object {"error": "..."} with a 4xx or 5xx
// status. Request bodies are bounded (413 beyond Limits.MaxBodyBytes), as
// are the texts per request (400), the time per request (503 when it runs
// out) and the encodes running at once (a semaphore: a request that cannot
// get a slot within Limits.QueueWait gets 503 with Retry-After).
//
// The metrics and perturb handlers are pure functions of the request and
// the package imports nothing native, so it compiles under js/wasm: the
// Worker serves the same handlers with Options that have no encoder.
package serve
