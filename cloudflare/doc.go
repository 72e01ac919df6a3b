// Command cloudflare is dreval's Cloudflare Worker: the handlers of package
// serve (the browser app, /api/metrics, /api/perturb, the MiniLM tokenizer
// and the demo embeddings; no /api/encode) compiled to js/wasm with
// github.com/syumai/workers.
//
// Build it with scripts/worker-build.sh ("make worker"), which fills the
// git-ignored bundle/ directory from the installed models and writes
// build/worker/ (worker.mjs, runtime.mjs, wasm_exec.js, app.wasm) for
// wrangler or workerd. Natively this package only holds the tests that run
// the built Worker in workerd.
package main
