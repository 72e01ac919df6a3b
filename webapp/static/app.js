// app.js: the page's controller. It keeps the UI thread free: every
// tokenization, encoding, search and scoring happens in Web Workers
// (worker.js, one Go wasm instance each); this script only reads the form,
// sends requests, shows progress and inserts the HTML the workers render
// (the vugu components of package ui).
"use strict";

const $ = (id) => document.getElementById(id);
const MAX_WORKERS = 8;

const state = {
  pool: null,
  busy: false,
  queued: null, // a run asked for while another was going
  results: null, // the last run's answer
  key: "", // data+model+mode+seeds of the last results, for the slider
  metricsCSV: "",
  uploadRoot: "",
  uploadSent: false,
};

// ---- worker pool ----------------------------------------------------------

class Pool {
  // The pool's n workers get config (worker.js's drevalConfig) and the
  // app's compiled module (loader.js).
  constructor(n, config) {
    this.size = n;
    this.config = config;
    this.workers = [];
    this.nextID = 1;
    this.pending = new Map();
    this.readyCount = 0;
    this.ready = new Promise((resolve, reject) => { this.resolveReady = resolve; this.rejectReady = reject; });
    const ports = [];
    for (let i = 0; i < n; i++) {
      const w = new Worker("worker.js");
      w.onmessage = (e) => this.onMessage(i, e.data);
      w.onerror = (e) => this.fatal("worker " + (i + 1) + " failed: " + (e.message || "unknown error"));
      if (i > 0) {
        const ch = new MessageChannel();
        w.postMessage({ type: WORKER_MSG.Helper, port: ch.port2 }, [ch.port2]);
        ports.push(ch.port1);
      }
      this.workers.push(w);
    }
    this.workers[0].postMessage({ type: WORKER_MSG.Peers, ports }, ports);
    // The files the page fetches first, sent as soon as it has them (the
    // worker then needs no ask, which would wait behind the opening
    // model's download on the page's thread): the model index to every
    // worker, the demo collection to the first, which runs the experiments.
    for (const [url, to] of [["models/index.json", this.workers], ["demo.zip", [this.workers[0]]]]) {
      loader.early(url).then((a) => {
        if (a) for (const w of to) w.postMessage({ type: WORKER_MSG.File, url, data: a.data });
      });
    }
    // The settings first (they name the site's onnxruntime-web), then the
    // app: a worker is ready only once it has both.
    Promise.all([loader.ortIndex(), loader.module()]).then(
      ([ort, module]) => {
        this.config.ort = ort;
        for (const w of this.workers) {
          w.postMessage({ type: WORKER_MSG.Config, config: this.config });
          w.postMessage({ type: WORKER_MSG.Wasm, module });
        }
      },
      (e) => this.fatal(e.message));
  }
  // answer answers worker i's request to the page (worker.js's ask):
  // a shared file, or a built one.
  answer(i, msg) {
    const w = this.workers[i];
    const reply = (p, transfer) => p.then(
      (a) => w.postMessage(Object.assign({ type: WORKER_MSG.Answer, rid: msg.rid }, a), transfer ? transfer(a) : []),
      (e) => w.postMessage({ type: WORKER_MSG.Answer, rid: msg.rid, error: e.message }));
    // A shared file: cloned to each worker, transferred to the last.
    if (msg.type === WORKER_MSG.Fetch) reply(loader.file(msg.url, msg.size, msg.label, this.size, msg.sum), (a) => a.last ? [a.data] : []);
    else reply(loader.derive(msg.key, msg.label, this.size));
  }
  fatal(message) {
    this.rejectReady(new Error(message));
    for (const p of this.pending.values()) p.reject(new Error(message));
    this.pending.clear();
  }
  onMessage(i, msg) {
    if (msg.type === WORKER_MSG.Ready) {
      if (++this.readyCount === this.size) this.resolveReady();
      return;
    }
    if (msg.type === WORKER_MSG.Fatal) { this.fatal("worker " + (i + 1) + ": " + msg.message); return; }
    if (msg.type === WORKER_MSG.Fetch || msg.type === WORKER_MSG.Derive) { this.answer(i, msg); return; }
    if (msg.type === WORKER_MSG.Derived) { loader.put(msg.key, msg.data, msg.error); return; }
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.type === MSG.Progress) { p.progress && p.progress(msg); return; }
    this.pending.delete(msg.id);
    if (msg.type === MSG.ErrorReply) p.reject(new Error(msg.message)); else p.resolve(msg);
  }
  // request sends msg to the first worker and resolves with its answer.
  request(msg, progress, transfer) {
    const id = this.nextID++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, progress });
      this.workers[0].postMessage(Object.assign({ id }, msg), transfer || []);
    });
  }
  // broadcast sends msg to every worker and resolves with their answers.
  // Nothing is transferred: each worker gets its own copy of the message's
  // ArrayBuffers (structured clone), the page keeps the originals.
  broadcast(msg) {
    return Promise.all(this.workers.map((w) => {
      const id = this.nextID++;
      return new Promise((resolve, reject) => {
        this.pending.set(id, { resolve, reject });
        w.postMessage(Object.assign({ id }, msg));
      });
    }));
  }
  terminate() {
    for (const w of this.workers) w.terminate();
    for (const p of this.pending.values()) p.reject(new Error("cancelled"));
    this.pending.clear();
  }
}

