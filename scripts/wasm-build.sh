#!/bin/sh
# wasm-build.sh builds the browser app into webapp/static: app.wasm.gz (the
# Go program of package wasm, compiled to js/wasm and gzip-compressed),
# wasm_exec.js (Go's loader, from the toolchain that built it) and
# components.css (package ui's style sheet, which report.html inlines) and
# demo.zip (the demo collection, which the app fetches).
# "make wasm" runs it; "dreval serve" and "dreval site" embed the result.
#
# app.wasm.gz is compressed with zopfli when it is installed (scripts/setup.sh
# installs Debian's zopfli): a standard gzip stream, as every browser and
# "gzip -d" read it, about 4% smaller than gzip -9's (2,952,744 -> 2,822,168
# bytes at f62c8d8), for about a minute of CPU. Without zopfli, or with
# WASM_GZIP=gzip (quick rebuilds while developing), it is gzip -9.
# ZOPFLI_ITERATIONS (default 15, zopfli's own default) trades time for size.
set -eu
cd "$(dirname "$0")/.."
GO=${GO:-go}
out=webapp/static
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Tag nodemo leaves the demo collection out of the app (86 KB of
# app.wasm.gz): the page fetches demo.zip (written below, 85 KB) while the
# app downloads (loader.js's keep), so every host that serves the app
# serves it ("dreval serve", "dreval site" and the Worker embed
# webapp/static).
# scripts/wasm-gcflags.sh: inlining off outside the packages the runs spend
# their time in (394 KB of app.wasm.gz with it off everywhere; see there).
# shellcheck disable=SC2046
GOOS=js GOARCH=wasm "$GO" build -trimpath -tags nodemo $(scripts/wasm-gcflags.sh) -ldflags="-s -w" -o "$tmp/app.wasm" ./wasm
if [ "${WASM_GZIP:-zopfli}" = zopfli ] && command -v zopfli >/dev/null; then
  zopfli --gzip --i"${ZOPFLI_ITERATIONS:-15}" -c "$tmp/app.wasm" >"$tmp/app.wasm.gz"
  how="zopfli, ${ZOPFLI_ITERATIONS:-15} iterations"
else
  gzip -9 -n -c "$tmp/app.wasm" >"$tmp/app.wasm.gz"
  how="gzip -9"
fi
# The served file must be a standard gzip stream of exactly the app.
gzip -dc "$tmp/app.wasm.gz" | cmp -s - "$tmp/app.wasm" || { echo "wasm-build: $tmp/app.wasm.gz does not decompress to the app" >&2; exit 1; }
cp "$tmp/app.wasm.gz" "$out/app.wasm.gz"
cp "$("$GO" env GOROOT)/lib/wasm/wasm_exec.js" "$out/wasm_exec.js"
chmod 644 "$out/wasm_exec.js"
cp ui/components.css "$out/components.css"
"$GO" run ./dataset/demo/zip -out "$out/demo.zip"
# WASM_MAX_BYTES (unset: no limit) fails the build when app.wasm.gz is
# larger, for CI to hold the app's size (docs/performance.md, "browser app size").
size=$(wc -c <"$out/app.wasm.gz")
if [ -n "${WASM_MAX_BYTES:-}" ] && [ "$size" -gt "$WASM_MAX_BYTES" ]; then
  echo "wasm-build: $out/app.wasm.gz is $size bytes ($how), more than WASM_MAX_BYTES=$WASM_MAX_BYTES" >&2
  exit 1
fi
echo "wasm-build: $out/app.wasm.gz $(wc -c <"$out/app.wasm.gz") bytes ($how; uncompressed $(wc -c <"$tmp/app.wasm"))"
