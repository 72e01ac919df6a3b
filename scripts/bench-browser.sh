#!/bin/sh
# bench-browser.sh measures the browser app's figures in headless Chromium
# (Debian chromium) against a file server on 127.0.0.1: page load to
# interactive and to workers ready, the rate slider's refresh of the demo
# (static model when installed, else BM25), and MiniLM sentences/s per
# worker at 32 tokens. The benchmarks build the wasm app themselves.
set -eu
cd "$(dirname "$0")/.."
exec "${GO:-go}" test ./ui/e2e -run '^$' -bench Browser -benchtime "${BENCHTIME:-3x}" -timeout 30m
