// model-upload.js: the "your model (upload)" choice of the Model fieldset.
// The chosen files (a model folder, or the files one by one) are sent to
// every worker (helpers embed with the model of the same name) under
// /models/upload-<n>[-<folder>], a fresh name per upload so that no opened model or
// corpus vectors of an earlier upload are reused; the first worker then
// opens the model with the command line's loaders (wasm "model" message)
// and a loading error is shown here, in words, naming the file. app.js
// calls uploadModel when a run uses the upload.
"use strict";

const upload = { pool: null, sig: "", name: "", last: "", n: 0, engine: "", from: "", sent: [] };

// chosenModelFiles returns the chosen files (a folder, or the files one
// by one, each under the name its input gives it) and where they came
// from, for messages. Which of them the model needs is decided in Go.
function chosenModelFiles() {
  const folder = [...$("model-folder").files];
  if (folder.length > 0) {
    const top = folder[0].webkitRelativePath.split("/")[0];
    // The folder's ONNX graph chosen (Go picks it: modelfiles.PickGraph).
    return { files: folder, from: "the folder " + top, folder: top, graph: $("model-graph").value };
  }
  const files = [];
  for (const input of document.querySelectorAll("#model-files input[type=file]")) {
    const f = input.files[0];
    if (!f) continue;
    // An input that names its file (data-file) gives the file that name;
    // the weights keep theirs, marked as such (Go reads them by extension).
    const as = input.dataset.file || "weights:" + f.name;
    files.push(new File([f], as, { type: f.type, lastModified: f.lastModified }));
  }
  return { files, from: "the chosen files", folder: "", graph: "" };
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
  const { files, from, folder, graph } = chosenModelFiles();
  if (files.length === 0) throw new Error("Choose your model first: its folder, or tokenizer.json and model.onnx or model.safetensors.");
  const sig = graph + "|" + files.map((f) => (f.webkitRelativePath || f.name) + ":" + f.size + ":" + f.lastModified).join("|");
  if (upload.pool === state.pool && upload.sig === sig && upload.name) {
    // Sent already: opened again only for another engine (the pure-Go
    // engine refuses graphs onnxruntime-web runs).
    if (upload.engine !== $("engine").value) await openModel(upload.name, upload.from, upload.sent);
    return upload.name;
  }
  showUploadError("");
  // The folder's name, when there is one, makes the tables readable; the
  // number keeps every upload's name fresh.
  const label = folder.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40);
  const name = "upload-" + (++upload.n) + (label ? "-" + label : "");
  const root = "models/" + name;
  const forget = upload.pool === state.pool ? upload.last : "";
  upload.pool = state.pool;
  upload.sig = "";
  upload.name = "";
  upload.last = name;
  const status = $("model-upload-status");
  status.textContent = "Sending your model to " + state.pool.size + " worker(s)…";
  setStatus(status.textContent);
  const sent = await sendChosen(files, "model", from, root, true, forget ? "models/" + forget : "", graph);
  if (forget) await state.pool.broadcast({ type: MSG.ForgetRequest, model: forget });
  await openModel(name, from, sent);
  upload.sig = sig;
  upload.name = name;
  return name;
}

// openModel has the first worker open the sent model name with the
// engine chosen, and describes it.
async function openModel(name, from, sent) {
  const root = "models/" + name, status = $("model-upload-status"), engine = $("engine").value;
  upload.engine = "";
  status.textContent = "Loading your model (" + sent.join(", ") + ")…";
  setStatus(status.textContent);
  let ans;
  try {
    ans = await state.pool.request({ type: MSG.ModelRequest, model: name, engine });
  } catch (e) {
    // The worker names files by their path in its file system.
    const msg = e.message.split("model " + root + ": ").join("").split(root + "/").join("");
    throw new Error("Your model (" + from + ") could not be loaded: " + msg);
  }
  showUploadError("");
  upload.engine = engine;
  upload.from = from;
  upload.sent = sent;
  let what = ans.dim ? ans.dim + " dimensions, " : "";
  if (ans.towers === 2) {
    what += "2 towers (query: " + ans.query + "; document: " + ans.document + "), ";
  } else if (ans.query) {
    what += ans.query === ans.document ? ans.query + ", " : "query: " + ans.query + "; document: " + ans.document + ", ";
  }
  if (ans.score) what += "score " + (ans.score === "dot" ? "dot product" : "cosine") + ", ";
  status.textContent = "Loaded your model from " + from + " as " + name + ": " + what + "weights " + ans.weights + ", engine " + ans.engine + ".";
  setStatus(status.textContent);
}

(() => {
  const box = $("model-upload");
  const sync = () => { box.hidden = $("model").value !== "upload"; };
  $("model").addEventListener("change", sync);
  sync();
  // A new choice is sent and checked at once; a folder and single files
  // replace each other.
  const check = () => { if ($("model").value === "upload") go(() => uploadModel()); };
  // Another graph is another upload; another engine opens it again.
  $("model-graph").addEventListener("change", () => { if ($("model-folder").files.length > 0) check(); });
  $("engine").addEventListener("change", () => { if (upload.name) check(); });
  $("model-folder").addEventListener("change", () => {
    for (const input of document.querySelectorAll("#model-files input[type=file]")) input.value = "";
    check();
  });
  // Single files are checked once the required ones are chosen.
  for (const input of document.querySelectorAll("#model-files input[type=file]")) {
    input.addEventListener("change", () => {
      $("model-folder").value = "";
      if ($("model-tokenizer").files.length > 0 && $("model-weights").files.length > 0) check();
    });
  }
})();
