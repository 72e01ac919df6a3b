#!/usr/bin/env bash
# setup-axe.sh installs axe-core (the accessibility engine the browser
# end-to-end tests inject into the page, ui/e2e/axe_test.go) from npm with
# "npm pack" (no install scripts run), the archive checked against the
# registry's sha512 integrity hash pinned below. Never committed.
#
# Destination: $DREVAL_AXE if set, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/dreval/axe/axe.min.js. Idempotent.
set -euo pipefail

spec="axe-core@4.14.1"
integrity="sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
dest="${DREVAL_AXE:-${XDG_CACHE_HOME:-$HOME/.cache}/dreval/axe/axe.min.js}"

if [ -s "$dest" ]; then
  echo "setup-axe: $dest already installed ($spec)" >&2
  exit 0
fi
command -v npm >/dev/null || { echo "setup-axe: npm is required" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "setup-axe: fetching $spec with npm pack" >&2
(cd "$tmp" && npm pack --silent "$spec" >/dev/null)
tgz=$(ls "$tmp"/*.tgz)
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$got" != "$integrity" ]; then
  echo "setup-axe: $spec: integrity $got, want $integrity" >&2
  exit 1
fi
tar -xzf "$tgz" -C "$tmp"
mkdir -p "$(dirname "$dest")"
cp "$tmp/package/axe.min.js" "$dest.tmp"
mv "$dest.tmp" "$dest"
echo "setup-axe: installed $dest" >&2
