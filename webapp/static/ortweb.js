// ortweb.js: loads onnxruntime-web into a worker when Go first needs it
// (browser/ortweb.go, through wasm/host.go, calls worker.js's drevalORT):
// the WebAssembly build (ort.wasm.min.js: SIMD everywhere, threads when the page is
// cross-origin isolated) or, asked for WebGPU, the WebGPU build
// (ort.webgpu.min.js), from the site's ort/ folder, with its .wasm binary
// fetched once by the page for every worker (drevalFetch, Cache Storage).
// Where WebGPU is asked for but cannot run (no navigator.gpu, no adapter,
// the site lacks the build), it loads the WebAssembly build and says why.
// It answers {ort, ep, note}: the runtime, the execution provider Go
// opens sessions with ("wasm" or "webgpu"), and that reason.
"use strict";
(() => {
  const loaded = {}; // by execution provider asked for

  async function webgpuWhy(files) {
    if (!("ort.webgpu.min.js" in files) || !("ort-wasm-simd-threaded.asyncify.wasm" in files)) {
      return "this site does not serve onnxruntime-web's WebGPU build";
    }
    if (!self.navigator || !navigator.gpu) return "this browser has no WebGPU (navigator.gpu)";
    let adapter = null;
    try {
      adapter = await navigator.gpu.requestAdapter();
    } catch (e) {
      return "WebGPU could not be started (" + (e && e.message || e) + ")";
    }
    return adapter ? "" : "WebGPU found no graphics adapter (navigator.gpu.requestAdapter() gave none)";
  }

  async function load(want) {
    const cfg = self.drevalConfig || {};
    const files = (cfg.ort && cfg.ort.files) || {};
    let ep = want === "webgpu" ? "webgpu" : "wasm", note = "";
    if (ep === "webgpu") {
      const why = await webgpuWhy(files);
      if (why) {
        ep = "wasm";
        note = "WebGPU is not used: " + why + "; onnxruntime-web runs on WebAssembly instead";
      }
    }
    const script = ep === "webgpu" ? "ort.webgpu.min.js" : "ort.wasm.min.js";
    const binary = ep === "webgpu" ? "ort-wasm-simd-threaded.asyncify.wasm" : "ort-wasm-simd-threaded.wasm";
    const base = new URL("ort/", self.location.href).href;
    const before = self.ort;
    importScripts(base + script);
    const ort = self.ort;
    self.ort = before || ort; // each build keeps its own namespace
    ort.env.logLevel = "error";
    ort.env.wasm.wasmPaths = base;
    ort.env.wasm.numThreads = Math.max(1, cfg.threads || 1);
    ort.env.wasm.wasmBinary = await self.drevalFetch("ort/" + binary, files[binary] || 0, "onnxruntime-web " + (cfg.ort && cfg.ort.version || "") + " (" + binary + ")");
    return { ort, ep, note };
  }

  self.drevalLoadORT = (want) => {
    const key = want === "webgpu" ? "webgpu" : "wasm";
    if (!loaded[key]) loaded[key] = load(key);
    return loaded[key];
  };
})();
