// worker.js: one Web Worker of the app, running its own instance of the Go
// wasm build (app.wasm). The page compiles the app once and sends the
// compiled module ("wasm"), with the worker's settings ("config": the
// threads each onnxruntime-web session may use, whether the page is
// cross-origin isolated, which onnxruntime-web builds the site serves).
// The worker starts the instance and hands every message to Go
// (drevalHandle), which posts the answer back.
//
// Go asks the page, through this script, for what all workers share:
// drevalFetch(url, size, label) gives a file the page fetched once for
// every worker (and keeps in Cache Storage), drevalFetchFile the same
// with its SHA-256; drevalDerive(key) gives a
// file one worker built for all (an ONNX graph exported from weights),
// or tells this one to build it and hand it over with
// drevalDerived(key, bytes). drevalORT(ep) loads onnxruntime-web into this
// worker (ortweb.js).
"use strict";
importScripts("wasm_exec.js", "messages.js"); // messages.js: MSG and WORKER_MSG

self.drevalPeers = [];
self.drevalConfig = { threads: 1, isolated: false, ort: {} };
let goReady;
const ready = new Promise((resolve) => { goReady = resolve; });
self.drevalReady = () => goReady();

// Requests to the page, by id.
let nextAsk = 1;
const asked = new Map();
function ask(msg, transfer) {
  const rid = nextAsk++;
  return new Promise((resolve, reject) => {
    asked.set(rid, { resolve, reject });
    postMessage(Object.assign({ rid }, msg), transfer || []);
  });
}
self.drevalFetch = (url, size, label) => drevalFetchFile(url, size, label, false).then((a) => a.data);
// drevalFetchFile is drevalFetch giving {data, sha256}: the body and,
// when sum is set, its hex SHA-256, computed once by the page ("" where
// it has no crypto.subtle, and for the files it sends unasked).
self.drevalFetchFile = (url, size, label, sum) => {
  const p = pushed.get(url);
  if (p) {
    pushed.delete(url);
    return Promise.resolve({ data: p.data, sha256: "" });
  }
  return ask({ type: WORKER_MSG.Fetch, url, size: size || 0, label: label || "", sum: !!sum }).then((a) => ({ data: a.data, sha256: a.sha256 || "" }));
};
// pushed holds the files the page sent unasked ("file": the model index
// and the demo collection, which it fetches first), by URL, until Go asks
// for them: the page's thread is busy with the opening model's download
// by the time Go runs, and an ask would wait for it.
const pushed = new Map();
self.drevalDerive = (key, label) => ask({ type: WORKER_MSG.Derive, key, label: label || "" });
self.drevalDerived = (key, bytes, error) => {
  // A copy: the page keeps it for the other workers (and Cache Storage),
  // this worker opens its session from its own.
  postMessage({ type: WORKER_MSG.Derived, key, data: bytes ? bytes.buffer : null, error: error || "" });
};
self.drevalORT = (ep) => {
  if (!self.drevalLoadORT) importScripts("ortweb.js");
  return self.drevalLoadORT(ep);
};

// started settles once the Go program runs (or cannot start).
let startWith;
const started = new Promise((resolve) => { startWith = resolve; }).then((module) => {
  const go = new Go();
  return WebAssembly.instantiate(module, go.importObject).then((instance) => {
    go.run(instance).then(() => postMessage({ type: WORKER_MSG.Fatal, message: "the Go program exited" }));
    return ready;
  });
});
started.then(
  () => postMessage({ type: WORKER_MSG.Ready }),
  (e) => postMessage({ type: WORKER_MSG.Fatal, message: String(e && e.message || e) }));

async function dispatch(msg, reply) {
  try {
    await started;
    self.drevalHandle(msg, reply);
  } catch (e) {
    reply.postMessage({ type: MSG.ErrorReply, id: msg.id, message: String(e && e.message || e) });
  }
}

onmessage = (e) => {
  const msg = e.data;
  switch (msg.type) {
    case WORKER_MSG.Wasm: // the app, compiled once by the page
      startWith(msg.module);
      return;
    case WORKER_MSG.Config:
      self.drevalConfig = msg.config;
      return;
    case WORKER_MSG.File: // a file the page sends before it is asked for
      pushed.set(msg.url, { data: msg.data });
      return;
    case WORKER_MSG.Answer: { // the page's answer to ask
      const p = asked.get(msg.rid);
      if (!p) return;
      asked.delete(msg.rid);
      if (msg.error) p.reject(new Error(msg.error)); else p.resolve(msg);
      return;
    }
    case WORKER_MSG.Peers: // the first worker: ports to its helpers
      self.drevalPeers = msg.ports;
      return;
    case WORKER_MSG.Helper: // a helper: the port its first worker talks through
      msg.port.onmessage = (ev) => dispatch(ev.data, msg.port);
      return;
  }
  dispatch(msg, self);
};