// poolShape returns how many workers the page runs (one per core, up to
// MAX_WORKERS; ?workers=N in the address sets it) and the threads each
// onnxruntime-web session may use: the cores left to each worker when
// the page is cross-origin isolated (threads need SharedArrayBuffer),
// else 1.
function poolShape() {
  const cores = navigator.hardwareConcurrency || 2;
  const asked = Number(new URLSearchParams(location.search).get("workers"));
  const n = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, MAX_WORKERS) : Math.max(1, Math.min(cores, MAX_WORKERS));
  const isolated = self.crossOriginIsolated === true;
  return { n, threads: isolated ? Math.max(1, Math.floor(cores / n)) : 1, isolated };
}

function startPool(note) {
  const { n, threads, isolated } = poolShape();
  state.pool = new Pool(n, { threads, isolated });
  state.uploadSent = false;
  document.body.dataset.ready = "false";
  setStatus("Starting " + n + " worker(s)…");
  state.pool.ready.then(
    () => {
      // A run asked for before (the opening lesson) says how it goes.
      if (!state.busy) setStatus((note || "") + "Ready: " + n + " worker(s), one wasm instance each.");
      if (!document.body.dataset.readyMs) document.body.dataset.readyMs = performance.now().toFixed(1);
      document.body.dataset.ready = "true";
    },
    (e) => showError("The workers could not start: " + e.message));
}

// ---- status, progress, errors ------------------------------------------------

// timeline keeps when each status line was shown (ms since the page's
// load), for the benchmarks' timeline of the opening lesson.
const timeline = [];
self.drevalTimeline = timeline;
function setStatus(text) {
  $("status").textContent = text;
  if (timeline.length < 400) timeline.push(Math.round(performance.now()) + " " + text);
}
function showError(text) {
  const e = $("error");
  e.textContent = text;
  e.hidden = false;
  setStatus("Stopped: see the error below.");
  // The results on screen are not those of the settings that failed.
  showPanel(null);
}

// showPanel shows one output panel (the run's results, the uploaded
// run's metrics or the reproduction) and hides the others, or none.
function showPanel(id) {
  for (const p of ["results", "metrics-results", "reproduction"]) $(p).hidden = p !== id;
}

function plural(n, one, many) { return n + " " + (n === 1 ? one : (many || one + "s")); }

