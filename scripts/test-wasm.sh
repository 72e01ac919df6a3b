#!/usr/bin/env bash
# test-wasm.sh runs the test suites of the packages the browser uses,
# compiled to js/wasm and run under node, so the browser computes what the
# CLI computes (golden files and reference values are shared with the
# native tests).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null || { echo "test-wasm: node is required" >&2; exit 1; }
exec_wasm="$(go env GOROOT)/lib/wasm/go_js_wasm_exec"
pkgs=(./browser/ ./internal/jsvalue/ ./results/ ./spec/ ./metrics/... ./answer/ ./experiment/ ./report/ ./perturb/ ./retrieval/ ./modelfiles/ ./encoder/ ./encoder/transformer/ ./encoder/tokenizer/ ./encoder/bert/ ./encoder/onnx/ ./encoder/ortweb/ ./encoder/torchckpt/ ./encoder/static/ ./dataset/ ./ui/ ./internal/regex/ ./internal/memfs/)
GOOS=js GOARCH=wasm go vet ./wasm/ ./browser/ ./internal/jsvalue/ ./ui/ ./cloudflare/
# internal/pylit reads the browser's uploads (DPR answers, .npy headers);
# ui/e2e is native only (its !js build tag) and must say so under js too.
pkgs+=(./internal/pylit/)
GOOS=js GOARCH=wasm go vet ./ui/...
# The tokenizer's goldens take minutes under node on a busy 2-core machine.
GOOS=js GOARCH=wasm go test -count=1 -short -timeout 30m "$@" -exec "$exec_wasm" "${pkgs[@]}"
