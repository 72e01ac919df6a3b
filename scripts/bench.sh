#!/usr/bin/env bash
# bench.sh is "make bench": every speed figure in docs/performance.md, section by
# section. Each section prints its own command and figures. The machine's
# load average is printed first: figures taken on a busy machine are not
# comparable. SECTIONS (default: all) picks some, e.g. SECTIONS="metrics search".
set -euo pipefail
cd "$(dirname "$0")/.."
echo "bench: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), load average $(cut -d' ' -f1-3 /proc/loadavg)"
sections="${SECTIONS:-metrics score tokenizer search encoder gradient ort static shards beam browser ortweb robust}"
for s in $sections; do
  echo
  echo "### $s"
  case "$s" in
    metrics)   scripts/bench-metrics.sh ;;
    score)     scripts/bench-score.sh ;;
    tokenizer) go test -run '^$' -bench 'BenchmarkTokenize|BenchmarkFamilies' -benchtime 3x -cpu 1 ./encoder/tokenizer/
               echo "js/wasm (node):"
               GOOS=js GOARCH=wasm go test -run '^$' -bench BenchmarkFamilies -benchtime 1x -cpu 1 \
                 -exec "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" ./encoder/tokenizer/ ;;
    search)    scripts/bench-search.sh ;;
    encoder)   scripts/bench-encoder.sh ;;
    gradient)  go test -run '^$' -bench BenchmarkBackwardMiniLM50 -benchtime 30x ./encoder/bert/ ;;
    ort)       scripts/bench-ort.sh ;;
    shards)    scripts/bench-shards.sh ;;
    beam)      scripts/bench-beam.sh ;;
    static)    if [ -x scripts/bench-static.sh ]; then scripts/bench-static.sh; fi ;;
    browser)   scripts/bench-browser.sh ;;
    ortweb)    scripts/bench-ortweb.sh ;;
    robust)    scripts/bench-robust.sh ;;
    *) echo "bench: unknown section $s" >&2; exit 2 ;;
  esac
done
