#!/usr/bin/env bash
# setup-ort-web.sh installs onnxruntime-web 1.30.0, the ONNX Runtime build
# the browser app runs the transformer with (package encoder/ortweb), into
# $DREVAL_ORT_WEB if set, else ${XDG_CACHE_HOME:-$HOME/.cache}/dreval/ort-web.
# "dreval serve" and "dreval site" serve that folder under ort/ (-ort-web
# names another); nothing of it is committed.
#
# The archive is fetched with "npm pack" (no install scripts run), its
# sha512 is checked against the integrity hash pinned below (the
# registry's dist.integrity), and only the files the page loads are kept:
# the WebAssembly build (ort.wasm.min.js, which also runs under node for
# the tests, with ort-wasm-simd-threaded.mjs and .wasm: SIMD, and threads
# when the page is cross-origin isolated) and the WebGPU build
# (ort.webgpu.min.js with ort-wasm-simd-threaded.asyncify.mjs and .wasm),
# with the package's package.json (its version; the package ships no
# LICENSE file: its scripts carry their MIT licence header).
#
# Idempotent: when every file is there with the sha256 recorded at install
# (SHA256SUMS), nothing is fetched.
set -euo pipefail

version=1.30.0
integrity='sha512-q0y+JrrtukXSzsBWEMccVfqX25LRmosXHF+CaRJmg8pZClzcV7svNc4rKY3jL02Vb7QmRMDs1SigqR4CXAfKYQ=='
files=(
  dist/ort.wasm.min.js
  dist/ort-wasm-simd-threaded.mjs
  dist/ort-wasm-simd-threaded.wasm
  dist/ort.webgpu.min.js
  dist/ort-wasm-simd-threaded.asyncify.mjs
  dist/ort-wasm-simd-threaded.asyncify.wasm
  package.json
)
dest="${DREVAL_ORT_WEB:-${XDG_CACHE_HOME:-$HOME/.cache}/dreval/ort-web}"
sums="$dest/SHA256SUMS"

installed() {
  [ -f "$sums" ] || return 1
  [ "$(wc -l <"$sums")" -eq "${#files[@]}" ] || return 1
  grep -q "\"version\": \"$version\"" "$dest/package.json" 2>/dev/null || return 1
  (cd "$dest" && sha256sum --status -c SHA256SUMS) 2>/dev/null
}

if installed; then
  echo "setup-ort-web: onnxruntime-web $version already installed in $dest" >&2
  exit 0
fi

command -v npm >/dev/null || { echo "setup-ort-web: npm is required (Node 20)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "setup-ort-web: fetching onnxruntime-web@$version with npm pack" >&2
(cd "$tmp" && npm pack --silent "onnxruntime-web@$version" >/dev/null)
tgz="$tmp/onnxruntime-web-$version.tgz"
[ -f "$tgz" ] || { echo "setup-ort-web: npm pack did not produce $tgz" >&2; exit 1; }
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$got" != "$integrity" ]; then
  echo "setup-ort-web: $tgz has integrity $got, expected $integrity; not installing" >&2
  exit 1
fi
members=()
for f in "${files[@]}"; do members+=("package/$f"); done
tar -xzf "$tgz" -C "$tmp" "${members[@]}"
# Into a fresh folder beside the destination, then swapped in, so that a
# half-written install is never served.
mkdir -p "$(dirname "$dest")"
stage="$dest.tmp.$$"
rm -rf "$stage"
mkdir -p "$stage"
for f in "${files[@]}"; do install -m 0644 "$tmp/package/$f" "$stage/$(basename "$f")"; done
(cd "$stage" && sha256sum $(for f in "${files[@]}"; do basename "$f"; done) >SHA256SUMS)
rm -rf "$dest"
mv "$stage" "$dest"
echo "setup-ort-web: installed onnxruntime-web $version in $dest ($(du -sh "$dest" | cut -f1))" >&2