// seedsOf reads a seed-count field, within its min and max.
function seedsOf(id, what) {
  const el = $(id), n = Number(el.value), lo = Number(el.min || 1), hi = Number(el.max || Infinity);
  if (!Number.isInteger(n) || n < lo || n > hi) throw new Error(what + ": want a whole number from " + lo + " to " + hi + ", not " + JSON.stringify(el.value) + ".");
  return n;
}
function clearError() { $("error").hidden = true; $("error").textContent = ""; }
function setBusy(b) {
  // The focus stays on a control: Cancel while a job runs, Run after.
  const focused = document.activeElement;
  state.busy = b;
  $("cancel").disabled = !b;
  $("run").disabled = b;
  $("sweep").disabled = b;
  $("progress").hidden = !b;
  document.body.dataset.busy = String(b);
  if (b && focused && focused.disabled) $("cancel").focus();
  else if (!b && focused === $("cancel")) $("run").focus();
}
// showLoad shows a file loading for the workers (loader.js): its
// download size and progress, or that it came from the cache.
function showLoad(p) {
  if (!state.busy) return;
  const bar = $("progress");
  if (p.building) {
    setStatus("Building " + p.label + " (once, for every worker)…");
    bar.removeAttribute("value");
    return;
  }
  if (p.cached) {
    setStatus("Loaded " + p.label + " from the browser's cache (" + loader.mb(p.done) + ").");
    return;
  }
  if (p.total > 0) {
    bar.max = p.total;
    bar.value = Math.min(p.done, p.total);
    setStatus("Downloading " + p.label + ": " + loader.mb(p.done) + " of " + loader.mb(p.total) + (p.finished ? " (done)." : "…"));
  } else {
    bar.removeAttribute("value");
    setStatus("Downloading " + p.label + ": " + loader.mb(p.done) + (p.finished ? " (done)." : "…"));
  }
}

// encodingLine says what a run encoded: "N texts encoded at R texts/s
// (ENGINE)" per model that encoded texts (the workers' "encoding"), or
// "" when none did.
function encodingLine(ans) {
  const parts = [];
  for (const e of ans.encoding || []) {
    if (!e.texts) continue;
    const rate = e.perSecond >= 100 ? Math.round(e.perSecond) : e.perSecond.toFixed(1);
    parts.push((ans.encoding.length > 1 ? e.model + ": " : "") + e.texts + " texts encoded at " + rate + " texts/s (" + e.engine + ")");
  }
  return parts.join("; ");
}

// showEngine shows, under the Engine setting, where the last run's
// vectors were computed (the workers' notes).
function showEngine(ans) {
  const notes = (ans.encoding || []).map((e) => e.note).filter((n) => n);
  // What the site lacks (checkEngines) stays said after every run.
  $("engine-note").textContent = [...new Set(notes)].concat(ans.notes || [], state.engineWhy || []).join(" ");
}

function onProgress(msg) {
  // The table and chart of a run or view, before its inspector.
  if (msg.view) {
    $("table").innerHTML = msg.table;
    $("chart").innerHTML = msg.chart;
    showPanel("results");
    state.viewAt = performance.now();
    if (timeline.length < 400) timeline.push(Math.round(state.viewAt) + " (table and chart shown)");
    return;
  }
  const bar = $("progress");
  if (msg.total > 0) {
    bar.max = msg.total;
    bar.value = msg.done;
    const now = performance.now(), p = state.progress;
    // The rate counts from the first item done: before it the workers
    // load the model.
    if (!p || p.label !== msg.label || msg.done < p.done || (p.done === 0 && msg.done > 0)) state.progress = { label: msg.label, t: now, done: msg.done };
    // The first batch of the corpus waits for every worker to load the model.
    let tail = msg.done === 0 && msg.label.startsWith("encode corpus") ? " (the workers are loading the model…)" : "";
    const s = (now - state.progress.t) / 1000, d = msg.done - state.progress.done;
    if (d > 0 && s > 0.5) {
      const r = d / s;
      tail = ", " + (r >= 10 ? Math.round(r) : r.toFixed(1)) + " " + msg.unit + "/s, about " + Math.ceil((msg.total - msg.done) / r) + " s left";
    }
    setStatus(msg.label + ": " + msg.done + " of " + msg.total + " " + msg.unit + tail);
  } else if (msg.message) {
    setStatus(msg.label + ": " + msg.message);
    bar.removeAttribute("value");
  }
}

