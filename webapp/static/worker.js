// worker.js: one Web Worker of the app, running its own instance of the Go
// wasm build (app.wasm). The page sends it messages; this script fetches
// the files a message needs into the in-memory file system (vfs.js) and
// hands the message to Go (drevalHandle), which posts the answer back.
"use strict";
importScripts("vfs.js", "wasm_exec.js");

// The files a model directory may hold; the missing ones are skipped.
const MODEL_FILES = ["config.json", "tokenizer.json", "model.safetensors", "model.fp16.safetensors",
  "sentence_bert_config.json", "1_Pooling/config.json", "modules.json"];

self.drevalPeers = [];
let goReady;
const ready = new Promise((resolve) => { goReady = resolve; });
self.drevalReady = () => goReady();

async function loadWasm() {
  const go = new Go();
  let resp = await fetch("app.wasm");
  let bytes;
  if (resp.ok) {
    bytes = await resp.arrayBuffer();
  } else {
    resp = await fetch("app.wasm.gz");
    if (!resp.ok) throw new Error("cannot load the app: app.wasm and app.wasm.gz are missing (HTTP " + resp.status + "); run \"make wasm\"");
    bytes = await new Response(resp.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
  }
  const { instance } = await WebAssembly.instantiate(bytes, go.importObject);
  go.run(instance).then(() => postMessage({ type: "fatal", message: "the Go program exited" }));
  await ready;
}
const started = loadWasm().then(
  () => postMessage({ type: "ready" }),
  (e) => postMessage({ type: "fatal", message: String(e && e.message || e) }));

// ensureModel fetches the served model's files into /models/<name>. BM25
// needs only minilm's tokenizer (it perturbs and decodes query ids with
// it).
const models = new Map();
function ensureModel(name) {
  if (!name || name.startsWith("/")) return Promise.resolve();
  const dir = name === "bm25" ? "minilm" : name;
  const files = name === "bm25" ? ["tokenizer.json"] : MODEL_FILES;
  if (!models.has(name)) {
    models.set(name, (async () => {
      let found = 0;
      await Promise.all(files.map(async (f) => {
        const r = await fetch("models/" + dir + "/" + f);
        if (!r.ok) return;
        vfs.put("/models/" + dir + "/" + f, new Uint8Array(await r.arrayBuffer()));
        found++;
      }));
      if (found === 0 || (name !== "bm25" && !vfs.has("/models/" + dir + "/config.json"))) {
        models.delete(name);
        throw new Error("model " + name + " is not served here: models/" + dir + "/" + files[0] + " could not be fetched: the server does not serve this model");
      }
    })());
  }
  return models.get(name);
}

async function dispatch(msg, reply) {
  try {
    await started;
    if (msg.type === "files") { // uploaded files: [{path, data: ArrayBuffer}]
      vfs.removeAll(msg.root);
      if (msg.forget) vfs.removeAll(msg.forget); // an earlier upload's files
      for (const f of msg.files) vfs.put(f.path, new Uint8Array(f.data));
      // An uploaded model (/models/upload-<n>) is here, not on the server.
      if (msg.root.startsWith("/models/")) models.set(msg.root.slice("/models/".length), Promise.resolve());
      reply.postMessage({ type: "stored", id: msg.id });
      return;
    }
    if (msg.type === "run") await ensureModel(msg.request.model);
    if (msg.type === "reproduce") await Promise.all((msg.request.models || []).map(ensureModel));
    if (msg.type === "embed" || msg.type === "bench" || msg.type === "model") await ensureModel(msg.model);
    self.drevalHandle(msg, reply);
  } catch (e) {
    reply.postMessage({ type: "error", id: msg.id, message: String(e && e.message || e) });
  }
}

onmessage = (e) => {
  const msg = e.data;
  if (msg.type === "peers") { // the first worker: ports to its helpers
    self.drevalPeers = msg.ports;
    return;
  }
  if (msg.type === "helper") { // a helper: the port its first worker talks through
    msg.port.onmessage = (ev) => dispatch(ev.data, msg.port);
    return;
  }
  dispatch(msg, self);
};
