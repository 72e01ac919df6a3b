#!/bin/sh
# wasm-build.sh builds the browser app into webapp/static: app.wasm.gz (the
# Go program of package wasm, compiled to js/wasm and gzip-compressed),
# wasm_exec.js (Go's loader, from the toolchain that built it) and
# components.css (package ui's style sheet, which report.html inlines).
# "make wasm" runs it; "dreval serve" and "dreval site" embed the result.
set -eu
cd "$(dirname "$0")/.."
GO=${GO:-go}
out=webapp/static
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GOOS=js GOARCH=wasm "$GO" build -trimpath -ldflags="-s -w" -o "$tmp/app.wasm" ./wasm
gzip -9 -n -c "$tmp/app.wasm" >"$out/app.wasm.gz"
cp "$("$GO" env GOROOT)/lib/wasm/wasm_exec.js" "$out/wasm_exec.js"
chmod 644 "$out/wasm_exec.js"
cp ui/components.css "$out/components.css"
echo "wasm-build: $out/app.wasm.gz $(wc -c <"$out/app.wasm.gz") bytes (uncompressed $(wc -c <"$tmp/app.wasm"))"
