// Package ortweb runs an encoder's transformer in onnxruntime-web (ONNX
// Runtime compiled to WebAssembly, version 1.30.0, from the npm package
// scripts/setup-ort-web.sh installs), driven from Go through syscall/js:
// the browser app's "ort" engine. Go keeps everything around the forward
// pass: tokenization, perturbation, batching (sequences sorted by length,
// padded and masked), the encoder's Head (pooling, dense layers,
// normalisation), search and metrics; onnxruntime-web computes the last
// hidden states. A model runs the same graph as the native ort engine
// (package ort): its model.onnx when the folder has one, else the graph
// package onnx exports from its weights ("dreval model export-onnx"
// writes the same), so the two agree to float rounding.
//
// Four parts, so that what can be checked natively is:
//
//   - io.go (every build): which inputs a graph's session is fed and which
//     output is read, from the names and types onnxruntime-web reports
//     for the session (the one place that knows which graphs the engine
//     takes);
//   - graph.go (every build): the graph of a model directory as the
//     pieces of one .onnx file, so that a 90 MB graph is assembled in
//     JavaScript memory without a second copy in Go's;
//   - embedder.go (every build): the Embedder, which runs a model's
//     batches on a Forwarder (a session, or a test's fake) and applies
//     its head;
//   - ortweb_js.go (js/wasm): onnxruntime-web's runtime and sessions.
package ortweb
