#!/usr/bin/env bash
# worker-build.sh ("make worker") builds the Cloudflare Worker into
# build/worker: worker.mjs, runtime.mjs and wasm_exec.js from
# syumai/workers' workers-assets-gen, and app.wasm (cloudflare compiled to
# js/wasm). It first fills cloudflare/bundle (emptied again afterwards) with what the
# Worker embeds: the config.json and tokenizer.json of each model in
# $WORKER_MODELS (default minilm; weights are never bundled) and the demo
# corpus embeddings, written by "dreval site -app=false -weights=false".
#
# WORKER_OUT changes the output directory. WORKER_APP=assets builds the
# Worker without the browser app (build tag noapp) and writes the app as a
# static site into build/worker-site instead, for wrangler's [env.assets]
# (Workers static assets): the Worker then stays under the free plan's
# 3 MB; embedding the app makes it ~5 MB gzip, which needs a paid plan.
#
# The browser app is embedded from webapp/static as the binary finds it:
# run "make wasm" first to include it. Needs the models installed
# ("make setup").
set -euo pipefail
cd "$(dirname "$0")/.."

out="${WORKER_OUT:-build/worker}"
models="${WORKER_MODELS:-minilm}"
bundle=cloudflare/bundle

if [ ! -f webapp/static/app.wasm.gz ]; then
  echo "worker-build: warning: webapp/static/app.wasm.gz is missing; the Worker will serve the API without the browser app (run make wasm first)" >&2
fi

# The bundle only lives for the build: the files are compiled into app.wasm
# and removed afterwards, so nothing fetched (the tokenizer) stays in the tree.
clean_bundle() { find "$bundle" -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"; clean_bundle' EXIT
echo "worker-build: bundling models ($models) and demo embeddings" >&2
go run ./cmd/dreval site -out "$stage" -app=false -weights=false -model "$models" >&2
clean_bundle
cp -R "$stage/models" "$stage/data" "$bundle/"

tags=
if [ "${WORKER_APP:-embed}" = assets ]; then
  tags=noapp
  echo "worker-build: writing the app as static assets to build/worker-site" >&2
  rm -rf build/worker-site
  # Without onnxruntime-web's WebGPU build: its 27 MB binary exceeds the
  # 25 MiB a Workers static asset may have.
  go run ./cmd/dreval site -out build/worker-site -weights=false -webgpu=false -model "$models" >&2
fi

echo "worker-build: workers-assets-gen and GOOS=js GOARCH=wasm go build" >&2
go tool workers-assets-gen -mode=go -o "$out"
GOOS=js GOARCH=wasm go build -trimpath -ldflags=-s -tags="$tags" -o "$out/app.wasm" ./cloudflare
size=$(wc -c <"$out/app.wasm")
gz=$(gzip -9c "$out/app.wasm" | wc -c)
echo "worker-build: $out/app.wasm $((size / 1024)) KiB ($((gz / 1024)) KiB gzip)" >&2
