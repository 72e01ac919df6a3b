#!/usr/bin/env bash
# setup-ort.sh installs the ONNX Runtime shared library (libonnxruntime.so.1,
# version 1.24.1, linux x64) that dreval's native "ort" engine loads.
#
# It comes from the npm package onnxruntime-node@1.24.1: the archive is
# fetched with "npm pack" (no install scripts run), its sha512 is checked
# against the integrity hash pinned below (the registry's dist.integrity),
# and only package/bin/napi-v6/linux/x64/libonnxruntime.so.1 is kept.
#
# Destination: $DREVAL_ORT_LIB if set, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/dreval/lib/libonnxruntime.so.1.
# Idempotent: when the file is there with the expected sha256, nothing is
# fetched.
set -euo pipefail

version=1.24.1
integrity='sha512-Ex/oUXKdhDoxvlNxBT3oYtW0MH88yYpPlXQeVQUXpcJQmN24usd/8RCoPLN5kCHwDsiZ+nqsnjciyFRl423dQw=='
member=package/bin/napi-v6/linux/x64/libonnxruntime.so.1
dest="${DREVAL_ORT_LIB:-${XDG_CACHE_HOME:-$HOME/.cache}/dreval/lib/libonnxruntime.so.1}"
stamp="$dest.sha256"

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "setup-ort: only linux x86_64 is supported by this script (got $(uname -s)-$(uname -m))" >&2
  exit 1
fi

if [ -f "$dest" ] && [ -f "$stamp" ] && (cd "$(dirname "$dest")" && sha256sum --status -c "$stamp") 2>/dev/null; then
  echo "setup-ort: $dest already installed (onnxruntime $version)" >&2
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "setup-ort: fetching onnxruntime-node@$version with npm pack" >&2
(cd "$tmp" && npm pack --silent "onnxruntime-node@$version" >/dev/null)
tgz="$tmp/onnxruntime-node-$version.tgz"
[ -f "$tgz" ] || { echo "setup-ort: npm pack did not produce $tgz" >&2; exit 1; }

got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$got" != "$integrity" ]; then
  echo "setup-ort: $tgz has integrity $got, expected $integrity; not installing" >&2
  exit 1
fi

tar -xzf "$tgz" -C "$tmp" "$member"
mkdir -p "$(dirname "$dest")"
install -m 0644 "$tmp/$member" "$dest.tmp"
mv -f "$dest.tmp" "$dest"
(cd "$(dirname "$dest")" && sha256sum "$(basename "$dest")") > "$stamp"
echo "setup-ort: installed $dest" >&2
