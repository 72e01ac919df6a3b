#!/usr/bin/env bash
# bench-static.sh measures the static (distilled token-table) model:
# sentences per second natively and under js/wasm in Node, for the table
# lookup alone (BenchmarkEmbedIDs: 30522 x 256 table, 64 sentences of 32
# ids) and for text to vector with MiniLM's tokenizer (BenchmarkEncode,
# skipped without "make setup"). The table is random: speed does not
# depend on its values.
#
# BENCHTIME (default 2s) and COUNT (default 1) are passed to go test.
# Report the command and the load average printed first.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "bench-static: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
show() { awk -v where="$1" '/^Benchmark/ {
           s = ""; for (i = 2; i <= NF; i++) if ($i == "sentences/s") s = $(i-1)
           name = $1; sub(/-[0-9]+$/, "", name)
           printf "%-22s %-6s %10s sentences/s\n", name, where, s; next }
         /^(FAIL|panic)/ { print; bad = 1 } END { exit bad }'; }
go test -run '^$' -bench . -benchtime "${BENCHTIME:-2s}" -count "${COUNT:-1}" -cpu 1 ./encoder/static/ | show native
GOOS=js GOARCH=wasm go test -run '^$' -bench . -benchtime "${BENCHTIME:-2s}" -count "${COUNT:-1}" ./encoder/static/ \
  -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" | show wasm
