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
// status; a 5xx names the files it is about, not where the server keeps
// them. Request bodies are bounded (413 beyond Limits.MaxBodyBytes), in
// time (Limits.BodyTimeout: 408, the connection closed) and together
// (Limits.MaxBodyBytesInFlight: a request waits for room before its body
// is read), as are the texts per request (400), the time per request
// (503 when it runs out), and the encodes and metrics evaluations running
// at once (semaphores); a request that cannot get room or a slot within
// Limits.QueueWait gets 503 with Retry-After. An encode runs a batch at a
// time and stops within a batch once its client has left or its time has
// run out; a request stopped by its server's shutdown (ErrShuttingDown)
// is answered 503.
//
// The metrics and perturb handlers are pure functions of the request and
// the package imports nothing native, so it compiles under js/wasm: the
// Worker serves the same handlers with Options that have no encoder.
package serve
