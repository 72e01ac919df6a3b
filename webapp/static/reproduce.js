// reproduce.js: the "Reproduce the study" section. It runs the study's
// protocol in the workers (MSG.ReproduceRequest, browser/reproduce.go: what
// "dreval reproduce" runs) on the data chosen in the form, through app.js's job
// queue (go), so it shows progress and is cancelled like a run, and shows
// the reproduction the worker renders (package report's tables, findings
// and decoded examples) with its Markdown for download.
"use strict";

const reproduction = { markdown: "" };

function reproduceModels() {
  return [...document.querySelectorAll("input[name=reproduce-model]:checked")].map((e) => e.value);
}

async function reproduceJob(started) {
  const kind = dataKind();
  if (kind !== "demo" && kind !== "beir") throw new Error("Reproducing the study needs the built-in demo or a BEIR folder: choose one under Data.");
  const models = reproduceModels();
  if (models.length === 0) throw new Error("Choose at least one model to reproduce the study with.");
  const seeds = seedsOf("reproduce-seeds", "Seeds of the study (the protocol uses 5)");
  const data = kind === "beir" ? await uploadBEIR() : "demo";
  setStatus("Reproducing the study on " + data + " with " + models.join(", ") + "…");
  const ans = await state.pool.request({ type: MSG.ReproduceRequest, request: { data, models, seeds, engine: $("engine").value } }, onProgress);
  reproduction.markdown = ans.markdown;
  $("reproduction-output").innerHTML = ans.html; // escaped by package report
  showPanel("reproduction");
  const s = (performance.now() - started) / 1000;
  $("reproduction").dataset.seconds = s.toFixed(1);
  showEngine(ans);
  const enc = encodingLine(ans);
  setStatus("Reproduced the study on " + data + " with " + models.join(", ") + ", " + plural(seeds, "seed") + ", in " + s.toFixed(1) + " s." +
    (enc ? " " + enc + "." : "") +
    (ans.warnings && ans.warnings.length ? " Warnings: " + ans.warnings.join("; ") : ""));
}

// The models the server does not serve cannot be checked (the workers
// say which, app.js's checkModels).
async function checkReproduceModels() {
  const unavailable = await state.models;
  for (const box of document.querySelectorAll("input[name=reproduce-model]")) {
    const why = unavailable[box.value];
    if (why) {
      box.checked = false;
      box.disabled = true;
      box.parentElement.append(" — " + why);
    }
  }
}

function initReproduce() {
  checkReproduceModels();
  $("reproduce-run").addEventListener("click", () => go(reproduceJob));
  // Disabled while a job runs, as the form's buttons are (app.js's
  // setBusy sets body's data-busy).
  new MutationObserver(() => { $("reproduce-run").disabled = document.body.dataset.busy === "true"; })
    .observe(document.body, { attributes: true, attributeFilter: ["data-busy"] });
  $("export-reproduction").addEventListener("click", () => {
    if (reproduction.markdown) download("reproduction.md", "text/markdown", reproduction.markdown);
  });
}

initReproduce();