// ---- the form ------------------------------------------------------------------

function dataKind() { return document.querySelector("input[name=data]:checked").value; }
function rate() { return Number($("rate").value) / 100; }

function syncForm() {
  const kind = dataKind();
  for (const s of document.querySelectorAll(".sub")) s.hidden = !s.dataset.for.split(" ").includes(kind);
  const noModel = kind === "trec" || kind === "vectors";
  $("model-set").disabled = noModel;
  $("perturb-set").disabled = noModel;
  $("sweep").disabled = state.busy || noModel;
  $("rate-out").textContent = $("rate").value + "%";
}

// scoring is what the metrics and vectors modes score with: the
// convention, the measures and -c, as "dreval metrics" takes them.
function scoring() {
  return { convention: $("convention").value, measures: $("measures").value.split(/\s+/).filter(Boolean), complete: $("complete").checked };
}

function readFile(file, as) {
  return as === "text" ? file.text() : file.arrayBuffer();
}

// relPath is a chosen file's path inside its folder, or its name when it
// was chosen alone.
function relPath(f) {
  return f.webkitRelativePath ? f.webkitRelativePath.split("/").slice(1).join("/") : f.name;
}

// sendChosen asks the first worker which of the chosen files to send
// ("pick": Go decides), then sends those to the workers (all of them when
// every worker needs them) under root; it returns the answer's paths.
// graph is a model's ONNX graph chosen (model-upload.js).
async function sendChosen(files, kind, from, root, everyWorker, forget, graph) {
  const folder = files.some((f) => f.webkitRelativePath);
  const picked = await state.pool.request({ type: MSG.PickRequest, kind, from, folder, files: files.map(relPath), graph: graph || "" });
  const list = [];
  for (const f of files) {
    const as = picked.send[relPath(f)];
    if (as) list.push({ path: as, data: await readFile(f) });
  }
  const msg = { type: MSG.FilesRequest, root, files: list, forget: forget || "" };
  if (everyWorker) await state.pool.broadcast(msg);
  else await state.pool.request(msg, null, list.map((f) => f.data));
  return list.map((f) => f.path);
}

// uploadBEIR sends the chosen folder's files to the first worker, under
// upload/<folder>; it returns that path.
async function uploadBEIR() {
  let files = [...$("beir-files").files];
  if (files.length === 0) files = [...$("beir-pick").files];
  if (files.length === 0) throw new Error("Choose a BEIR folder first (it holds corpus.jsonl, queries.jsonl and qrels/).");
  const root = "upload/" + ((files[0].webkitRelativePath || "").split("/")[0] || "data");
  const sig = files.map((f) => f.name + ":" + f.size + ":" + f.lastModified).join("|");
  if (state.uploadSent && state.uploadRoot === root && state.uploadSig === sig) return root;
  await sendChosen(files, "data", "the chosen folder", root, false);
  state.uploadRoot = root;
  state.uploadSig = sig;
  state.uploadSent = true;
  return root;
}

async function runMetrics() {
  const q = $("qrels-file").files[0], r = $("run-file").files[0];
  if (!q || !r) throw new Error("Choose both a qrels file and a run file.");
  setStatus("Scoring " + r.name + " against " + q.name + "…");
  const ans = await state.pool.request({ type: MSG.MetricsRequest, qrels: { name: q.name, text: await readFile(q, "text") }, run: { name: r.name, text: await readFile(r, "text") }, scoring: scoring() });
  $("metrics").innerHTML = ans.html;
  $("metrics-title").textContent = "Metrics of the uploaded run";
  showPanel("metrics-results");
  state.metricsCSV = ans.csv;
  setStatus("Scored " + r.name + ".");
}

