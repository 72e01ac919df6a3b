// worker.js: one Web Worker of the app, running its own instance of the Go
// wasm build (app.wasm). It starts the instance and hands every message to
// Go (drevalHandle), which posts the answer back. Go fetches the models it
// needs and keeps every file in its own memory (wasm/files.go).
"use strict";
importScripts("wasm_exec.js");

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

async function dispatch(msg, reply) {
  try {
    await started;
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
