// model-upload.js: the "your model (upload)" choice of the Model fieldset.
// The chosen files (a model folder, or the files one by one) are sent to
// every worker (helpers embed with the model of the same name) under
// /models/upload-<n>[-<folder>], a fresh name per upload so that no opened model or
// corpus vectors of an earlier upload are reused; the first worker then
// opens the model with the command line's loaders (wasm "model" message)
// and a loading error is shown here, in words, naming the file. app.js
// calls uploadModel when a run uses the upload.
"use strict";

// The files a model folder may hold that the loaders read (encoder.Load):
// the weights are one of WEIGHT_FILES, taken in this order.
const MODEL_UPLOAD_FILES = ["config.json", "tokenizer.json", "sentence_bert_config.json", "1_Pooling/config.json"];
const WEIGHT_FILES = ["model.safetensors", "model.fp16.safetensors", "model.onnx"];
const SINGLE_INPUTS = { "model-tokenizer": "tokenizer.json", "model-config": "config.json", "model-sbert": "sentence_bert_config.json", "model-pooling": "1_Pooling/config.json" };

const upload = { pool: null, sig: "", name: "", last: "", n: 0 };

// chosenModelFiles returns the chosen files by their path in the model
// directory, and where they came from (for messages).
function chosenModelFiles() {
  const files = new Map();
  const folder = [...$("model-folder").files];
  if (folder.length > 0) {
    const top = folder[0].webkitRelativePath.split("/")[0];
    for (const f of folder) {
      let rel = f.webkitRelativePath.split("/").slice(1).join("/") || f.name;
      if (rel === "onnx/model.onnx") rel = "model.onnx.in-onnx"; // Hugging Face repositories keep the graph there
      if (MODEL_UPLOAD_FILES.includes(rel) || WEIGHT_FILES.includes(rel) || rel === "model.onnx.in-onnx") files.set(rel, f);
    }
    if (files.has("model.onnx.in-onnx")) {
      if (!files.has("model.onnx")) files.set("model.onnx", files.get("model.onnx.in-onnx"));
      files.delete("model.onnx.in-onnx");
    }
    return { files, from: "the folder " + top, folder: top };
  }
  for (const [id, rel] of Object.entries(SINGLE_INPUTS)) {
    const f = $(id).files[0];
    if (f) files.set(rel, f);
  }
  const w = $("model-weights").files[0];
  if (w) {
    if (w.name.endsWith(".onnx")) files.set("model.onnx", w);
    else if (w.name.endsWith(".safetensors")) files.set("model.safetensors", w);
    else throw new Error("The weights file " + w.name + " is neither an ONNX graph (.onnx) nor safetensors (.safetensors).");
  }
  return { files, from: "the chosen files", folder: "" };
}

// modelFilesToSend checks the chosen files and keeps the ones the loaders
// read: tokenizer.json, the first weights file of WEIGHT_FILES, config.json
// (required with safetensors) and the optional settings.
function modelFilesToSend() {
  const { files, from, folder } = chosenModelFiles();
  if (files.size === 0) {
    throw new Error("Choose your model first: its folder, or tokenizer.json and model.onnx or model.safetensors.");
  }
  let weights = WEIGHT_FILES.find((w) => files.has(w));
  // Without config.json only the graph can be read (it states its sizes).
  if (weights !== "model.onnx" && !files.has("config.json") && files.has("model.onnx")) weights = "model.onnx";
  if (!files.has("tokenizer.json")) throw new Error("tokenizer.json is missing from " + from + ": the model's tokenizer is required.");
  if (!weights) throw new Error("The weights are missing from " + from + ": choose model.onnx or model.safetensors.");
  if (weights !== "model.onnx" && !files.has("config.json")) {
    throw new Error("config.json is missing from " + from + ": it is required with " + weights + " (only an ONNX graph can do without it).");
  }
  for (const w of WEIGHT_FILES) if (w !== weights) files.delete(w);
  return { files, from, folder, weights };
}

function showUploadError(text) {
  const e = $("model-upload-error");
  e.textContent = text;
  e.hidden = text === "";
}

// uploadModel sends the chosen model to every worker, once per choice and
// worker pool, has the first worker open it, and returns its name.
async function uploadModel() {
  try {
    return await sendModel();
  } catch (e) {
    $("model-upload-status").textContent = "";
    showUploadError(e.message);
    e.shownInline = true; // go() points to it instead of repeating it
    throw e;
  }
}

async function sendModel() {
  const { files, from, folder, weights } = modelFilesToSend();
  const sig = [...files].map(([rel, f]) => rel + ":" + f.name + ":" + f.size + ":" + f.lastModified).join("|");
  if (upload.pool === state.pool && upload.sig === sig && upload.name) return upload.name;
  showUploadError("");
  // The folder's name, when there is one, makes the tables readable; the
  // number keeps every upload's name fresh.
  const label = folder.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40);
  const name = "upload-" + (++upload.n) + (label ? "-" + label : "");
  const root = "/models/" + name;
  const forget = upload.pool === state.pool ? upload.last : "";
  upload.pool = state.pool;
  upload.sig = "";
  upload.name = "";
  upload.last = name;
  const status = $("model-upload-status");
  status.textContent = "Sending " + [...files.keys()].join(", ") + " to " + state.pool.size + " worker(s)…";
  setStatus(status.textContent);
  const list = [];
  for (const [rel, f] of files) list.push({ path: root + "/" + rel, data: await f.arrayBuffer() });
  await state.pool.broadcast({ type: "files", root, files: list, forget: forget ? "/models/" + forget : "" });
  if (forget) await state.pool.broadcast({ type: "forget", model: forget });
  status.textContent = "Loading your model (" + weights + ")…";
  setStatus(status.textContent);
  let ans;
  try {
    ans = await state.pool.request({ type: "model", model: name });
  } catch (e) {
    // The worker names files by their path in its file system.
    const msg = e.message.split("model " + root + ": ").join("").split(root + "/").join("");
    throw new Error("Your model (" + from + ") could not be loaded: " + msg);
  }
  upload.sig = sig;
  upload.name = name;
  status.textContent = "Loaded your model from " + from + " as " + name + ": " + (ans.dim ? ans.dim + " dimensions, " : "") +
    "weights " + (ans.weights || weights) + ", engine " + ans.engine + ".";
  setStatus(status.textContent);
  return name;
}

(() => {
  const box = $("model-upload");
  const sync = () => { box.hidden = $("model").value !== "upload"; };
  $("model").addEventListener("change", sync);
  sync();
  // A new choice is sent and checked at once; a folder and single files
  // replace each other.
  const check = () => { if ($("model").value === "upload") go(() => uploadModel()); };
  $("model-folder").addEventListener("change", () => {
    for (const id of [...Object.keys(SINGLE_INPUTS), "model-weights"]) $(id).value = "";
    check();
  });
  // Single files are checked once the required ones are chosen.
  for (const id of [...Object.keys(SINGLE_INPUTS), "model-weights"]) {
    $(id).addEventListener("change", () => {
      $("model-folder").value = "";
      if ($("model-tokenizer").files.length > 0 && $("model-weights").files.length > 0) check();
    });
  }
})();