// runVectors searches uploaded embeddings and scores the run ("dreval
// search" then "dreval metrics"); the id files are optional.
async function runVectors() {
  const c = $("vec-corpus").files[0], q = $("vec-queries").files[0], r = $("vec-qrels").files[0];
  if (!c || !q || !r) throw new Error("Choose the corpus embeddings, the query embeddings (.npy) and the qrels.");
  const ci = $("vec-corpus-ids").files[0], qi = $("vec-query-ids").files[0];
  const bin = async (f) => ({ name: f.name, data: new Uint8Array(await readFile(f)) });
  const txt = async (f) => f ? { name: f.name, text: await readFile(f, "text") } : null;
  setStatus("Searching " + q.name + " in " + c.name + "…");
  const msg = { type: MSG.VectorsRequest, corpus: await bin(c), queries: await bin(q), corpusIDs: await txt(ci), queryIDs: await txt(qi), qrels: await txt(r), scoring: scoring() };
  const ans = await state.pool.request(msg, null, [msg.corpus.data.buffer, msg.queries.data.buffer]);
  $("metrics").innerHTML = ans.html;
  $("metrics-title").textContent = "Metrics of the search of the uploaded embeddings (no perturbation)";
  showPanel("metrics-results");
  state.metricsCSV = ans.csv;
  setStatus("Searched " + ans.queries + " queries in " + ans.docs + " documents (" + ans.dim + " dimensions) and scored the run against " + r.name + ".");
}

// run runs the experiment at the given rates, showing rate show.
async function run(rates, show, started, lesson) {
  const data = dataKind() === "beir" ? await uploadBEIR() : "demo";
  // "upload": the model chosen in the Model fieldset (model-upload.js).
  seedsOf("seeds", "Seeds");
  const model = $("model").value === "upload" ? await uploadModel() : $("model").value;
  const request = {
    model, data, split: "test", mode: $("mode").value, rates,
    seeds: seedsOf("seeds", "Seeds"), firstSeed: Number($("first-seed").value) || 1,
    show, trec: $("trec").checked, engine: $("engine").value,
    lesson: !!lesson, // skipped, not failed, where the site does not serve the model
  };
  setStatus("Running " + request.model + " on " + data + "…");
  const ans = await state.pool.request({ type: MSG.RunRequest, request }, onProgress);
  if (ans.skipped) throw Object.assign(new Error(ans.skipped), { skipped: true });
  state.results = ans;
  state.key = [data, request.model, request.mode, request.seeds, request.firstSeed, request.engine].join("|");
  showResults(ans);
  const all = performance.now() - started, ms = (state.viewAt || performance.now()) - started;
  $("timing").textContent = "Updated in " + Math.round(ms) + " ms (the inspector " + Math.round(all - ms) + " ms later; in the workers: " + (ans.runSeconds * 1000).toFixed(0) +
    " ms running the experiment, " + ((ans.seconds - ans.runSeconds) * 1000).toFixed(0) + " ms rendering and exporting).";
  $("timing").dataset.runMs = (ans.runSeconds * 1000).toFixed(1);
  $("timing").dataset.ms = ms.toFixed(1);
  showEngine(ans);
  const enc = encodingLine(ans);
  $("timing").dataset.encoding = enc;
  setStatus("Done: " + request.model + " on " + data + ", rates " + rates.map((r) => Math.round(r * 100) + "%").join(", ") + "." +
    (enc ? " " + enc + "." : "") +
    (ans.warnings && ans.warnings.length ? " Warnings: " + ans.warnings.join("; ") : ""));
}

function showResults(ans) {
  $("table").innerHTML = ans.table;
  $("chart").innerHTML = ans.chart;
  $("inspector").innerHTML = ans.inspector;
  showPanel("results");
}

