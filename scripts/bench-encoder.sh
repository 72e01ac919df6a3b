#!/usr/bin/env bash
# bench-encoder.sh measures the pure-Go encoder on all-MiniLM-L6-v2
# (installed by "make setup"): sentences/s at 32 and 128 tokens natively
# with one thread and with every core, under js/wasm in Node.js (one
# thread, the portable kernel), and the peak memory (max RSS) of loading
# the model and encoding one sentence. Each benchmark also reports
# sentences per CPU-second, which a machine shared with other jobs distorts
# less than wall time.
#
# BENCHTIME (default 5x) sets -benchtime for the native runs; WASM=0 skips
# the js/wasm run.
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime="${BENCHTIME:-5x}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== native, 1 thread (GOMAXPROCS=1)"
go test -run '^$' -bench '^BenchmarkMiniLM$/native' -benchtime "$benchtime" -cpu 1 ./encoder/bert/
echo "== native, $(nproc) threads"
go test -run '^$' -bench '^BenchmarkMiniLM$/native' -benchtime "$benchtime" -cpu "$(nproc)" ./encoder/bert/

if [ "${WASM:-1}" != 0 ]; then
  echo "== js/wasm under $(node --version 2>/dev/null || echo 'node (missing)'), portable kernel"
  GOOS=js GOARCH=wasm go test -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" \
    -run '^$' -bench '^BenchmarkMiniLM$/native' -benchtime 2x ./encoder/bert/
fi

echo "== peak memory: load MiniLM with the pure-Go engine and encode one sentence"
go build -o "$tmp/dreval" ./cmd/dreval
echo "This is an example sentence" >"$tmp/one.txt"
/usr/bin/time -v "$tmp/dreval" encode -engine go -q -in "$tmp/one.txt" -out "$tmp/one.npy" 2>"$tmp/time.txt" || { cat "$tmp/time.txt"; exit 1; }
grep -E 'engine:|Maximum resident set size' "$tmp/time.txt"