// go runs one job at a time; a job asked for meanwhile replaces any
// queued one and starts when the current one ends.
async function go(job, lesson) {
  if (state.busy) { state.queued = job; return; }
  setBusy(true);
  clearError();
  $("timing").textContent = "";
  state.viewAt = 0;
  delete $("timing").dataset.ms;
  delete $("timing").dataset.runMs;
  const started = performance.now();
  let skipped = false;
  try {
    // The opening lesson is asked for at once: the first worker starts
    // it as soon as its Go program runs (worker.js queues it).
    if (!lesson) await state.pool.ready;
    await job(started, lesson);
    // When the opening sweep was over (its inspector shown) and when its
    // table and chart were on screen, in ms since the page's load.
    if (lesson) {
      document.body.dataset.lessonMs = performance.now().toFixed(0);
      document.body.dataset.lessonTableMs = (state.viewAt || performance.now()).toFixed(0);
    }
  } catch (e) {
    if (e.skipped) { skipped = true; setStatus("Ready: the opening lesson did not run (" + e.message + ")."); }
    else if (e.shownInline) setStatus("Stopped: see the error under the model's files.");
    else if (e.message !== "cancelled") showError(e.message);
  } finally {
    setBusy(false);
    syncForm();
    // The opening lesson is not one of the user's runs (body's
    // data-lesson says when it is over).
    if (lesson) document.body.dataset.lesson = skipped ? "skipped" : "done";
    else document.body.dataset.runs = String(Number(document.body.dataset.runs || 0) + 1);
  }
  if (state.queued) { const j = state.queued; state.queued = null; go(j); }
}

function runJob() {
  if (dataKind() === "trec") return () => runMetrics();
  if (dataKind() === "vectors") return () => runVectors();
  const r = rate();
  if (r === 0) return () => Promise.reject(new Error("Choose a rate above 0%: the clean run is always made and compared with it."));
  return (t) => run([0, r], r, t);
}

function sweepJob() {
  const r = rate() || 0.1;
  seedsOf("seeds", "Seeds");
  const rates = [0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5];
  if (!rates.includes(r)) rates.push(r);
  rates.sort((a, b) => a - b);
  return (t, lesson) => run(rates, r, t, lesson);
}

function download(name, type, data) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([data], { type }));
  a.download = name;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

// checkModels asks the workers which models this site serves (Go reads
// its models/index.json), disables the others, and selects the first one
// served; it returns the answer for reproduce.js.
async function checkModels() {
  await state.pool.ready;
  const ans = await state.pool.request({ type: MSG.ModelsRequest });
  const sel = $("model");
  for (const o of sel.options) {
    const why = ans.unavailable[o.value];
    if (why) { o.disabled = true; o.textContent += " — " + why; }
  }
  if (sel.selectedOptions[0] && sel.selectedOptions[0].disabled) {
    const first = [...sel.options].find((o) => !o.disabled);
    if (first) sel.value = first.value;
  }
  return ans.unavailable;
}

// lesson runs the opening sweep: the static model on the demo at 0 to 50%
// with the form's defaults (idshift, 5 seeds), unless the user started
// something first; the worker skips it where the site does not serve
// static.
function lesson() {
  if (state.busy || state.results || dataKind() !== "demo" || $("model").value !== "static") {
    document.body.dataset.lesson = "skipped";
    return;
  }
  go(sweepJob(), true);
}

// checkEngines disables the Engine choices this page cannot run, saying
// why: onnxruntime-web when the site does not serve it (the pure-Go
// engine then encodes), WebGPU when the browser has no navigator.gpu.
function checkEngines(ort) {
  const sel = $("engine");
  const why = {};
  if (!ort.version) why["ort-web"] = why.webgpu = ort.why || "this site does not serve onnxruntime-web";
  else if (!("ort-wasm-simd-threaded.asyncify.wasm" in ort.files)) why.webgpu = "this site does not serve onnxruntime-web's WebGPU build";
  if (!why.webgpu && !navigator.gpu) why.webgpu = "this browser has no WebGPU (navigator.gpu)";
  for (const o of sel.options) {
    if (why[o.value]) { o.disabled = true; o.textContent += " — " + why[o.value]; }
  }
  if (sel.selectedOptions[0] && sel.selectedOptions[0].disabled) sel.value = "auto";
  if (!ort.version) {
    state.engineWhy = "onnxruntime-web is not available (" + (ort.why || "not served") + "): transformer models encode with the pure-Go engine, unless the server encodes them.";
    $("engine-note").textContent = [$("engine-note").textContent, state.engineWhy].filter((n) => n).join(" ");
  }
}

function init() {
  loader.onStatus = showLoad;
  loader.ortIndex().then(checkEngines);
  loader.keep("demo.zip", "the demo collection"); // with the app, not after it
  loader.preload("models/index.json"); // the opening model's files, while the workers start
  startPool();
  state.models = checkModels().catch(() => ({}));
  lesson();
  syncForm();
  for (const el of document.querySelectorAll("input[name=data]")) el.addEventListener("change", syncForm);
  // A model chosen in the form starts opening in the workers at once (its
  // files, onnxruntime-web and its sessions), not when Run is clicked.
  const warm = () => {
    const model = $("model").value;
    if (model === "upload") return;
    state.pool.ready.then(() => state.pool.request({ type: MSG.WarmRequest, model, engine: $("engine").value })).catch(() => {});
  };
  $("model").addEventListener("change", warm);
  $("engine").addEventListener("change", warm);
  $("controls").addEventListener("submit", (e) => { e.preventDefault(); go(runJob()); });
  $("sweep").addEventListener("click", () => go(sweepJob()));
  $("rate").addEventListener("input", () => { $("rate-out").textContent = $("rate").value + "%"; });
  // Moving the slider refreshes the shown results: at once when the rate
  // was run (a sweep), else by a new run (the corpus vectors are kept).
  $("rate").addEventListener("change", () => {
    if (!state.results || dataKind() === "trec" || dataKind() === "vectors" || rate() === 0) return;
    const r = rate();
    if ((state.results.rates || []).includes(r)) {
      go(async (t) => {
        const ans = await state.pool.request({ type: MSG.ViewRequest, show: r, trec: $("trec").checked }, onProgress);
        Object.assign(state.results, ans);
        showResults(state.results);
        const ms = (state.viewAt || performance.now()) - t;
        $("timing").textContent = "Updated in " + Math.round(ms) + " ms (rate " + Math.round(r * 100) + "% was already run; the inspector " + Math.round(performance.now() - t - ms) + " ms later).";
        $("timing").dataset.ms = ms.toFixed(1);
      });
      return;
    }
    go(runJob());
  });
  $("cancel").addEventListener("click", () => {
    state.pool.terminate();
    state.queued = null;
    const note = state.results ? "Cancelled: the workers were restarted; the results on screen are from the last finished run. " :
      "Cancelled: the workers were restarted; no run has finished yet. ";
    startPool(note);
    setBusy(false);
    syncForm();
    setStatus(note + "Starting the workers…");
  });
  // Exports are made by the worker when asked for, from its last results.
  const exporter = (name, type, field) => () => {
    if (!state.results || state.busy) return;
    state.pool.request({ type: MSG.ExportRequest }).then(
      (ans) => { download(name, type, ans[field]); setStatus("Saved " + name + "."); },
      (e) => showError("Export failed: " + e.message));
  };
  $("export-json").addEventListener("click", exporter("results.json", "application/json", "json"));
  $("export-csv").addEventListener("click", exporter("comparisons.csv", "text/csv", "csv"));
  $("export-runs").addEventListener("click", exporter("runs.zip", "application/zip", "runsZip"));
  $("export-all").addEventListener("click", exporter("dreval-results.zip", "application/zip", "allZip"));
  $("export-metrics").addEventListener("click", () => state.metricsCSV && download("metrics.csv", "text/csv", state.metricsCSV));
}

init();
